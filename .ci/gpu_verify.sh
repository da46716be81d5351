#!/usr/bin/env bash
# Run on the GPU machine (the device tool), from the repository root:
#   bash .ci/gpu_verify.sh STEP...
# Logs are written to a scratch folder, then packed as $OUT/logs.tgz, with
# summary.txt and the benchmark's table, CSV and plot next to it (the device
# tool brings back at most 8 files).
# Steps:
#   build     configure + build with the default preset (all architectures)
#   build90   configure + build for sm_90 only, with Ninja (quicker)
#   test      ctest, everything but the 'long' label
#   long      ctest -L long
#   sanitize  compute-sanitizer memcheck/synccheck/racecheck on the GPU programs
#   bench     the benchmark (BENCH_SIZES, BENCH_RUNS) and its plot
#   workflow  cmake --workflow --preset default (the README's test command)
#   tree      the tree formulation's depth table: CPU reference and GPU (TREE_DEPTHS)
#   ncu       per-kernel times and throughputs of one sort (NCU_N, NCU_VARIANT)
#   outputs   stdout of every GPU program and trap, kept in the logs
set -uo pipefail
final=${OUT:-$PWD/gpu-logs}
out=$(mktemp -d)
mkdir -p "$final"
b=build
status=0
note() { echo "== $*" | tee -a "$out/summary.txt" "$final/summary.txt" >/dev/null; echo "== $*"; }

for step in "$@"; do
  case $step in
    info)
      { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2; cmake --version | head -1; date -u; } 2>&1 | tee -a "$out/summary.txt" ;;
    build)
      cmake --preset default >"$out/configure.log" 2>&1 && cmake --build --preset default -j 16 >"$out/build.log" 2>&1
      r=$?; note "build (all architectures): exit $r"; [ $r -eq 0 ] || { tail -40 "$out/build.log"; exit 1; } ;;
    build90)
      cmake --preset default -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 && cmake --build build -j 16 >"$out/build.log" 2>&1
      r=$?; note "build (sm_90): exit $r"; [ $r -eq 0 ] || { tail -40 "$out/build.log"; exit 1; } ;;
    test)
      ctest --test-dir $b -LE long -j 4 --output-on-failure --timeout 900 >"$out/ctest.log" 2>&1
      r=$?; note "ctest -LE long: exit $r"; grep -E "tests passed|tests failed|Skipped|Not Run|\*\*\*Failed|\(Failed\)|Timeout" "$out/ctest.log" | tee -a "$out/summary.txt"; [ $r -eq 0 ] || status=1 ;;
    long)
      ctest --test-dir $b -L long --output-on-failure >"$out/ctest_long.log" 2>&1
      r=$?; note "ctest -L long: exit $r"; grep -E "tests passed|tests failed|Skipped|cases passed" "$out/ctest_long.log" | tee -a "$out/summary.txt"; [ $r -eq 0 ] || status=1 ;;
    workflow)
      rm -rf build; cmake --workflow --preset default >"$out/workflow.log" 2>&1
      r=$?; note "cmake --workflow --preset default: exit $r"; grep -E "tests passed|tests failed|Skipped|Not Run|Failed|Timeout" "$out/workflow.log" | tee -a "$out/summary.txt"; [ $r -eq 0 ] || status=1 ;;
    sanitize)
      san() {  # san TOOL NAME ARGS...
        local tool=$1 name=$2; shift 2
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" >"$out/san_${tool}_${name}.log" 2>&1
        local r=$?
        note "compute-sanitizer --tool $tool $name: exit $r: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_${name}.log" | tail -1)"
        [ $r -eq 0 ] || [ $r -eq 1 -a "${name%trap*}" != "$name" ] || status=1
      }
      for p in 59_bitonic_split_kernel 61_bitonic_merge_multipass 63_bitonic_sort_iterative; do
        san memcheck $p $b/$p; san synccheck $p $b/$p
      done
      san memcheck 59trap $b/59_bitonic_split_kernel --trap
      san memcheck 61trap $b/61_bitonic_merge_multipass --trap
      san synccheck 61trap $b/61_bitonic_merge_multipass --trap
      san memcheck per_element $b/bitonic_per_element_pass --quick
      san memcheck tree_gpu $b/tree_bitonic_gpu --depth 8
      san memcheck tree_gpu_cutoff0 $b/tree_bitonic_gpu --depth 6 --cutoff 0
      for v in workgroup fast; do
        san memcheck sort_$v $b/bitonic_sort_run --n 100003 --variant $v
        san racecheck sort_$v $b/bitonic_sort_run --n 100003 --variant $v
        san synccheck sort_$v $b/bitonic_sort_run --n 100003 --variant $v
      done ;;
    bench)
      $b/bitonic_sort_bench --sizes "${BENCH_SIZES:-10-26}" --runs "${BENCH_RUNS:-5}" --csv "$final/bench.csv" 2>&1 | tee "$final/bench.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      python3 ch12/extras/plot_bench.py "$final/bench.csv" "$final/bench.png" ;;
    tree)
      for d in ${TREE_DEPTHS:-16 18 20 21}; do
        $b/tree_bitonic_cpu --depth $d 2>&1 | tee -a "$final/tree.txt"
        $b/tree_bitonic_gpu --depth $d 2>&1 | tee -a "$final/tree.txt"
      done ;;
    ncu)
      ncu --clock-control none --csv --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
        $b/bitonic_sort_run --n "${NCU_N:-2^24}" --variant "${NCU_VARIANT:-fast}" >"$out/ncu.csv" 2>"$out/ncu.err"
      note "ncu: exit $?"; cp "$out/ncu.csv" "$final/" ;;
    outputs)
      for p in 59_bitonic_split_kernel 61_bitonic_merge_multipass 63_bitonic_sort_iterative bitonic_per_element_pass; do
        $b/$p >"$out/out_$p.txt" 2>&1; note "$p: exit $?"
      done
      for p in 59_bitonic_split_kernel 61_bitonic_merge_multipass 63_bitonic_sort_iterative; do
        $b/$p --trap >"$out/out_$p.trap.txt" 2>&1; note "$p --trap: exit $?"
      done ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
note "gpu_verify: overall status $status"
tar czf "$final/logs.tgz" -C "$out" .
exit $status
