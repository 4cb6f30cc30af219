#!/usr/bin/env bash
# Builds the web page into a folder that any static file server can host:
#   tband-web/build.sh [FOLDER]        (default: tband-web/dist)
# Needs the wasm32-unknown-unknown target and wasm-bindgen-cli of the same
# version as the wasm-bindgen crate in Cargo.lock (see docs/src/web.md).
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
out="$(mkdir -p "${1:-$web/dist}" && cd "${1:-$web/dist}" && pwd)"
cd "$web/.."

cargo build -p tband-web --lib --target wasm32-unknown-unknown --profile web --locked
target="${CARGO_TARGET_DIR:-target}"
wasm-bindgen --target web --no-typescript --out-dir "$out/pkg" \
  "$target/wasm32-unknown-unknown/web/tband_web.wasm"
cp "$web"/www/* "$out/"
echo "built the page into $out"
