#!/bin/sh
# Instruction counts of `boardwalk-bench --frames N` under valgrind's callgrind, run twice:
# the two runs must agree within 1% (wall time on a shared machine does not; this does).
# Prints the total, the instructions inside drawn frames (measuredFrame, inclusive) and
# per drawn frame. Needs valgrind (apt-get install valgrind).
#   scripts/bench-callgrind.sh                 # 800x480 scenes, 3 frames each
#   FRAMES=5 BENCH_ARGS="--only scenes --size 1280x800 --scene menu" scripts/bench-callgrind.sh
set -eu
cd "$(dirname "$0")/.."
FRAMES=${FRAMES:-3}
BENCH_ARGS=${BENCH_ARGS:---only scenes,graphics --size 800x480 --busy 3}
OUT=${OUT:-out/callgrind}
BIN=.build/release/boardwalk-bench
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
[ -x "$BIN" ] || swift build -c release --product boardwalk-bench
mkdir -p "$OUT"
# Swift seeds its hash tables per process; the same seed every run keeps the work equal.
export SWIFT_DETERMINISTIC_HASHING=1
for run in 1 2; do
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$run.out" \
    "$BIN" --json --frames "$FRAMES" $BENCH_ARGS >"$OUT/bench.$run.json" 2>"$OUT/valgrind.$run.log" || {
    echo "run $run failed; see $OUT/valgrind.$run.log" >&2; exit 1; }
done
total() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }
inframes() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
    awk '/measuredFrame/ { gsub(",", "", $1); print $1; exit }'
}
frames() { awk -F'"frames":' '/"callgrind"/ { split($2, a, /[,}]/); print a[1] }' "$1"; }
t1=$(total "$OUT/callgrind.1.out"); t2=$(total "$OUT/callgrind.2.out")
f1=$(inframes "$OUT/callgrind.1.out"); f2=$(inframes "$OUT/callgrind.2.out")
n=$(frames "$OUT/bench.1.json")
awk -v t1="$t1" -v t2="$t2" -v f1="${f1:-0}" -v f2="${f2:-0}" -v n="${n:-0}" 'BEGIN {
  d = (t1 > t2 ? t1 - t2 : t2 - t1) / t1 * 100
  df = f1 > 0 ? (f1 > f2 ? f1 - f2 : f2 - f1) / f1 * 100 : 0
  printf "total instructions: %.0f and %.0f (differ by %.4f%%)\n", t1, t2, d
  printf "in drawn frames:    %.0f and %.0f (differ by %.4f%%)\n", f1, f2, df
  if (n > 0) printf "drawn frames: %.0f, instructions per frame: %.0f\n", n, f1 / n
  if (d > 1 || df > 1) { print "FAIL: runs differ by more than 1%"; exit 1 }
  print "OK: runs agree within 1%"
}'
