#!/usr/bin/env bash
# ch12/extras/sort/gpu_experiment.sh -- the window design's measurement on a
# GPU machine, round 2 (at most 90 s after the build): the window design's
# variants against the fast design and CUB, in ONE benchmark process, with
# the roofline; the window design's tests on the device; Nsight Compute on
# four kernels of one 2^24 sort; the plan of a GPU without clusters.
#
#   bash ch12/extras/sort/gpu_experiment.sh            (from the repository root)
#   SKIP_BUILD=1 bash ch12/extras/sort/gpu_experiment.sh   (build/ already has the targets)
#
# Steps (each logged to $OUT, default build-gpu-experiment/ in the repository,
# outside build/, which CI may delete; a relative OUT is taken from the
# repository root; 7 files; a step that would end past 90 s is skipped):
#   build.log    configure, then build the sort programs (-j$(nproc)); the
#                window kernels' registers and spills (cuobjdump, when there)
#   bench.log    bitonic_sort_bench, median of 7, every result checked:
#                one array of 2^20 .. 2^26 keys: fast, window (as routed: the
#                fast design below 2^20 keys, 2^22 on GPUs without clusters,
#                the windows from there), CUB's
#                radix sort, and four pinned variants that take EVERY size
#                (--window 15,14,14+tile,15+tile,13+tile: windows of 2^15
#                keys, one block an SM, = round 1; of 2^14, two blocks an
#                SM; of 2^13, three; with the fast design's cluster tiles
#                first, or not); then 2^24 keys in arrays of 1024, 4096,
#                65536, keys and pairs: fast, window, CUB's two segmented
#                sorts (exp2_h200.csv); last, when time is left, 2^20 and
#                2^24 keys and lengths 4096 and 65536 as planned for an
#                RTX 4090 (exp2_rtx4090_emulated.csv)
#   tests.log    bitonic_sort_test --design window on the device as routed,
#                and pinned to windows everywhere (--window auto) on the
#                device and as planned for an RTX 4090, side by side
#   ncu.txt      Nsight Compute (metrics) on the first four kernels of one
#                2^24-key sort as routed: the tile kernel, three window passes
#   summary.txt  the table printed last: each case, fast / window / the
#                variants / CUB, the change against the fast design and
#                against the fast design's figures before the window design
#                existed, and the window design's targets (`target` below)
# Exit status 1 when a step failed (ncu included) or any result was wrong;
# 2 on a bad command line: an argument, SKIP_BUILD other than 0 or 1, an OUT
# it cannot write or holding files git tracks where it writes
# (common/write_policy.py). Failures are counted here, in the shell, never
# read back from a file it may have failed to write; the only files it
# deletes are its own temporaries (mktemp, in OUT); two runs sharing OUT take
# turns (a lock in OUT).
set -u
bad() { echo "gpu_experiment.sh: $*" >&2; echo "usage: [OUT=DIR] [SKIP_BUILD=1] bash ch12/extras/sort/gpu_experiment.sh" >&2; exit 2; }
case ${1:-} in
  -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
  "") ;;
  *) bad "it takes no arguments, not '$1'" ;;
esac
[ $# -le 1 ] || bad "it takes no arguments"
case ${SKIP_BUILD:-0} in 0|1) ;; *) bad "SKIP_BUILD wants 0 or 1, not '${SKIP_BUILD}'" ;; esac
cd "$(dirname "$0")/../../.." || exit 1
out=${OUT-build-gpu-experiment}
[ -n "$out" ] || bad "OUT is empty: give a folder"
mkdir -p "$out" 2>/dev/null && [ -d "$out" ] || bad "cannot make the folder OUT=$out"
python3 common/write_policy.py check "$out"/{build.log,bench.log,tests.log,ncu.txt,summary.txt} \
  "$out"/{exp2_h200.csv,exp2_rtx4090_emulated.csv,.gpu_experiment.lock} || bad "OUT=$out: see above"
exec 9>>"$out/.gpu_experiment.lock" || bad "cannot write in OUT=$out"
if ! flock -n 9; then
  echo "gpu_experiment.sh: another gpu_experiment.sh is using $out: waiting for it (its timings would mix with ours)" >&2
  flock 9
