#!/usr/bin/env bash
# Builds the playground into web/dist/ (open it through any static server:
# `python3 -m http.server -d web/dist`) and the npm package's WebAssembly into
# npm/dist/ (both from web/wasm: the package's adds the command line). Needs only rustup and cargo: it adds the
# wasm32-unknown-unknown target and installs wasm-bindgen-cli, pinned, from
# crates.io into a cache folder ($LOOPSIM_TOOLS, default ~/.cache/loopsim).
set -euo pipefail
cd "$(dirname "$0")/.."

# Must equal the wasm-bindgen crate's version in web/wasm/Cargo.toml.
WASM_BINDGEN=0.2.130
# The most WebAssembly the page may load, gzipped (issue #15's budget).
BUDGET=$((400 * 1024))

tools="${LOOPSIM_TOOLS:-$HOME/.cache/loopsim}/wasm-bindgen-$WASM_BINDGEN"
bindgen="$tools/bin/wasm-bindgen"

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown
if [ ! -x "$bindgen" ] || [ "$("$bindgen" --version)" != "wasm-bindgen $WASM_BINDGEN" ]; then
  echo "== installing wasm-bindgen-cli $WASM_BINDGEN into $tools (once)"
  # Not --locked: its lock file names a webpki-roots release this registry may lack.
  cargo install --quiet wasm-bindgen-cli --version "=$WASM_BINDGEN" --root "$tools"
fi

out=web/wasm/target/wasm32-unknown-unknown/release/loopsim_web.wasm
flags=(--target web --no-typescript --remove-name-section --remove-producers-section)

echo "== building the playground's WebAssembly (web/wasm)"
cargo build --quiet --locked --release --target wasm32-unknown-unknown --manifest-path web/wasm/Cargo.toml
rm -rf web/dist
mkdir -p web/dist
"$bindgen" "${flags[@]}" --out-dir web/dist "$out"
cp -R web/static/. web/dist/

# The npm package's module: the same crate with the command line's argument
# parser (the `cli` feature), named loopsim.js / loopsim_bg.wasm; its
# `--target web` glue loads in Node too.
echo "== building the npm package's WebAssembly (web/wasm, feature cli)"
cargo build --quiet --locked --release --target wasm32-unknown-unknown --manifest-path web/wasm/Cargo.toml --features cli
rm -rf npm/dist
mkdir -p npm/dist
"$bindgen" "${flags[@]}" --out-name loopsim --out-dir npm/dist "$out"

size=$(gzip -9 -c web/dist/loopsim_web_bg.wasm | wc -c)
echo "== npm/dist/loopsim_bg.wasm: $(wc -c < npm/dist/loopsim_bg.wasm) bytes, $(gzip -9 -c npm/dist/loopsim_bg.wasm | wc -c) gzipped"
echo "== web/dist/loopsim_web_bg.wasm: $(wc -c < web/dist/loopsim_web_bg.wasm) bytes, $size gzipped (budget $BUDGET)"
if [ "$size" -gt "$BUDGET" ]; then
  echo "error: the WebAssembly is over its budget of $BUDGET bytes gzipped" >&2
  exit 1
fi
echo "== built web/dist/ (serve it: python3 -m http.server -d web/dist) and npm/dist/"
