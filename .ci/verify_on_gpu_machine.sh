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
#             fails without a display), and node (xz-compressed). To make
#             .gl/ on a Debian 12 machine: cd .gl && apt-get download libvulkan1
#             libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 glslc
#             libshaderc1 libvulkan-dev && xz -c "$(command -v node)" > node.xz
#   info      GPU, driver, nvcc, cmake, date
#   workflow  cmake --workflow --preset default (the README's test command), timed;
#             JOBS=N runs its steps with N jobs
#   config    ctest -L '^config$' alone (the workflow runs it too)
#   long      ctest -L '^long$'
#   sanitize  ctest -L '^sanitize$' (the workflow leaves it out; JOBS as above, default 8)
#   bench     the sort benchmark (BENCH_ARGS) and its plot
#   glsl      the GLSL sort timed through Vulkan (GLSL_BENCH)
#   tree      the tree README's table: ch12/extras/tree/gpu_experiments.sh,
#             steps TREE_STEPS (default "table deep")
#   ncu       ncu on the default tree evaluator at depth 20 (the same script)
# It works in the repository it belongs to, wherever it is started from. A
# step that fails makes the overall status 1 (setup included: a missing .gl/
# file is a failure, not a dpkg message).
set -uo pipefail
for step in "$@"; do
  case $step in
    setup|info|workflow|config|long|sanitize|bench|glsl|tree|ncu) ;;
    *) echo "verify_on_gpu_machine.sh: unknown step '$step' (setup info workflow config long sanitize bench glsl tree ncu)" >&2
       exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: verify_on_gpu_machine.sh STEP... (see the comment at its top)" >&2; exit 2; }
