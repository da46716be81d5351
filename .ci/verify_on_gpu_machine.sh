#!/usr/bin/env bash
# The verification run on a machine with an NVIDIA GPU (for this project: the
# device tool's H200 machine), from the repository root:
#   bash .ci/verify_on_gpu_machine.sh STEP...
# Everything it writes goes to $OUT (or ./gpu-logs): summary.txt, and one
# log or result file per step (the device tool brings back at most 8 files).
# Steps:
#   setup     set up what that machine lacks, carried in .gl/ (an ignored
#             folder): the Vulkan loader, glslc and the Vulkan headers (it has
#             NVIDIA's driver but no loader), an ICD file that names
#             libEGL_nvidia.so.0 (the stock one names the GLX library, which
#             fails without a display), and node (xz-compressed)
#   info      GPU, driver, nvcc, cmake, date
#   workflow  cmake --workflow --preset default (the README's test command), timed
#   long      ctest -L '^long$'
#   sanitize  ctest -L '^sanitize$', on its own (it is also part of the workflow)
#   bench     the sort benchmark (BENCH_ARGS) and its plot
#   glsl      the GLSL sort timed through Vulkan (GLSL_BENCH)
#   tree      the tree table: JS, C++, SEED/GROW/WORK, the project's runtime
#             at TREE_DEPTHS, depth 20 repeated TREE_REPEATS times
#   ncu       the tree evaluators' stall and memory-traffic analysis (NCU_DEPTH,
#             NCU_PROGRAMS)
set -uo pipefail
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
b=build
status=0
note() { echo "== $*" | tee -a "$out/summary.txt"; }
grab() { grep -E "$1" "$2" | tee -a "$out/summary.txt"; }

for step in "$@"; do
  case $step in
    setup)
      for f in .gl/libvulkan1_*.deb .gl/libegl1_*.deb .gl/libglvnd0_*.deb .gl/libopengl0_*.deb .gl/libgl1_*.deb \
               .gl/libglx0_*.deb .gl/libgles2_*.deb; do dpkg -x "$f" /; done
      ldconfig
      mkdir -p /opt/ch12vk
      for f in .gl/glslc_*.deb .gl/libshaderc1_*.deb .gl/libvulkan-dev_*.deb; do dpkg -x "$f" /opt/ch12vk; done
      export PATH=/opt/ch12vk/usr/bin:$PATH
      export LD_LIBRARY_PATH=/opt/ch12vk/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      export VULKAN_SDK=/opt/ch12vk/usr
      printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_nvidia.so.0", "api_version": "1.3.0"}}\n' \
        >/opt/ch12vk/nvidia_icd.json
      export VK_ICD_FILENAMES=/opt/ch12vk/nvidia_icd.json VK_DRIVER_FILES=/opt/ch12vk/nvidia_icd.json
      if ! command -v node >/dev/null 2>&1 && [ -f .gl/node.xz ]; then
        python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open('.gl/node.xz'), open('/usr/local/bin/node', 'wb'))"
        chmod +x /usr/local/bin/node
      fi
      note "setup: libvulkan.so.1 found $(ldconfig -p | grep -c libvulkan.so.1) times, glslc $(command -v glslc), node $(node --version 2>&1)" ;;
    info)
      { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
        nvcc --version | tail -1; cmake --version | head -1; command -v compute-sanitizer; date -u; } 2>&1 \
        | tee -a "$out/summary.txt" ;;
    workflow)
      rm -rf $b
      start=$(date +%s)
      cmake --workflow --preset default >"$out/workflow.log" 2>&1
      r=$?
      note "cmake --workflow --preset default: exit $r in $(( $(date +%s) - start )) s"
      grab "tests passed|tests failed|Not Run|\*\*\*Failed|\(Failed\)|Timeout|\(Skipped\)" "$out/workflow.log"
      [ $r -eq 0 ] || status=1 ;;
    long)
      ctest --test-dir $b -L '^long$' -j 4 --output-on-failure >"$out/long.log" 2>&1
      r=$?; note "ctest -L long: exit $r"; grab "tests passed|tests failed|Skipped|passed," "$out/long.log"
      [ $r -eq 0 ] || status=1 ;;
    sanitize)
      ctest --test-dir $b -L '^sanitize$' -j 8 --output-on-failure >"$out/sanitize.log" 2>&1
      r=$?; note "ctest -L sanitize: exit $r"; grab "tests passed|tests failed|Skipped" "$out/sanitize.log"
      [ $r -eq 0 ] || status=1 ;;
    bench)
      $b/bitonic_sort_bench ${BENCH_ARGS:---sizes 10-26 --batched --runs 5} --csv "$out/bench.csv" >"$out/bench.txt" 2>&1
      r=$?; note "bench: exit $r"; tail -3 "$out/bench.txt" | tee -a "$out/summary.txt"
      [ $r -eq 0 ] || status=1
      python3 ch12/extras/sort/plot_bench.py "$out/bench.csv" "$out/bench.png" >>"$out/summary.txt" 2>&1 ;;
    glsl)
      $b/glsl_bitonic_sort --bench ${GLSL_BENCH:-16,20,22} --runs 7 >"$out/glsl.txt" 2>&1
      r=$?; note "glsl bench: exit $r"; cat "$out/glsl.txt" | tee -a "$out/summary.txt"
      [ $r -eq 0 ] || status=1 ;;
    tree)
      for d in ${TREE_DEPTHS:-16 18 20 21}; do
        node ch12/extras/tree/bitonic.js $d
        $b/tree_bitonic_cpu --depth $d
        reps=1; [ "$d" = 20 ] && reps=${TREE_REPEATS:-5}
        for r in $(seq $reps); do $b/tree_seed_grow_work $d; $b/tree_bitonic_gpu $d; done
      done >"$out/tree.txt" 2>&1
      note "tree: exit $?"; grep -E "^tree|checksum|time" "$out/tree.txt" | tail -12 >>"$out/summary.txt" ;;
    ncu)
      d=${NCU_DEPTH:-20}
      for p in ${NCU_PROGRAMS:-tree_seed_grow_work tree_bitonic_gpu}; do
        ncu --clock-control none --kernel-name regex:'seed_grow_work|evaluate' --csv --page raw \
            --section WarpStateStats --section LaunchStats --section Occupancy \
            --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes.sum,gpu__time_duration.sum \
            $b/$p $d >>"$out/ncu.csv" 2>>"$out/ncu.err"
        note "ncu $p depth $d: exit $?"
      done ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
note "verify_on_gpu_machine: overall status $status"
exit $status
