#!/usr/bin/env bash
# Builds the UI and opens the Memory Bank desktop app. With no account it starts an
# embedded memory service (SQLite in the app's data folder) and works at once.
# MEMORY_BANK_URL/TOKEN/ORG point it at a team server; MEMORY_BANK_DATA_DIR moves its data.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
ensure_build_deps
ensure_node

npm ci --prefix ui --no-audit --no-fund >&2
npm --prefix ui run build >&2
cargo build --release --locked -p memory-bank-app --features custom-protocol >&2
if [ "$(uname)" = "Linux" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "error: no display to open the window on. Run this from a desktop session," >&2
    echo "       or use scripts/serve.sh to run the memory service alone." >&2
    exit 1
fi
exec target/release/memory-bank-app