here=$PWD
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-$PWD/gpu-logs}
case $out in /*) ;; *) out=$here/$out ;; esac
mkdir -p "$out" || exit 2
# Its files may not be ones git tracks, nor a golden (common/write_policy.py).
python3 common/write_policy.py check "$out"/{summary.txt,workflow.log,config.log,long.log,sanitize.log} \
  "$out"/{bench.csv,bench.txt,bench.png,glsl.txt,tree_steps.txt,tree_ncu.txt,tree.txt,tree_table.txt} ||
  { echo "verify_on_gpu_machine.sh: OUT=$out: see above" >&2; exit 2; }
b=build
status=0
note() { echo "== $*" | tee -a "$out/summary.txt"; }
grab() { grep -E "$1" "$2" | tee -a "$out/summary.txt"; }
# extract DEST PATTERN...: dpkg -x of the one .gl/ file each pattern names; 1 if one is missing or fails.
extract() {
  local dest=$1 pattern f rc=0
  shift
  for pattern in "$@"; do
    set -- $pattern
    if [ $# -ne 1 ] || [ ! -f "$1" ]; then
      echo "setup: no $pattern (carry .gl/ with the .deb files: see the comment at the top)" >&2
      rc=1
      continue
    fi
    dpkg -x "$1" "$dest" || { echo "setup: dpkg -x $1 $dest failed" >&2; rc=1; }
  done
  return $rc
}

for step in "$@"; do
  case $step in
    setup)
      r=0
      for f in .gl/libvulkan1_*.deb .gl/libegl1_*.deb .gl/libglvnd0_*.deb .gl/libopengl0_*.deb .gl/libgl1_*.deb \
               .gl/libglx0_*.deb .gl/libgles2_*.deb .gl/glslc_*.deb .gl/libshaderc1_*.deb .gl/libvulkan-dev_*.deb; do
        [ -f "$f" ] || { echo "setup: no $f (carry .gl/ with the .deb files: see the comment at the top)" >&2; r=1; }
      done
      if [ $r -ne 0 ]; then
        note "setup: FAILED: .gl/ lacks files (nothing was installed)"
        status=1
        continue
      fi
      extract / ".gl/libvulkan1_*.deb" ".gl/libegl1_*.deb" ".gl/libglvnd0_*.deb" ".gl/libopengl0_*.deb" \
              ".gl/libgl1_*.deb" ".gl/libglx0_*.deb" ".gl/libgles2_*.deb" || r=1
      ldconfig || r=1
      mkdir -p /opt/ch12vk || r=1
      extract /opt/ch12vk ".gl/glslc_*.deb" ".gl/libshaderc1_*.deb" ".gl/libvulkan-dev_*.deb" || r=1
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
      command -v glslc >/dev/null 2>&1 || r=1
      note "setup: $([ $r -eq 0 ] && echo ok || echo FAILED): libvulkan.so.1 found $(ldconfig -p | grep -c libvulkan.so.1) times, glslc $(command -v glslc), node $(node --version 2>&1)"
      [ $r -eq 0 ] || status=1 ;;
    info)
      { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
        nvcc --version | tail -1; cmake --version | head -1; command -v compute-sanitizer; date -u; } 2>&1 \
        | tee -a "$out/summary.txt" ;;
    workflow)
      # It starts from an empty build/: one that CI's scripts made (.ci/run or
      # this one: common/delete_policy.py's marker .ci_build in it) is deleted
      # and made again; any other build/ is refused (the step fails, nothing is
      # deleted: move it away). JOBS=N: the same three steps as the workflow
      # preset, with N jobs for the build and the tests instead of the presets' 8.
      if ! python3 common/delete_policy.py remove-scratch --tool ci-build --marker .ci_build "$b" ||
         ! python3 common/delete_policy.py make-scratch --tool ci-build --marker .ci_build "$b"; then
        note "the default workflow: NOT RUN (see the line above)"
        status=1
        continue
      fi
      start=$(date +%s)
      if [ -n "${JOBS:-}" ]; then
        { cmake --preset default && cmake --build --preset default -j "$JOBS" && ctest --preset default -j "$JOBS"; } \
          >"$out/workflow.log" 2>&1
      else
        cmake --workflow --preset default >"$out/workflow.log" 2>&1
      fi
      r=$?
      note "the default workflow${JOBS:+ (-j $JOBS)}: exit $r in $(( $(date +%s) - start )) s"
      grab "tests passed|tests failed|Not Run|\*\*\*Failed|\(Failed\)|Timeout|\(Skipped\)" "$out/workflow.log"
      [ $r -eq 0 ] || status=1 ;;
    config)
      ctest --test-dir $b -L '^config$' -j 3 --output-on-failure >"$out/config.log" 2>&1
      r=$?; note "ctest -L config: exit $r"; grab "tests passed|tests failed|Skipped" "$out/config.log"
      [ $r -eq 0 ] || status=1 ;;
    long)
      ctest --test-dir $b -L '^long$' -j 4 --output-on-failure >"$out/long.log" 2>&1
      r=$?; note "ctest -L long: exit $r"; grab "tests passed|tests failed|Skipped|passed," "$out/long.log"
      [ $r -eq 0 ] || status=1 ;;
    sanitize)
      ctest --test-dir $b -L '^sanitize$' -j "${JOBS:-8}" --output-on-failure >"$out/sanitize.log" 2>&1
      r=$?; note "ctest -L sanitize: exit $r"; grab "tests passed|tests failed|Skipped" "$out/sanitize.log"
      [ $r -eq 0 ] || status=1 ;;
    bench)
      $b/bitonic_sort_bench ${BENCH_ARGS:---sizes 10-26 --batched --runs 5} --csv "$out/bench.csv" >"$out/bench.txt" 2>&1
      r=$?; note "bench: exit $r"; tail -3 "$out/bench.txt" | tee -a "$out/summary.txt"
      [ $r -eq 0 ] || status=1
      python3 ch12/extras/sort/plot_bench.py "$out/bench.csv" "$out/bench.png" >>"$out/summary.txt" 2>&1
      r=$?; [ $r -eq 0 ] || [ $r -eq 77 ] || status=1 ;;  # 77: no matplotlib there, the CSV stands
    glsl)
      $b/glsl_bitonic_sort --bench ${GLSL_BENCH:-16,20,22} --runs 7 >"$out/glsl.txt" 2>&1
      r=$?; note "glsl bench: exit $r"; cat "$out/glsl.txt" | tee -a "$out/summary.txt"
      [ $r -eq 0 ] || status=1 ;;
    tree)
      # The tree README's table (ch12/extras/tree/gpu_experiments.sh: TREE_STEPS,
      # default "table deep"; its files go to $out too).
      # shellcheck disable=SC2086
      OUT="$out" bash ch12/extras/tree/gpu_experiments.sh $b ${TREE_STEPS:-table deep} >"$out/tree_steps.txt" 2>&1
      r=$?; note "tree: exit $r"; cat "$out/tree_table.txt" >>"$out/summary.txt"
      [ $r -eq 0 ] || status=1 ;;
    ncu)
      OUT="$out" bash ch12/extras/tree/gpu_experiments.sh $b ncu >"$out/tree_ncu.txt" 2>&1
      r=$?; note "ncu (the default tree evaluator, depth 20): exit $r"
      [ $r -eq 0 ] || status=1 ;;
  esac
done
note "verify_on_gpu_machine: overall status $status"
exit $status
