#!/usr/bin/env bash
# The web page against the native tools on one machine (docs/performance.md,
# "The web page"): a simulated trace converted in headless Chromium and by
# tband-perfetto --threads 1, in turns (ROUNDS, default 3); the renderer's
# peak memory; the .wasm's gzipped size.
#   tband-web/bench.sh [SIZE] [ROUNDS]      (SIZE as tband-sim --size, default 100M)
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
cd "$web/.."
size="${1:-100M}"
rounds="${2:-3}"
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

cargo build --release --locked -p tband-perfetto -p tband-sim -p tband-web
bin="${CARGO_TARGET_DIR:-target}/release"
"$bin/tband-sim" --size "$size" -o "$work/sim.bin" >/dev/null
tband-web/build.sh "$work/site" >/dev/null
"$bin/tband-web" "$work/site" --port 0 >"$work/url" &
server=$!
until [ -s "$work/url" ]; do sleep 0.1; done
printf '[{"files":[{"path":"%s"}],"download":"%s"}]' "$work/sim.bin" "$work/page.pftrace" >"$work/jobs.json"

for round in $(seq "$rounds"); do
  (cd tband-web && node tests/drive_page.mjs "$(cat "$work/url")" "$work/jobs.json") >"$work/page$round.json"
  start=$EPOCHREALTIME
  "$bin/tband-perfetto" --threads 1 -o "$work/native.pftrace" "$work/sim.bin" 2>/dev/null
  awk "BEGIN { print $EPOCHREALTIME - $start }" >"$work/native$round.txt"
done
cmp -s "$work/page.pftrace" "$work/native.pftrace" && same=yes || same=NO

python3 - "$work" "$rounds" "$(stat -c %s "$work/sim.bin")" "$same" \
  "$(stat -c %s "$work/site/pkg/tband_web_bg.wasm")" "$(gzip -9 -c "$work/site/pkg/tband_web_bg.wasm" | wc -c)" <<'PY'
import json, statistics, sys
work, rounds, size, same, wasm, wasm_gz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
mb = size / 1e6
pages = [json.load(open(f"{work}/page{r}.json"))[0] for r in range(1, rounds + 1)]
native = [float(open(f"{work}/native{r}.txt").read()) for r in range(1, rounds + 1)]
# The page's conversion as tband-perfetto's: decoding and export, after the
# file is read; the summary, which tband-perfetto does not make, apart.
page = [(p["timings"]["decodeMs"] + p["timings"]["exportMs"]) / 1e3 for p in pages]
summary = [p["timings"]["summaryMs"] / 1e3 for p in pages]
total = [p["timings"]["totalMs"] / 1e3 for p in pages]
rate = lambda seconds: ", ".join(f"{mb / s:.0f}" for s in seconds)
print(f"trace {mb:.1f} MB, {rounds} rounds (MB/s each)")
print(f"page, decode + export: {rate(page)}; all, with reading and the summary: {rate(total)}")
for stage in ["decode", "export"]:
    print(f"page, {stage} alone: {rate([p['timings'][stage + 'Ms'] / 1e3 for p in pages])}")
print(f"page, summary: {', '.join(f'{s:.2f}' for s in summary)} s")
print(f"native tband-perfetto --threads 1: {rate(native)}")
print(f"page / native, medians: {statistics.median(native) / statistics.median(page):.2f}")
print(f"page peak renderer RSS: {max(p['peakRendererKiB'] for p in pages) / 1024:.0f} MiB")
print(f"page .pftrace identical to tband-perfetto --threads 1: {same}")
print(f"tband_web_bg.wasm: {wasm} bytes, {wasm_gz} gzipped (-9)")
PY
