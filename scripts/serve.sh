#!/usr/bin/env bash
# Starts the Memory Bank service alone (no window) on its embedded SQLite database and prints how to
# call it. First run: creates a local user and org. Every run issues a fresh token
# (shown once, stored only as a hash).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
ensure_build_deps

cargo build --release --locked -p memory-bank >&2
bin="$PWD/target/release/memory-bank"
listen="${MEMORY_BANK_LISTEN:-127.0.0.1:8787}"
# The local account the desktop app and `memory-bank mcp` use (one source: crates/server/src/local.rs).
local_const() { sed -n "s/^pub const $1: &str = \"\(.*\)\";\$/\1/p" crates/server/src/local.rs; }
email="${MEMORY_BANK_LOCAL_EMAIL:-$(local_const LOCAL_EMAIL)}"

user=$("$bin" admin user list | awk -F'\t' -v e="$email" '$2 == e { print $1 }')
if [ -z "$user" ]; then
    user=$("$bin" admin user add "$email")
    org=$("$bin" admin org add "$(local_const LOCAL_ORG)")
    "$bin" admin member add "$org" "$user" 2>/dev/null
fi
org=$("$bin" admin org list --member "$user" | head -n 1 | cut -f1)
token=$("$bin" admin token issue "$user")

cat <<MSG

Memory Bank is starting on http://$listen (embedded SQLite database).
Your token (shown once; issue another with: memory-bank admin token issue $user):

  export MEMORY_BANK_URL=http://$listen MEMORY_BANK_TOKEN=$token MEMORY_BANK_ORG=$org

Then, in another terminal:
  $bin memory save "Prefers green tea over coffee" --tag drinks
  $bin memory search tea
  $bin memory list
  curl -s -H "Authorization: Bearer \$MEMORY_BANK_TOKEN" -H "X-Org-Id: \$MEMORY_BANK_ORG" "http://$listen/v1/memory/search?q=tea"
  curl -s http://$listen/v1/openapi.json

Stop with Ctrl-C.
MSG
exec "$bin" serve --listen "$listen"
