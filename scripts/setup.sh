#!/usr/bin/env bash
# Installs, idempotently and pinned, what serving (`setup.sh serve`), testing (`setup.sh test`)
# or the fast checks (`setup.sh check`: the toolchain only) need, and what `make measure` runs
# (`setup.sh measure`: iperf3, sockperf, pahole, perf from Debian). Every step checks the installed *version* first, so a second run
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

# The three cargo-installed tools (trunk, wasm-bindgen-cli, cargo-deny) are most of a fresh
# machine's setup time. Two measures, neither changing what the tools do:
# - their own release profiles ask for `lto = "fat"` and `codegen-units = 1` (trunk's does),
#   which makes the last step, the binary crate with the whole dependency graph, one
#   single-threaded job of several minutes on this 2-core machine: the environment overrides
#   them (cargo's config takes precedence over a package's profile) with a plain release build,
#   every crate still at opt-level 3;
# - one shared target directory for the three installs, so a crate that two of them use at
#   the same version and features is compiled once (the installs run one after another:
#   parallel cargo builds on 2 cores only compete).
TOOL_TARGET=${SKBLAB_TOOL_TARGET:-$ROOT/target/tool-build}
tool_install() {
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
        CARGO_TARGET_DIR="$TOOL_TARGET" cargo install "$@"
}

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
        log "installing trunk $TRUNK_VERSION (a few minutes on 2 cores)"
        # --locked: trunk 0.22 needs a newer rustc; 0.21.14 with its lock file builds here.
        # --no-default-features: no TLS stack (rustls, ring, webpki) and no update check. The
        # project never lets trunk download (TRUNK_OFFLINE, tools installed here) and serves
        # with scripts/serve.mjs, so neither is used.
        tool_install --locked --no-default-features "trunk@$TRUNK_VERSION"
    fi
}

ensure_wasm_bindgen() {
    if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] &&
        command -v wasm-bindgen-test-runner >/dev/null; then
        log "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
    else
        log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 4 minutes)"
        # Without --locked: the registry mirror lacks one locked transitive version.
        # --no-default-features: no rustls; the test runner talks plain HTTP to a local
        # chromedriver.
        tool_install --no-default-features wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
    fi
}

ensure_cargo_deny() {
    if [ "$(cargo deny --version 2>/dev/null || true)" = "cargo-deny $CARGO_DENY_VERSION" ]; then
        log "cargo-deny $CARGO_DENY_VERSION: present"
    else
        log "installing cargo-deny $CARGO_DENY_VERSION (about 4 minutes of CPU: 2-3 minutes on 2 idle cores)"
        tool_install --locked "cargo-deny@$CARGO_DENY_VERSION"
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
    apt_install "chromium, chromium-driver, pahole" "${missing[@]}"
}

# apt_install WHAT PACKAGE...: installs the missing Debian packages (none: WHAT is present).
apt_install() {
    local what=$1
    shift
    if [ $# -eq 0 ]; then
        log "$what: present"
    elif [ "$(id -u)" -eq 0 ]; then
        log "apt-get install $*"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    else
        echo "[setup] missing $*: run as root, or: sudo apt-get install $*" >&2
        exit 1
    fi
}

# The downloads (npm, apt) wait on the network and the disk, the cargo installs on the CPU:
# the first run in the background while the second compile, instead of one after the other.
# e2e/'s packages (playwright-core) and Chromium: the e2e tests, and for `serve` too, the
# build's pre-rendered first views (scripts/build-web.sh).
downloads() {
    ensure_npm "$ROOT/tools"
    if [ "$MODE" = test ]; then
        ensure_apt
    else
        apt_install chromium $(command -v chromium >/dev/null || echo chromium)
    fi
    ensure_npm "$ROOT/e2e"
}

# `make measure` (setup.sh measure): the tools `skblab measure` runs on the real machine.
ensure_measure_tools() {
    local missing=()
    command -v iperf3 >/dev/null || missing+=(iperf3)
    command -v sockperf >/dev/null || missing+=(sockperf)
    command -v pahole >/dev/null || missing+=(dwarves)
    command -v perf >/dev/null || missing+=(linux-perf)
    apt_install "iperf3, sockperf, pahole, perf" "${missing[@]}"
}

ensure_toolchain
if [ "$MODE" = measure ]; then
    ensure_measure_tools
    log "done ($MODE)"
    exit 0
fi
if [ "$MODE" = check ]; then
    log "done ($MODE)"
    exit 0
fi
ensure_wasm_target
downloads &
downloads_pid=$!
# A failed install below stops the script: the downloads stop with it.
trap '[ -z "${downloads_pid:-}" ] || kill "$downloads_pid" 2>/dev/null || true' EXIT
ensure_trunk
ensure_wasm_bindgen
if [ "$MODE" = test ]; then
    ensure_cargo_deny
fi
wait "$downloads_pid" || { downloads_pid=; echo "[setup] npm or apt install failed (see above)" >&2; exit 1; }
downloads_pid=
# The shared build directory of the installs is scratch once they are done.
[ -n "${SKBLAB_TOOL_TARGET:-}" ] || rm -rf "$ROOT/target/tool-build"
log "done ($MODE)"
