#!/usr/bin/env bash
# ch12/extras/multi_gpu/gpu_run.sh -- the multi-GPU extra on a machine with two
# GPUs (written for the two-H200 kind), run from the repository root, in two
# commands of well under 10 minutes each:
#
#   OUT=/some/folder bash ch12/extras/multi_gpu/gpu_run.sh build test
#   OUT=/some/folder bash ch12/extras/multi_gpu/gpu_run.sh build big bench plot
#
# The steps:
#   build  configure build-multi-gpu/ (Release, CMAKE_CUDA_ARCHITECTURES=90-real,
#          or CUDA_ARCH=...; nvcc required) and build only this extra's two
#          programs; a second time it only checks they are up to date;
#   test   ctest -L nccl: the schedule's CPU test, 1 and 2 GPUs, the benchmark's
#          smoke runs, compute-sanitizer (SKIP_SANITIZE=1 leaves it out), too few
#          GPUs, the command-line rules;
#   big    one sort of 2^35 keys (128 GiB), split over 2 GPUs;
#   bench  the benchmark: n = 2^26 .. 2^33, 1 GPU against 2 GPUs against CUB;
#   plot   its plot, with the NVLink bandwidth nvidia-smi reports (needs matplotlib;
#          without it: said, and not a failure).
#
# Time: the whole command stops before BUDGET seconds (default 540): each step
# runs under `timeout` with what is left (a step that cannot start with 30 s
# left is reported as not run). Files in $OUT (default build-multi-gpu-out/):
# gpu_run.log (what ran, how long, the summary lines; appended to by each
# command), machine.txt (nvidia-smi, NVLink, NCCL), build.log, ctest.log,
# big_sort.txt, bench.txt, plot.txt, multi_gpu_bench.csv, multi_gpu_bench.png.
# NCCL's NVLink multicast stays off: NCCL_NVLS_ENABLE=0.
# Exit status 0 when every step asked for passed; the last line of the log
# says "gpu_run: PASSED" or "gpu_run: FAILED".
set -uo pipefail
here=$PWD
cd "$(dirname "$0")/../../.."
for s in "$@"; do   # each argument is a step: an empty one, or "build test" in one, is refused
  case $s in build|test|big|bench|plot) ;;
    *) echo "gpu_run.sh: no step '$s' (build, test, big, bench, plot)" >&2; exit 2 ;;
  esac
