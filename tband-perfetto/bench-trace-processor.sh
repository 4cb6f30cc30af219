#!/usr/bin/env bash
# What opening an export costs Perfetto's trace_processor (docs/performance.md,
# "Opening exports in trace_processor"): for each SIZE, a simulated two-core
# trace converted to Perfetto protobuf and to Chrome JSON, each loaded by
# trace_processor_shell under /usr/bin/time -v, one load at a time; prints
# CPU time (user + system), wall time and peak RSS of each load.
#   TBAND_TRACE_PROCESSOR=/path/to/trace_processor_shell \
#     tband-perfetto/bench-trace-processor.sh [SIZE...]   (as tband-sim --size; default 25M 100M 250M)
# Work files go to a temporary directory under $TMPDIR (the Chrome JSON of
# 250M is about 1.8 GB); trace_processor needs about 15 times the input in
# memory.
set -euo pipefail
if [ -z "${TBAND_TRACE_PROCESSOR:-}" ]; then
  echo "bench-trace-processor.sh: set TBAND_TRACE_PROCESSOR to Perfetto's trace_processor_shell (https://get.perfetto.dev/trace_processor)" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "bench-trace-processor.sh: needs GNU time as /usr/bin/time (apt-get install time)" >&2
  exit 2
fi
tp="$TBAND_TRACE_PROCESSOR"
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(25M 100M 250M)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --locked -p tband-perfetto -p tband-sim
bin="${CARGO_TARGET_DIR:-target}/release"
echo "trace_processor: $("$tp" --version 2>&1 | head -n 1)"
printf '%-6s %-12s %9s %9s %9s %9s %9s\n' input format "input MB" "file MB" "CPU s" "wall s" "peak MB"

# Runs a command whose output is not wanted; on failure shows its errors and stops.
quiet() {
  "$@" >/dev/null 2>"$work/err" || {
    cat "$work/err" >&2
    echo "bench-trace-processor.sh: this failed: $*" >&2
    exit 1
  }
}

# Loads FILE and prints CPU seconds, wall seconds and peak RSS in MB.
load() {
  quiet /usr/bin/time -v -o "$work/time.txt" "$tp" query "$1" 'select 1'
  awk -F': ' '
    /User time/ { cpu += $2 }
    /System time/ { cpu += $2 }
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
    /Maximum resident/ { rss = $2 / 1024 }
    END { printf "%9.2f %9.2f %9.0f", cpu, wall, rss }' "$work/time.txt"
}

for size in "${sizes[@]}"; do
  quiet "$bin/tband-sim" --size "$size" --cores 2 -o "$work/sim.bin"
  inputs=("$work/sim.c0.bin@0" "$work/sim.c1.bin@1")
  input_mb=$(stat -c %s "$work/sim.c0.bin" "$work/sim.c1.bin" | awk '{ s += $1 } END { printf "%.1f", s / 1e6 }')
  quiet "$bin/tband-perfetto" "${inputs[@]}" -o "$work/sim.pftrace"
  quiet "$bin/tband-perfetto" "${inputs[@]}" --format chrome-json -o "$work/sim.json"
  rm "$work"/sim.c*.bin
  for file in sim.pftrace sim.json; do
    format=$([ "$file" = sim.json ] && echo chrome-json || echo perfetto)
    file_mb=$(stat -c %s "$work/$file" | awk '{ printf "%.1f", $1 / 1e6 }')
    figures=$(load "$work/$file")
    printf '%-6s %-12s %9s %9s %s\n' "$size" "$format" "$input_mb" "$file_mb" "$figures"
    rm "$work/$file"
  done
done
