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
    # libdbus: the desktop keyring (Secret Service); webkit2gtk/gtk: the Tauri window;
    # libssl-dev: OpenSSL's libcrypto for SQLCipher, the encryption of SQLite banks.
    apt_install build-essential pkg-config ca-certificates libdbus-1-dev libssl-dev libwebkit2gtk-4.1-dev
    ensure_rust
}

# Node.js 20.19+ for the UI build and tests (Vite 8). Debian 12's own nodejs is 18,
# too old, so a missing or old Node is reported rather than half-installed.
ensure_node() {
    local version
    version=$(node --version 2>/dev/null | sed 's/^v//') || true
    if [ -z "$version" ] || [ "$(printf '%s\n20.19.0\n' "$version" | sort -V | head -n 1)" != "20.19.0" ]; then
        echo "error: Node.js 20.19 or newer is needed (found: ${version:-none}). Install it (e.g. from the NodeSource" >&2
        echo "       packages or nvm), then run this again." >&2
        exit 1
    fi
    command -v npm >/dev/null 2>&1 || apt_install npm
}

# tauri-driver bridges WebDriver to WebKitWebDriver for the end-to-end tests.
ensure_tauri_driver() {
    [ -x "$HOME/.cargo/bin/tauri-driver" ] && export PATH="$HOME/.cargo/bin:$PATH"
    command -v tauri-driver >/dev/null 2>&1 || cargo install tauri-driver --version '^2' --locked
}

# The Tauri CLI runs the Tauri bundler that makes the .deb and .rpm (scripts/package.sh,
# and the package check in scripts/test.sh). It is npm's @tauri-apps/cli, pinned to the
# version of @tauri-apps/api in ui/package.json (the tauri 2 line): its prebuilt binary
# installs in seconds, where `cargo install tauri-cli` compiles ~800 crates (about
# 14 CPU-minutes here). Kept outside the tree, once per version. Sets TAURI_CLI (its path).
TAURI_CLI_VERSION=2.12.5
ensure_tauri_cli() {
    local dir="${XDG_CACHE_HOME:-$HOME/.cache}/memory-bank/tauri-cli-$TAURI_CLI_VERSION"
    TAURI_CLI="$dir/node_modules/.bin/tauri"
    if ! "$TAURI_CLI" --version 2>/dev/null | grep -qx "tauri-cli $TAURI_CLI_VERSION"; then
        echo "==> installing the Tauri CLI $TAURI_CLI_VERSION from npm (@tauri-apps/cli) into $dir" >&2
        mkdir -p "$dir"
        npm install --prefix "$dir" --no-audit --no-fund --save-exact "@tauri-apps/cli@$TAURI_CLI_VERSION" >&2
        "$TAURI_CLI" --version >/dev/null || {
            echo "error: the Tauri CLI $TAURI_CLI_VERSION does not run from $dir: npm's @tauri-apps/cli has a" >&2
            echo "       prebuilt binary for x64/arm64 Linux (glibc or musl) only. Delete $dir and run this again." >&2
            exit 1
        }
    fi
}

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
