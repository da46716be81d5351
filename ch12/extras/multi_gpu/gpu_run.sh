#!/usr/bin/env bash
# ch12/extras/multi_gpu/gpu_run.sh -- everything the multi-GPU extra needs on a
# machine with two GPUs (written for the two-H200 kind), run from the
# repository root:
#
#   OUT=/some/folder bash ch12/extras/multi_gpu/gpu_run.sh
#
#   1. configure (CMAKE_CUDA_ARCHITECTURES=90-real; CUDA_ARCH=... to change it)
#      and build only this extra's two programs, in build-multi-gpu/;
#   2. its tests: ctest -L nccl (1 and 2 GPUs, compute-sanitizer, bad command
#      lines, the schedule's CPU test);
#   3. one sort of 2^35 keys (128 GiB) on 2 GPUs, which no single H200 holds;
#   4. the benchmark: n = 2^26 .. 2^33, 1 GPU against 2 GPUs against CUB;
#   5. the plot, with the NVLink bandwidth nvidia-smi reports.
#
# Or some of the steps: gpu_run.sh build test   (build, test, big, bench, plot;
# default all; later steps reuse build-multi-gpu/). SKIP_SANITIZE=1 leaves the
# compute-sanitizer tests out of `test`.
#
# Files in $OUT (8 at most): gpu_run.log (what ran, how long, the verdict), build.log,
# ctest.log, machine.txt (nvidia-smi, NVLink, NCCL), big_sort.txt, bench.txt,
# multi_gpu_bench.csv and multi_gpu_bench.png.
# NCCL's NVLink multicast stays off: NCCL_NVLS_ENABLE=0.
# A hung run is stopped (timeout: 240 s for the 2^35 sort, 480 s for the
# benchmark; ctest's own per-test limits for the tests). Exit status 0 when
# every step passed.
set -uo pipefail
cd "$(dirname "$0")/../../.."
steps=" ${*:-build test big bench plot} "
want() { [[ "$steps" == *" $1 "* ]]; }
for s in $steps; do
  case $s in build|test|big|bench|plot) ;; *) echo "gpu_run.sh: no step '$s' (build, test, big, bench, plot)" >&2; exit 2 ;; esac
done
OUT=${OUT:-$PWD/build-multi-gpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
BUILD=build-multi-gpu
LOG="$OUT/gpu_run.log"
: > "$LOG"
status=0
say() { echo "$*" | tee -a "$LOG"; }
step() {  # step NAME COMMAND...: runs it, logs its time and exit status
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  say "$(printf '%-10s exit %3d  %4d s' "$name" "$rc" $((SECONDS - t0)))"
  return $rc
}

say "gpu_run.sh on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# ---- the machine
{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  echo; echo "== nvidia-smi topo -m"; nvidia-smi topo -m
  echo; echo "== nvidia-smi nvlink -s (GPU 0)"; nvidia-smi nvlink -s -i 0
  echo; echo "== NCCL"; ls /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1
  python3 -c "import nvidia.nccl, os; print('pip wheel:', list(nvidia.nccl.__path__)[0])" 2>&1
} > "$OUT/machine.txt" 2>&1
# NVLink per direction, GPU 0: the sum of its links' speeds ("Link N: X GB/s").
LINK_GBPS=$(nvidia-smi nvlink -s -i 0 2>/dev/null | awk '/Link [0-9]+: *[0-9.]+ GB\/s/ {sum += $3} END {if (sum > 0) printf "%.1f", sum}')
say "NVLink of GPU 0, summed over its links: ${LINK_GBPS:-unknown} GB/s per direction (nvidia-smi nvlink -s)"

# ---- 1. build
build() {
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90-real}" &&
    cmake --build "$BUILD" -j "$(nproc)" --target bitonic_sort_multi_gpu multi_gpu_schedule_test
}
if want build; then
  if ! step build build > "$OUT/build.log" 2>&1; then
    tail -n 40 "$OUT/build.log" | tee -a "$LOG"
    say "gpu_run: FAILED (build)"
    exit 1
  fi
  grep -m1 "Multi-GPU extra:" "$OUT/build.log" | tee -a "$LOG"
elif [ ! -x "$BUILD/bitonic_sort_multi_gpu" ]; then
  say "gpu_run: FAILED ($BUILD/bitonic_sort_multi_gpu is not built: run the build step first)"
  exit 1
fi

# ---- 2. the tests
if want test; then
  exclude=()
  [ "${SKIP_SANITIZE:-0}" = 1 ] && exclude=(-LE sanitize)
  step ctest ctest --test-dir "$BUILD" -L nccl ${exclude[@]+"${exclude[@]}"} -j 4 --output-on-failure > "$OUT/ctest.log" 2>&1 || status=1
  sed -n '/% tests passed/,$p' "$OUT/ctest.log" | grep -vE 'sec\*proc|^Label|^$|Total Test time' | tee -a "$LOG"
fi

# ---- 3. 2^35 keys (128 GiB) on two GPUs
if want big; then
  step big_sort timeout 240 "$BUILD/bitonic_sort_multi_gpu" --gpus 2 --n 2^35 > "$OUT/big_sort.txt" 2>&1 || status=1
  grep -E "^(layout|time|check|verdict)|skipped" "$OUT/big_sort.txt" | tee -a "$LOG"
fi

# ---- 4. the benchmark
if want bench; then
  step bench timeout 480 "$BUILD/bitonic_sort_multi_gpu" --bench --gpus 2 --sizes 26-33 --runs 3 \
    --csv "$OUT/multi_gpu_bench.csv" > "$OUT/bench.txt" 2>&1 || status=1
  grep -E "^(CSV|every result)" "$OUT/bench.txt" | tee -a "$LOG"
fi

# ---- 5. the plot
if want plot && [ -f "$OUT/multi_gpu_bench.csv" ]; then
  step plot python3 ch12/extras/multi_gpu/plot_bench.py "$OUT/multi_gpu_bench.csv" "$OUT/multi_gpu_bench.png" \
    ${LINK_GBPS:+--link-gbps "$LINK_GBPS"} >> "$LOG" 2>&1 || status=1
fi

say "gpu_run: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
