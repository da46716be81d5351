#!/usr/bin/env bash
# ch12/extras/sort/gpu_check.sh -- the sort library's checks on a GPU machine:
# the build, the benchmark's reference figures (on the device itself, then
# emulating a T4 and an RTX 4090), the test suite under every profile, and
# the compute-sanitizer runs. Logs and CSVs go to one folder.
#
#   ch12/extras/sort/gpu_check.sh [--out DIR] [STEP...]     (from anywhere)
#
# STEP: build, bench, tests, sanitize, sanitize-profiles (default: all five,
# in that order). DIR: default $OUT, else build-gpu-check/ in the repository
# (outside build/, which CI's script may delete and make again). Files:
#   build.log          configure and build (the sort targets and per_element)
#   bench.log          the three benchmark runs' tables, and two merges
#   check_h200.csv, check_t4_emulated.csv, check_rtx4090_emulated.csv
#                      their measurements (copy them to ch12/extras/sort/results/)
#   tests.log          ctest: every sort test but the sanitizers and 'long'
#                      (each profile's whole suite included), and per_element's
#   sanitize.log       ctest: the four sanitizers on the device's own paths
#                      (sort run, test, bench; bitonic_per_element_pass)
#   sanitize-profiles.log   the same under the profiles t4 and rtx4090
# Each step prints a summary line and fits one 10-minute command: "build bench",
# then "tests", then "sanitize", then "sanitize-profiles". A ctest step stops
# its tests after STOP_AFTER seconds (default 540: they then show as timed out).
# The exit status is 1 when a step failed.
set -u
here=$PWD
cd "$(dirname "$0")/../../.."
out=${OUT:-build-gpu-check}
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] && [ -n "$2" ] || { echo "gpu_check.sh: --out wants a folder" >&2; exit 2; }
           case "$2" in /*) out=$2 ;; *) out=$here/$2 ;; esac; shift 2 ;;
    build|bench|tests|sanitize|sanitize-profiles) steps+=("$1"); shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown step '$1' (build, bench, tests, sanitize, sanitize-profiles)" >&2; exit 2 ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || steps=(build bench tests sanitize sanitize-profiles)
case ${STOP_AFTER:-540} in  # whole seconds, 1 to 999999: nothing else is passed on to date
  ''|*[!0-9]*|0*|???????*) echo "gpu_check.sh: STOP_AFTER wants whole seconds (1 to 999999), not '${STOP_AFTER}'" >&2; exit 2 ;;
esac
mkdir -p "$out" || exit 1
# Its files may not be ones git tracks, nor a golden (common/write_policy.py).
python3 common/write_policy.py check "$out"/{build,bench,tests,sanitize,sanitize-profiles}.log \
  "$out"/check_{h200,t4_emulated,rtx4090_emulated}.csv || { echo "gpu_check.sh: --out $out: see above" >&2; exit 2; }
build=build
jobs=$(nproc 2>/dev/null || echo 8)
status=0
targets=(bitonic_sort_run bitonic_sort_test bitonic_sort_bench bitonic_request_test bitonic_window_test bitonic_per_element_pass)
sanitized="sanitize_[a-z]+_(bitonic_sort_(run|test|bench)|bitonic_per_element_pass)"
stop_at() { date -d "+${STOP_AFTER:-540} sec" +%H:%M:%S; }
summary() { grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run|\*\*\*Skipped" "$1"; }

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
        "${bench[@]}" --csv "$out/check_h200.csv" || rc=1
        "${bench[@]}" --profile t4 --csv "$out/check_t4_emulated.csv" || rc=1
        "${bench[@]}" --profile rtx4090 --csv "$out/check_rtx4090_emulated.csv" || rc=1
        # Merges as a multi-GPU sort uses them (one run each, first launch included).
        ./"$build"/bitonic_sort_run --n 2^24 --merge || rc=1
        ./"$build"/bitonic_sort_run --count 4 --len 2^22 --merge --pairs || rc=1
      } > "$out/bench.log" 2>&1
      grep -E "^bitonic sort benchmark|every result checked|verdict:" "$out/bench.log"
      # The fast design against the figures of the library's previous version
      # (H200, 2026-11-30, median of 7): "no loss" means within 3%.
      python3 - "$out" <<'EOF' || rc=1
import csv, os, sys
reference = {("single", 1 << 16, "keys"): 0.0198, ("single", 1 << 20, "keys"): 0.0870,
             ("single", 1 << 24, "keys"): 1.553, ("batched", 1024, "keys"): 0.113,
             ("batched", 1024, "pairs"): 0.305, ("batched", 65536, "keys"): 0.365,
             ("batched", 65536, "pairs"): 1.19}
lost = False
for name in ("check_h200", "check_t4_emulated", "check_rtx4090_emulated"):
    path = os.path.join(sys.argv[1], name + ".csv")
    if not os.path.exists(path):
        print("%s: no CSV" % name)
        lost = True
        continue
    rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#")) if r["method"] == "fast"]
    for r in rows:
        key = (r["section"], int(r["n"] if r["section"] == "single" else r["len"]), r["kind"])
        what = ("2^%d" % (int(r["n"]).bit_length() - 1)) if r["section"] == "single" else "len %s" % r["len"]
        ms = float(r["best_ms"])
        line = "%-22s fast %-7s %-10s %-5s %9.4f ms %6.2fx CUB" % (name, r["section"], what, r["kind"], ms,
                                                                  float(r["speed_vs_cub"]))
        if name == "check_h200" and key in reference:
            ref = reference[key]
            ok = ms <= ref * 1.03
            lost = lost or not ok
            line += "   reference %.4f ms  %+6.1f%%  %s" % (ref, 100.0 * (ms / ref - 1), "ok" if ok else "LOSS")
        print(line)
print("bench: %s" % ("a loss against the reference figures" if lost else "no loss against the reference figures"))
sys.exit(1 if lost else 0)
EOF
      ;;
    tests)
      { ctest --test-dir "$build" -L sort -LE "long|sanitize" -j 8 --output-on-failure --stop-time "$(stop_at)"
        ctest --test-dir "$build" -R "bitonic_per_element" -LE sanitize -j 8 --output-on-failure; } > "$out/tests.log" 2>&1
      rc=$?
      summary "$out/tests.log"
      ;;
    sanitize)
      ctest --test-dir "$build" -L sanitize -R "$sanitized" -E "_(t4|rtx4090)(_|$)" -j 8 --output-on-failure \
        --stop-time "$(stop_at)" > "$out/sanitize.log" 2>&1
      rc=$?
      summary "$out/sanitize.log"
      ;;
    sanitize-profiles)
      ctest --test-dir "$build" -L sanitize -R "${sanitized}_(t4|rtx4090)(_|$)" -j 8 --output-on-failure \
        --stop-time "$(stop_at)" > "$out/sanitize-profiles.log" 2>&1
      rc=$?
      summary "$out/sanitize-profiles.log"
      ;;
  esac
  echo "gpu_check: $step: $([ $rc -eq 0 ] && echo ok || echo FAILED) in $(( $(date +%s) - start )) s"
  [ $rc -eq 0 ] || status=1
done
exit $status
