#!/usr/bin/env bash
# Makes, once, a Python venv holding Aider for tests/session-tools (PyPI aider-chat, and
# everything it pulls in, pinned in requirements.txt), and prints the path of its `aider`.
# Kept outside the tree, keyed by requirements.txt and the Python it is made with, so a
# repeated run installs nothing (the install takes about a minute and 690 MB). Needs
# python3 with its venv module (on Debian: python3-venv; scripts/test.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
key=$({ cat "$here/requirements.txt"; "$python" -c 'import sys; print(sys.executable, sys.version)'; } | sha256sum | cut -c1-16)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/memory-bank/aider-venv-$key"
# A venv cannot be moved (its scripts name its folder), so it is made in place, and the
# stamp written last says it is whole.
if [ ! -f "$dir/.installed" ] || [ ! -x "$dir/bin/aider" ]; then
    echo "==> installing Aider (PyPI aider-chat, pinned in tests/session-tools/requirements.txt) into $dir" >&2
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    "$python" -m venv "$dir" >&2
    "$dir/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt" >&2
    touch "$dir/.installed"
fi
echo "$dir/bin/aider"