done
steps=" ${*:-build test} "
want() { [[ "$steps" == *" $1 "* ]]; }
BUDGET=${BUDGET:-540}
[[ "$BUDGET" =~ ^[0-9]+$ ]] || { echo "gpu_run.sh: BUDGET wants whole seconds, not '$BUDGET'" >&2; exit 2; }
OUT=${OUT:-$PWD/build-multi-gpu-out}
[ -n "$OUT" ] || { echo "gpu_run.sh: OUT is empty: give a folder" >&2; exit 2; }
case $OUT in /*) ;; *) OUT=$here/$OUT ;; esac
mkdir -p "$OUT" || exit 1
# Its files may not be ones git tracks, nor a golden (common/write_policy.py).
python3 common/write_policy.py check "$OUT/gpu_run.log" "$OUT/machine.txt" "$OUT/build.log" "$OUT/ctest.log" \
  "$OUT/big_sort.txt" "$OUT/bench.txt" "$OUT/multi_gpu_bench.csv" "$OUT/multi_gpu_bench.png" "$OUT/plot.txt" ||
  { echo "gpu_run.sh: OUT=$OUT: see above" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
BUILD=build-multi-gpu
PROGRAM=$BUILD/bitonic_sort_multi_gpu
LOG="$OUT/gpu_run.log"
status=0
say() { echo "$*" | tee -a "$LOG"; }
left() { echo $((BUDGET - SECONDS)); }
# run NAME MAX_SECONDS OUTFILE COMMAND...: under timeout (MAX, or what the budget
# leaves), its output to OUTFILE; logs its exit status and time.
run() {
  local name=$1 max=$2 file=$3; shift 3
  local limit=$(( $(left) - 10 ))
  [ "$limit" -gt "$max" ] && limit=$max
  if [ "$limit" -lt 30 ]; then
    say "$(printf '%-9s NOT RUN: %d s of the %d s budget left' "$name" "$(left)" "$BUDGET")"
    return 124
  fi
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" > "$file" 2>&1
  local rc=$?
  local note=""
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && note="  (stopped by timeout after $limit s)"
  say "$(printf '%-9s exit %3d  %4d s%s' "$name" "$rc" $((SECONDS - t0)) "$note")"
  return $rc
}

say "== gpu_run.sh$steps on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), budget $BUDGET s"

# ---- the machine (once per $OUT)
if [ ! -s "$OUT/machine.txt" ]; then
  {
    nvidia-smi -L
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    echo; echo "== nvidia-smi topo -m"; nvidia-smi topo -m
    echo; echo "== nvidia-smi nvlink -s -i 0"; nvidia-smi nvlink -s -i 0
    echo; echo "== NCCL"; ls /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* /usr/local/cuda/include/nccl.h 2>&1
    python3 -c "import nvidia.nccl; print('pip wheel:', list(nvidia.nccl.__path__)[0])" 2>&1
  } > "$OUT/machine.txt" 2>&1
fi
# NVLink per direction, GPU 0: the sum of its links' speeds ("Link N: X GB/s").
LINK_GBPS=$(nvidia-smi nvlink -s -i 0 2>/dev/null | awk '/Link [0-9]+: *[0-9.]+ GB\/s/ {sum += $3} END {if (sum > 0) printf "%.1f", sum}')
say "NVLink of GPU 0, summed over its links: ${LINK_GBPS:-unknown} GB/s per direction (nvidia-smi nvlink -s)"

# ---- build
if want build; then
  if ! run build 400 "$OUT/build.log" bash -c 'cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DCH12_REQUIRE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$2" &&
      cmake --build "$1" -j "$(nproc)" --target bitonic_sort_multi_gpu multi_gpu_schedule_test' \
      build "$BUILD" "${CUDA_ARCH:-90-real}"; then
    tail -n 30 "$OUT/build.log" | tee -a "$LOG"
    say "gpu_run: FAILED (build)"
    exit 1
  fi
  grep -m1 "Multi-GPU extra:" "$OUT/build.log" | tee -a "$LOG"
elif [ ! -x "$PROGRAM" ]; then
  say "gpu_run: FAILED ($PROGRAM is not built: run the build step first)"
  exit 1
fi

# ---- the tests
if want test; then
  exclude=()
  [ "${SKIP_SANITIZE:-0}" = 1 ] && exclude=(-LE sanitize)
  run ctest 480 "$OUT/ctest.log" ctest --test-dir "$BUILD" -L nccl ${exclude[@]+"${exclude[@]}"} -j 4 \
    --output-on-failure || status=1
  grep -E '% tests passed|\(Failed\)|\(Timeout\)|Not Run|\*\*\*Skipped' "$OUT/ctest.log" | tee -a "$LOG"
fi

# ---- 2^35 keys (128 GiB) on two GPUs
if want big; then
  run big_sort 180 "$OUT/big_sort.txt" "$PROGRAM" --gpus 2 --n 2^35 || status=1
  grep -E "^(layout|time|check|verdict)|skipped" "$OUT/big_sort.txt" | tee -a "$LOG"
fi

# ---- the benchmark
if want bench; then
  run bench 360 "$OUT/bench.txt" "$PROGRAM" --bench --gpus 2 --sizes 26-33 --runs 3 \
    --csv "$OUT/multi_gpu_bench.csv" || status=1
  grep -E "^(device|CSV|every result)" "$OUT/bench.txt" | tee -a "$LOG"
fi

# ---- the plot
if want plot; then
  if [ -f "$OUT/multi_gpu_bench.csv" ]; then
    run plot 60 "$OUT/plot.txt" python3 ch12/extras/multi_gpu/plot_bench.py "$OUT/multi_gpu_bench.csv" \
      "$OUT/multi_gpu_bench.png" ${LINK_GBPS:+--link-gbps "$LINK_GBPS"}
    rc=$?
    cat "$OUT/plot.txt" >> "$LOG"   # (plot.txt stays in OUT beside the other logs: nothing is deleted)
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1  # 77: no matplotlib here, the CSV stands
  else
    say "plot      NOT RUN: no $OUT/multi_gpu_bench.csv"
    status=1
  fi
fi

say "gpu_run: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
