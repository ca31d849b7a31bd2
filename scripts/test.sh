#!/usr/bin/env bash
# Runs every test of the project. On a fresh Debian 12 machine (as root) it first
# installs whatever is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
ensure_build_deps
# The MySQL/MariaDB tests start a throwaway MariaDB server of their own (unless
# MEMORY_BANK_TEST_MYSQL_URL names one); they fail, never skip, without it.
apt_install mariadb-server mariadb-client

echo "==> cargo test (workspace)" >&2
cargo test --workspace --locked

echo "==> ui: npm ci, vitest, vite build" >&2
npm ci --prefix ui && npm --prefix ui test && npm --prefix ui run build
