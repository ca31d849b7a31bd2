# Shared by scripts/run.sh and scripts/test.sh: install what a fresh Debian 12
# machine lacks, only when it is missing. Needs root (or sudo) for apt-get.

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing Debian packages: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        echo "error: cargo was not found. Install Rust 1.85 or newer with rustup (https://rustup.rs), then run this again." >&2
        exit 1
    fi
}

# What building the Rust workspace needs.
ensure_build_deps() {
    # libdbus: the desktop keyring (Secret Service); webkit2gtk/gtk: the Tauri window.
    apt_install build-essential pkg-config ca-certificates libdbus-1-dev libwebkit2gtk-4.1-dev
    ensure_rust
}
