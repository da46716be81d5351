#!/usr/bin/env bash
# ch12/extras/sort/gpu_check.sh -- the sort library's checks on a GPU machine:
# the build, the benchmark's reference figures (on the device itself, then
# emulating a T4 and an RTX 4090), the test suite under every profile, and
# the compute-sanitizer runs. Logs and CSVs go to one folder.
#
#   ch12/extras/sort/gpu_check.sh [--out DIR] [STEP...]     (from the repository root)
#
# STEP: build, bench, tests, sanitize (default: all four, in that order).
# DIR: default $OUT, else ./gpu_check_out. Files written (7 at most):
#   build.log                  configure and build (the sort targets and per_element)
#   bench.log                  the three benchmark runs' tables, and two merges
#   bench_h200.csv, bench_t4.csv, bench_rtx4090.csv   their measurements
#   tests.log                  ctest: every sort test that needs a GPU (each profile's
#                              whole suite included) and the library's other tests
#   sanitize.log               ctest: the four sanitizers on every path of the sort
#                              library and of bitonic_per_element_pass
# Each step also prints a summary line; the exit status is 1 when a step failed.
# Each step fits one 10-minute command: e.g. "build bench", then "tests", then "sanitize".
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-gpu_check_out}
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    build|bench|tests|sanitize) steps+=("$1"); shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown step '$1' (build, bench, tests, sanitize)" >&2; exit 2 ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || steps=(build bench tests sanitize)
mkdir -p "$out"
build=build
jobs=$(nproc 2>/dev/null || echo 8)
status=0
targets=(bitonic_sort_run bitonic_sort_test bitonic_sort_bench bitonic_request_test bitonic_per_element_pass)

for step in "${steps[@]}"; do
  start=$(date +%s)
  case "$step" in
    build)
      { cmake --preset default && cmake --build "$build" -j "$jobs" --target "${targets[@]}"; } > "$out/build.log" 2>&1
      rc=$?
      grep -iE "warning|error" "$out/build.log" | head -20
      ;;
    bench)
      # The reference figures: one array of 2^16, 2^20, 2^24 keys; batches of
      # 2^24 keys in arrays of 1024 and 65536, keys and pairs; median of 7.
      # On the device itself, then as planned for a T4 and an RTX 4090.
      bench=(./"$build"/bitonic_sort_bench --sizes 16,20,24 --batched --batch-totals 24 --batch-lens 1024,65536
             --runs 7 --only fast,cub_radix,cub_segmented_sort,cub_segmented_radix)
      rc=0
      {
        "${bench[@]}" --csv "$out/bench_h200.csv" || rc=1
        "${bench[@]}" --profile t4 --csv "$out/bench_t4.csv" || rc=1
        "${bench[@]}" --profile rtx4090 --csv "$out/bench_rtx4090.csv" || rc=1
        # Merges as a multi-GPU sort uses them (one run each, first launch included).
        ./"$build"/bitonic_sort_run --n 2^24 --merge || rc=1
        ./"$build"/bitonic_sort_run --count 4 --len 2^22 --merge --pairs || rc=1
      } > "$out/bench.log" 2>&1
      python3 - "$out" <<'EOF'
import csv, os, sys
for name in ("bench_h200", "bench_t4", "bench_rtx4090"):
    path = os.path.join(sys.argv[1], name + ".csv")
    if not os.path.exists(path):
        print("%s: no CSV" % name)
        continue
    rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#")) if r["method"] == "fast"]
    cells = ["%s %s %s: %.4f ms" % (r["section"], r["len"] if r["section"] == "batched" else "2^%d" % (int(r["n"]).bit_length() - 1),
                                    r["kind"], float(r["best_ms"])) for r in rows]
    print("%s (fast): %s" % (name, "; ".join(cells)))
EOF
      ;;
    tests)
      { ctest --test-dir "$build" -L sort -LE "long|sanitize" -j 8 --output-on-failure
        ctest --test-dir "$build" -R "bitonic_per_element" -LE sanitize -j 8 --output-on-failure; } > "$out/tests.log" 2>&1
      rc=$?
      grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run|\*\*\*Skipped" "$out/tests.log"
      ;;
    sanitize)
      ctest --test-dir "$build" -L sanitize -R "bitonic_sort|bitonic_per_element" -j 8 --output-on-failure \
        > "$out/sanitize.log" 2>&1
      rc=$?
      grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*Skipped" "$out/sanitize.log"
      ;;
  esac
  echo "gpu_check: $step: $([ $rc -eq 0 ] && echo ok || echo FAILED) in $(( $(date +%s) - start )) s"
  [ $rc -eq 0 ] || status=1
done
exit $status
