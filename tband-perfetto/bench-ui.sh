#!/usr/bin/env bash
# How long a large trace takes to open in the real Perfetto UI through
# `tband-perfetto --serve` and trace_processor's accelerator
# (docs/performance.md, "Opening a large trace in the Perfetto UI"): a
# simulated two-core trace of SIZE, served as a user serves it, opened in
# headless Chromium by the end-to-end test's driver; prints the time to
# convert and load it, and the page's time to the first drawn timeline.
#   TBAND_TRACE_PROCESSOR=/path/to/trace_processor_shell TBAND_PERFETTO_UI=/path/to/ui \
#     tband-perfetto/bench-ui.sh [SIZE]   (as tband-sim --size; default 250M)
# Needs Chromium as /usr/bin/chromium and the driver's packages
# (`npm ci` in tband-perfetto/tests/ui); binds 127.0.0.1:9001 and :10000,
# as the UI wants.
set -euo pipefail
for var in TBAND_TRACE_PROCESSOR TBAND_PERFETTO_UI; do
  if [ -z "${!var:-}" ]; then
    echo "bench-ui.sh: set $var (see CONTRIBUTING.md, the Perfetto UI test)" >&2
    exit 2
  fi
done
cd "$(dirname "$0")/.."
driver=tband-perfetto/tests/ui
if [ ! -d "$driver/node_modules/playwright-core" ]; then
  echo "bench-ui.sh: run 'npm ci' in $driver first" >&2
  exit 2
fi
size="${1:-250M}"
work=$(mktemp -d)
server=
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cargo build --release --locked -p tband-perfetto -p tband-sim
bin="${CARGO_TARGET_DIR:-target}/release"
"$bin/tband-sim" --size "$size" --cores 2 -o "$work/sim.bin" >/dev/null 2>&1
input_mb=$(stat -c %s "$work/sim.c0.bin" "$work/sim.c1.bin" | awk '{ s += $1 } END { printf "%.0f", s / 1e6 }')

start=$(date +%s.%N)
mkfifo "$work/out"
XDG_DATA_HOME="$work/data" "$bin/tband-perfetto" "$work/sim.c0.bin@0" "$work/sim.c1.bin@1" \
  -o "$work/sim.pftrace" --serve --ui http://127.0.0.1:10000 --extension-port 0 \
  >"$work/out" 2>"$work/serve.err" &
server=$!
exec 3<"$work/out"
if ! read -r link <&3 || ! read -r extension <&3; then
  cat "$work/serve.err" >&2
  echo "bench-ui.sh: tband-perfetto --serve stopped before it was ready" >&2
  exit 1
fi
served=$(date +%s.%N)
export_mb=$(stat -c %s "$work/sim.pftrace" | awk '{ printf "%.0f", $1 / 1e6 }')

cat >"$work/job.json" <<EOF
{ "link": "$link", "extension": "$extension", "linkTabs": [], "focusTrack": "sim.c0",
  "views": [], "macros": [], "macroShot": null, "screenshots": "$work/shots",
  "patienceMs": 1800000 }
EOF
node "$driver/drive_ui.mjs" "$work/job.json" >"$work/report.json"
node -e '
  const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const [input, exported, serve] = process.argv.slice(2);
  const t = report.timings;
  console.log(`input ${input} MB, export ${exported} MB`);
  console.log(`convert and load into trace_processor: ${Number(serve).toFixed(1)} s`);
  console.log(`page to the accelerator dialog:         ${(t.load / 1000).toFixed(1)} s`);
  console.log(`accepted to the first track drawn:      ${(t.open / 1000).toFixed(1)} s`);
  console.log(`accepted to the page idle:              ${((t.open + t.timeline) / 1000).toFixed(1)} s (startup commands run)`);
  console.log(`tracks listed:                          ${report.tracks.length}`);
' "$work/report.json" "$input_mb" "$export_mb" "$(awk -v a="$start" -v b="$served" 'BEGIN { print b - a }')"