fi
: >>"$out/tests.log" || bad "cannot write in OUT=$out"
temporaries=()
pids=()
# On the way out: the test runs still going (this run's own) stopped, and the
# temporary files removed (mktemp's: this run's own; nothing else is deleted).
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  [ ${#temporaries[@]} -eq 0 ] || rm -f "${temporaries[@]}"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 131' QUIT
trap 'exit 143' TERM
begin=$(date +%s)
elapsed() { echo $(( $(date +%s) - begin )); }
jobs=$(nproc 2>/dev/null || echo 8)
status=0
build=build

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "== build ($(elapsed) s)"
  {
    cmake --preset default &&
    cmake --build "$build" -j "$jobs" --target bitonic_sort_bench bitonic_sort_test bitonic_sort_run
  } > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "gpu_experiment: build FAILED"; exit 1; }
  lib=$(find "$build" -name "libch12_bitonic_sort.a" | head -1)
  if command -v cuobjdump > /dev/null && [ -n "$lib" ]; then  # registers, stack and local memory of the window kernels
    cuobjdump -res-usage "$lib" 2>/dev/null | grep -A1 "window_kernel" >> "$out/build.log"
    grep -A1 "window_kernel" "$out/build.log" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
  fi
  begin=$(date +%s)  # the budget counts from here
fi

echo "== bench ($(elapsed) s)"
timeout 60 ./"$build"/bitonic_sort_bench --sizes 20-26 --batched --batch-totals 24 --batch-lens 1024,4096,65536 \
  --runs 7 --only fast,window,cub_radix,cub_segmented_sort,cub_segmented_radix --window 15,14,14+tile,15+tile,13+tile \
  --csv "$out/exp2_h200.csv" > "$out/bench.log" 2>&1 || status=1
grep -E "^bitonic sort benchmark|every result checked|WRONG" "$out/bench.log"

echo "== tests ($(elapsed) s)"
# The three runs side by side, each into a temporary file of its own (mktemp:
# never a file of yours); their exit statuses are counted here, from wait.
runs=("--design window" "--design window --window auto" "--design window --window auto --profile rtx4090")
pids=()
logs=()
: > "$out/tests.log" || status=1
for i in 0 1 2; do
  log=$(mktemp "$out/.tests_$i.XXXXXX") || { echo "gpu_experiment: cannot make a temporary file in $out"; status=1; continue; }
  temporaries+=("$log")
  # shellcheck disable=SC2086
  timeout 25 ./"$build"/bitonic_sort_test ${runs[$i]} > "$log" 2>&1 &
  pids[$i]=$!
  logs[$i]=$log
done
for i in 0 1 2; do
  [ -n "${pids[$i]:-}" ] || continue
  wait "${pids[$i]}"
  rc=$?
  [ $rc -eq 0 ] || status=1
  { echo "---- bitonic_sort_test ${runs[$i]}"; cat "${logs[$i]}"; echo "exit $rc"; } >> "$out/tests.log" 2>&1
  echo "bitonic_sort_test ${runs[$i]}: exit $rc"
done
pids=()
cleanup
temporaries=()
grep -E "^---- |^window:|passed, [0-9]+ failed$|^exit [0-9]+|FAIL" "$out/tests.log" | head -40

# Where a window pass's time goes: Nsight Compute on the first kernels of one
# 2^24-key sort as routed (the fast design's cluster tiles, then window passes
# of 8 steps and 1 exchange, 14 steps and 3 exchanges): warp stalls per issued
# instruction, shared-memory bank conflicts, instructions.
if [ "$(elapsed)" -lt 60 ] && command -v ncu > /dev/null; then
  echo "== ncu ($(elapsed) s)"
  m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
  m=$m,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  for r in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected \
           imc_miss no_instruction branch_resolving dispatch_stall selected; do
    m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
  done
  timeout 25 ncu --clock-control none -k regex:"tile_kernel|window_kernel" -c 4 --metrics "$m" \
    ./"$build"/bitonic_sort_run --n 2^24 --design window > "$out/ncu.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "ncu: exit $rc, $(grep -cE "^  [a-z_:<>, 0-9A-Z]*(tile|window)_kernel" "$out/ncu.txt") kernel reports"
else
  echo "== ncu skipped ($(elapsed) s elapsed, or no ncu)"
fi

# The plan of a GPU without clusters (emulated on this one: what that plan
# costs here): the window design as tune() plans for an RTX 4090 (windows of
# 2^13 keys, two blocks an SM; no presort), against the first run's choice
# there (2^14) and the fast design.
if [ "$(elapsed)" -lt 68 ]; then
  echo "== bench, planned as for an RTX 4090 ($(elapsed) s)"
  timeout 15 ./"$build"/bitonic_sort_bench --sizes 20,24 --batched --batch-totals 24 --batch-lens 4096,65536 --runs 7 \
    --only fast,window,cub_radix,cub_segmented_sort,cub_segmented_radix --window 14 --profile rtx4090 \
    --csv "$out/exp2_rtx4090_emulated.csv" >> "$out/bench.log" 2>&1 || status=1
  grep -E "^bitonic sort benchmark|every result checked|WRONG" "$out/bench.log" | tail -2
else
  echo "== bench under rtx4090 skipped ($(elapsed) s elapsed)"
fi

echo "== summary ($(elapsed) s)"
python3 - "$out" > "$out/summary.txt" <<'EOF' || status=1
import csv, os, sys
out = sys.argv[1]
# The fast design's figures before the window design (H200, 2026-11-30/12-01, median of 7 or 5).
before = {("single", 1 << 20, "keys"): 0.0870, ("single", 1 << 22, "keys"): 0.302, ("single", 1 << 24, "keys"): 1.553,
          ("single", 1 << 26, "keys"): 7.51,
          ("batched", 1024, "keys"): 0.113, ("batched", 1024, "pairs"): 0.305, ("batched", 4096, "keys"): 0.148,
          ("batched", 4096, "pairs"): 0.413, ("batched", 65536, "keys"): 0.365, ("batched", 65536, "pairs"): 1.19}
# The targets set for the window design: (window vs CUB at least, or window ms at most).
target = {("single", 1 << 24, "keys"): ("ms", 0.9), ("single", 1 << 20, "keys"): ("x", 1.0),
          ("batched", 4096, "keys"): ("x", 3.5), ("batched", 65536, "pairs"): ("x", 1.0),
          ("batched", 65536, "keys"): ("x", 2.0), ("batched", 1024, "keys"): ("x", 10.0),
          ("batched", 1024, "pairs"): ("x", 5.0)}
bad = False
def ms(m, name):
    return float(m[name]["best_ms"]) if name in m else float("nan")
def roof(r):
    return "%2s %3.0f%%" % (r["trips"], 100 * float(r["efficiency"])) if r.get("efficiency") else "  -    -"
def table(name):
  global bad
  path = os.path.join(out, name + ".csv")
  if not os.path.exists(path):
    print("%s: no CSV" % name); bad = True; return
  rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
  cases = {}
  for r in rows:
    key = (r["section"], int(r["n"] if r["section"] == "single" else r["len"]), r["kind"])
    cases.setdefault(key, {})[r["method"]] = r
    bad = bad or r["verified"] != "yes"
  variants = sorted({r["method"] for r in rows if r["method"].startswith("window:")})
  print("%s (ms, median of 7; trips and efficiency = floor / time: the window design as routed)" % name)
  print("%-22s %8s %8s %6s %s %8s  %s" % ("case", "fast", "window", "w/f", "".join("%10s" % v[7:] for v in variants),
                                            "CUB", "trips eff  target / before"))
  worst = 0.0
  for key in sorted(cases, key=lambda k: (k[0] != "single", k[1], k[2])):
    m = cases[key]
    if "window" not in m or "fast" not in m: continue
    f, w = ms(m, "fast"), ms(m, "window")
    cubs = [float(v["best_ms"]) for k, v in m.items() if k.startswith("cub")]
    cub = min(cubs) if cubs else float("nan")
    what = ("2^%d" % (key[1].bit_length() - 1)) if key[0] == "single" else "len %d" % key[1]
    var = "".join("%10s" % (("%.4f" % ms(m, v)) if v in m else "-") for v in variants)
    worst = max(worst, w / f - 1)
    note = ""
    if name == "exp2_h200" and key in target:
        kind, value = target[key]
        ok = (w <= value) if kind == "ms" else (cub / w >= value)
        note += "%s %s%s (%.2fx CUB) " % ("met" if ok else "MISSED", "<=" if kind == "ms" else ">=", value, cub / w)
    if name == "exp2_h200" and key in before:
        note += "before %.4f: window %+.1f%%" % (before[key], 100 * (w / before[key] - 1))
    print("%-22s %8.4f %8.4f %+5.1f%% %s %8.4f  %s  %s" % ("%s %s %s" % (key[0], what, key[2]), f, w, 100 * (w / f - 1), var,
                                                         cub, roof(m["window"]), note))
  print("window (as routed) against fast, worst case: %+.1f%% (the rule: no case more than +3%%)" % (100 * worst))
  copy = [float(r["copy_gbps"]) for r in rows if r["copy_gbps"]]
  print("copy bandwidth: %.0f .. %.0f GB/s (read + write)" % (min(copy), max(copy)) if copy else "")
table("exp2_h200")
if os.path.exists(os.path.join(out, "exp2_rtx4090_emulated.csv")):
  table("exp2_rtx4090_emulated")
print("every result verified" if not bad else "SOME RESULT NOT VERIFIED")
sys.exit(1 if bad else 0)
EOF
cat "$out/summary.txt"
echo "gpu_experiment: $([ $status -eq 0 ] && echo ok || echo FAILED) in $(elapsed) s"
exit $status
