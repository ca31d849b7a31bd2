#!/usr/bin/env bash
# Runs every test of the project: the UI (Vitest + axe), the Rust workspace (stores on
# SQLite and a throwaway MariaDB, the HTTP API and CLI on loopback, the desktop core and
# command layer), the MCP server under the official TypeScript SDK, and the desktop app
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
ensure_tauri_driver

echo "==> ui: npm ci, vitest, vite build" >&2
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui test
npm --prefix ui run build   # ui/dist must exist before the app is compiled

echo "==> cargo test (workspace, with the app serving ui/dist)" >&2
cargo test --workspace --locked --features memory-bank-app/custom-protocol

echo "==> MCP: memory-bank mcp and serve's /mcp driven by the official TypeScript SDK" >&2
npm ci --prefix tests/mcp-sdk --no-audit --no-fund
npm --prefix tests/mcp-sdk test

echo "==> end to end: the app in a real window (Xvfb + tauri-driver)" >&2
npm ci --prefix tests/e2e --no-audit --no-fund
xvfb-run -a -s "-screen 0 1280x800x24" npm --prefix tests/e2e test
