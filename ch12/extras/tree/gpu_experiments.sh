#!/usr/bin/env bash
# The tree evaluators' measurements on a GPU machine, in one go:
#   bash ch12/extras/tree/gpu_experiments.sh BIN_DIR [STEP...]
# BIN_DIR holds tree_bitonic_cpu, tree_bitonic_gpu and tree_seed_grow_work
# (built for that GPU). Everything goes to $OUT (or ./tree-logs): tree.txt
# (every run's output), and a table at the end of the output.
# Steps (default: check time):
#   check   each variant against the C++ reference at depths 1-14 (checksums, nodes)
#   time    depth 20 (REPEATS runs each, default 5) and 21 (one run) for every variant
#   deep    depths 22 and 23: the C++ reference, SEED/GROW/WORK, the default
#   table   depths 16, 18, 20, 21 for JavaScript (node), C++ and the evaluators
#           (REPEATS runs at depth 20 and below, one at 21)
#   ncu     ncu on the default evaluator at depth 20 (stall reasons, traffic)
# VARIANTS (one per line, "name|program|args") overrides the list below.
set -uo pipefail
bin=${1:?usage: gpu_experiments.sh BIN_DIR [STEP...]}
shift
steps=${*:-check time}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$PWD/tree-logs}
mkdir -p "$out"
log=$out/tree.txt
repeats=${REPEATS:-5}

variants=${VARIANTS:-"default (registers, cutoff 4, one block per SM, narrow waves)|tree_bitonic_gpu|
cutoff 4, two blocks per SM|tree_bitonic_gpu|--blocks-per-sm 2
cutoff 4, no narrow waves|tree_bitonic_gpu|--narrow 0
cutoff 3|tree_bitonic_gpu|--cutoff 3
cutoff 5|tree_bitonic_gpu|--cutoff 5
SEED/GROW/WORK, one block per SM|tree_seed_grow_work|
SEED/GROW/WORK, 128 blocks|tree_seed_grow_work|--blocks 128"}
# The programs the deep step runs at depths 22 and 23 (DEEP overrides; the
# C++ reference takes about a minute there).
deep=${DEEP:-"tree_bitonic_cpu
tree_seed_grow_work
tree_seed_grow_work --blocks 128
tree_bitonic_gpu"}

sort_ms() { sed -n 's/^time (ms): gen [0-9.]*, sort \([0-9.]*\),.*/\1/p'; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR) printf "%.2f (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]; else printf "n/a"}'; }
table=()

for step in $steps; do
  case $step in
    check)
      while IFS='|' read -r name prog args; do
        [ -n "$name" ] || continue
        # shellcheck disable=SC2086
        r=$(python3 "$here/compare_tree_runs.py" --reference "$bin/tree_bitonic_cpu" --depths 1-14 \
              ${args:+--variant=$(echo $args | tr ' ' ',')} -- "$bin/$prog" 2>&1)
        echo "$r" >>"$log"
        table+=("check  $(echo "$r" | tail -1)  $name")
      done <<<"$variants" ;;
    time)
      while IFS='|' read -r name prog args; do
        [ -n "$name" ] || continue
        t20=$(for i in $(seq "$repeats"); do "$bin/$prog" $args --depth 20 2>&1 | tee -a "$log" | sort_ms; done | median)
        t21=$("$bin/$prog" $args --depth 21 2>&1 | tee -a "$log" | sort_ms | median)
        table+=("time   depth 20: $t20 ms   depth 21: $t21 ms   $name")
      done <<<"$variants" ;;
    deep)
      for d in 22 23; do
        while read -r cmd; do
          [ -n "$cmd" ] || continue
          # shellcheck disable=SC2086
          r=$("$bin"/$cmd --depth $d 2>&1 | tee -a "$log")
          table+=("deep   depth $d: $(echo "$r" | grep -E '^checksum|^time' | tr '\n' ' ') $cmd (exit ${PIPESTATUS[0]})")
        done <<<"$deep"
      done ;;
    table)
      for d in 16 18 20 21; do
        reps=1; [ "$d" -le 20 ] && reps=$repeats
        for cmd in "node $here/bitonic.js" "$bin/tree_bitonic_cpu" "$bin/tree_seed_grow_work" \
                   "$bin/tree_seed_grow_work --blocks 128" "$bin/tree_bitonic_gpu"; do
          t=$(for i in $(seq $reps); do $cmd --depth $d 2>&1 | tee -a "$log" | sort_ms; done | median)
          table+=("table  depth $d: $t ms  ${cmd##*/}")
        done
      done ;;
    ncu)
      ncu --clock-control none --kernel-name regex:'evaluate|seed_grow_work' --csv --page raw \
          --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
          --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes.sum,gpu__time_duration.sum \
          "$bin/tree_bitonic_gpu" --depth 20 >"$out/ncu_tree.csv" 2>"$out/ncu_tree.err"
      table+=("ncu    exit $? ($(wc -l <"$out/ncu_tree.csv") lines in ncu_tree.csv)") ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
printf '%s\n' "${table[@]}" | tee "$out/tree_table.txt"
