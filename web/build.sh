#!/usr/bin/env bash
# Builds the playground into web/dist/ (open it through any static server:
# `python3 -m http.server -d web/dist`) and the npm package's npm/dist/: one
# WebAssembly module (web/wasm) for both. Needs rustup, cargo and node (which
# writes the examples' menu) and npm: it adds the wasm32-unknown-unknown
# target, installs wasm-bindgen-cli, pinned, from crates.io and binaryen's
# wasm-opt, pinned, from the npm registry, into a cache folder
# ($LOOPSIM_TOOLS, default ~/.cache/loopsim).
set -euo pipefail
cd "$(dirname "$0")/.."

# Must equal the wasm-bindgen crate's version in web/wasm/Cargo.toml.
WASM_BINDGEN=0.2.130
# binaryen (its npm package: wasm-opt compiled to JavaScript and WebAssembly).
BINARYEN=132.0.0
# The most WebAssembly the page (and the package) may load, gzipped (issue #15's budget).
BUDGET=$((400 * 1024))

cache="${LOOPSIM_TOOLS:-$HOME/.cache/loopsim}"
tools="$cache/wasm-bindgen-$WASM_BINDGEN"
bindgen="$tools/bin/wasm-bindgen"
binaryen="$cache/binaryen-$BINARYEN"
wasm_opt="$binaryen/node_modules/.bin/wasm-opt"

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown
if [ ! -x "$bindgen" ] || [ "$("$bindgen" --version)" != "wasm-bindgen $WASM_BINDGEN" ]; then
  echo "== installing wasm-bindgen-cli $WASM_BINDGEN into $tools (once)"
  # Not --locked: its lock file names a webpki-roots release this registry may lack.
  cargo install --quiet wasm-bindgen-cli --version "=$WASM_BINDGEN" --root "$tools"
fi
if [ ! -x "$wasm_opt" ]; then
  echo "== installing binaryen $BINARYEN (wasm-opt) into $binaryen (once)"
  mkdir -p "$binaryen"
  npm install --silent --no-save --no-package-lock --prefix "$binaryen" "binaryen@$BINARYEN"
fi

out=web/wasm/target/wasm32-unknown-unknown/release/loopsim_web.wasm
flags=(--target web --no-typescript --remove-name-section --remove-producers-section)

# One module for both (issue #15): the playground's and the npm package's
# loopsim.js / loopsim_bg.wasm (and wasm-bindgen's snippets/) are the same
# files; its `--target web` glue loads in Node too.
echo "== building the WebAssembly (web/wasm)"
# Panic locations hold source paths: remapped, so that their length does not
# depend on the folders the clone and cargo's registry are in (a clone path 7
# characters longer made the module 68 B larger, gzipped). The layout still
# varies a little with the clone's folder (cargo hashes a path dependency's
# folder into its symbols): up to about 0.3 KB gzipped between folders
# measured (docs/playground.md), well inside the room left under the budget.
sep=$'\x1f'
flags_in="${CARGO_ENCODED_RUSTFLAGS:-${RUSTFLAGS:+${RUSTFLAGS// /$sep}}}"
# (rustc applies the last prefix that matches: each registry index's own,
# once a build has unpacked crates there, else the registry's.)
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src/"
remap="--remap-path-prefix=$PWD/=$sep--remap-path-prefix=$registry="
shopt -s nullglob
for index in "$registry"*/; do
  remap+="$sep--remap-path-prefix=$index="
done
export CARGO_ENCODED_RUSTFLAGS="${flags_in:+$flags_in$sep}$remap"
cargo build --quiet --locked --release --target wasm32-unknown-unknown --manifest-path web/wasm/Cargo.toml
module=web/wasm/target/bindgen
rm -rf "$module" web/dist npm/dist
"$bindgen" "${flags[@]}" --out-name loopsim --out-dir "$module" "$out"
# wasm-opt's -O1: 3.6 KB less gzipped (its -Os and -Oz make the module
# smaller but less regular, 16 KB more gzipped); run to convergence (its
# passes again while they shrink the module), 2.2 KB less again, in about
# 17 s instead of 5; then dead arguments removed across calls
# (--dae-optimizing), the code flattened and its control flow rebuilt
# (--flatten --rereloop) and -O1 once more: 2.1 KB less again, in about 48 s,
# as fast (`run --all-orders` of a 627-order file in the npm package: 10.2 s
# both); then flattened and rebuilt once more, with -O1, and identical code
# tails folded (--code-folding) before a last -O1: 0.97 KB less again, in
# about 51 s (one such round without the folding: 81 B; the folding
# without -O1 after it: 294 B; -O2 or --merge-similar-functions there make
# the module smaller but 1.5 to 25 KB larger gzipped). The features are
# those rustc enables for wasm32-unknown-unknown.
passes=(-O1 --converge --dae-optimizing --flatten --rereloop -O1 --flatten --rereloop -O1 --code-folding -O1)
echo "== optimizing it (wasm-opt ${passes[*]}; about a minute)"
"$wasm_opt" "${passes[@]}" \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-multivalue --enable-reference-types \
  "$module/loopsim_bg.wasm" -o "$module/loopsim_bg.wasm"
mkdir -p web/dist npm/dist
cp -R "$module"/. web/dist/
cp -R web/static/. web/dist/
# The examples for the page's menu: a file of their own, not in the WebAssembly.
node web/examples.mjs web/dist/examples.json
cp -R "$module"/. npm/dist/

wasm=web/dist/loopsim_bg.wasm
size=$(gzip -9 -c "$wasm" | wc -c)
echo "== web/dist/ and npm/dist/loopsim_bg.wasm: $(wc -c < "$wasm") bytes, $size gzipped (budget $BUDGET)"
if [ "$size" -gt "$BUDGET" ]; then
  echo "error: the WebAssembly is over its budget of $BUDGET bytes gzipped" >&2
  exit 1
fi
echo "== built web/dist/ (serve it: python3 -m http.server -d web/dist) and npm/dist/"
