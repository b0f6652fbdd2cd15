#!/usr/bin/env bash
# Installs, idempotently and pinned, what serving (`setup.sh serve`), testing (`setup.sh test`)
# or the fast checks (`setup.sh check`: the toolchain only) need. Every step checks the installed *version* first, so a second run
# on a warm machine installs nothing and takes seconds. Only package registries are used
# (crates.io, npm, Debian); nothing is downloaded from elsewhere.
set -euo pipefail

MODE=${1:-test}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen version in Cargo.lock and Trunk.toml
CARGO_DENY_VERSION=0.20.2
TOOLCHAIN=$(sed -n 's/^channel = "\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml")

log() { printf '[setup] %s\n' "$*"; }

# Cargo-installed tools land in ~/.cargo/bin; make sure it is on PATH for the checks below.
export PATH="$HOME/.cargo/bin:$PATH"

# The toolchain of rust-toolchain.toml. rustup keeps a channel install ("stable") and a
# version install ("1.95.0") apart, and does not install either on demand: when the installed
# stable *is* the pinned version, name it by its version too (a link, nothing downloaded).
ensure_toolchain() {
    if rustup run "$TOOLCHAIN" rustc --version 2>/dev/null | grep -q "^rustc $TOOLCHAIN "; then
        log "rust $TOOLCHAIN: present"
    elif rustup run stable rustc --version 2>/dev/null | grep -q "^rustc $TOOLCHAIN "; then
        local host
        host=$(rustup run stable rustc -vV | sed -n 's/^host: //p')
        log "rust $TOOLCHAIN: the installed stable, linked as $TOOLCHAIN-$host"
        ln -s "$(rustup run stable rustc --print sysroot)" "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$TOOLCHAIN-$host"
    else
        log "installing rust $TOOLCHAIN (rust-toolchain.toml)"
        rustup toolchain install "$TOOLCHAIN" --profile minimal -c rustfmt -c clippy -t wasm32-unknown-unknown
    fi
}

ensure_wasm_target() {
    if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        log "wasm32-unknown-unknown target: present"
    else
        log "adding the wasm32-unknown-unknown target"
        rustup target add wasm32-unknown-unknown
    fi
}

ensure_trunk() {
    if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
        log "trunk $TRUNK_VERSION: present"
    else
        log "installing trunk $TRUNK_VERSION (about 5 minutes on 2 cores)"
        # --locked: trunk 0.22 needs a newer rustc; 0.21.14 with its lock file builds here.
        cargo install --locked "trunk@$TRUNK_VERSION"
    fi
}

ensure_wasm_bindgen() {
    if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] &&
        command -v wasm-bindgen-test-runner >/dev/null; then
        log "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
    else
        log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 4 minutes)"
        # Without --locked: the registry mirror lacks one locked transitive version.
        cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
    fi
}

ensure_cargo_deny() {
    if [ "$(cargo deny --version 2>/dev/null || true)" = "cargo-deny $CARGO_DENY_VERSION" ]; then
        log "cargo-deny $CARGO_DENY_VERSION: present"
    else
        log "installing cargo-deny $CARGO_DENY_VERSION (about 4 minutes of CPU: 2-3 minutes on 2 idle cores)"
        cargo install --locked "cargo-deny@$CARGO_DENY_VERSION"
    fi
}

# npm ci into $1 unless its node_modules already matches its package-lock.json.
ensure_npm() {
    local dir=$1 stamp=$1/node_modules/.skblab-lock-stamp
    if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
        log "npm packages in ${dir#"$ROOT"/}: present"
    else
        log "npm ci in ${dir#"$ROOT"/}"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        cp "$dir/package-lock.json" "$stamp"
    fi
}

ensure_apt() {
    local missing=()
    command -v chromium >/dev/null || missing+=(chromium)
    command -v chromedriver >/dev/null || missing+=(chromium-driver)
    command -v pahole >/dev/null || missing+=(dwarves)
    if [ ${#missing[@]} -eq 0 ]; then
        log "chromium, chromium-driver, pahole: present"
    elif [ "$(id -u)" -eq 0 ]; then
        log "apt-get install ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "[setup] missing ${missing[*]}: run as root, or: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
}

ensure_toolchain
if [ "$MODE" = check ]; then
    log "done ($MODE)"
    exit 0
fi
ensure_wasm_target
ensure_trunk
ensure_wasm_bindgen
ensure_npm "$ROOT/tools"
if [ "$MODE" = test ]; then
    ensure_apt
    ensure_npm "$ROOT/e2e"
    ensure_cargo_deny
fi
log "done ($MODE)"
