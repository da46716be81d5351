# What this machine can build: CUDA (and for which GPUs), NCCL, GLSL/Vulkan,
# node. Sets CH12_HAVE_CUDA, CH12_HAVE_NCCL (with CH12_NCCL_INCLUDE_DIR and
# CH12_NCCL_LIBRARY), CH12_HAVE_VULKAN, CH12_NODE and, for whatever is
# missing, CH12_NO_CUDA_REASON / CH12_NO_VULKAN_REASON: what is missing and
# how to get it. Every result is checked again at each configure, so
# installing a tool and re-running cmake is enough.

# ---- CUDA -----------------------------------------------------------------------
option(CH12_CUDA "Build the CUDA programs when a CUDA compiler is found" ON)
set(CH12_NVCC_HOMES "/usr/local/cuda/bin;/usr/local/cuda-*/bin;/opt/cuda/bin;/usr/lib/cuda/bin" CACHE STRING
    "Where nvcc is looked for after CUDA_HOME, CUDA_PATH and PATH (newest first where a glob matches several)")
# A "not found" from an earlier configure must not stick: look again.
if(DEFINED CACHE{CMAKE_CUDA_COMPILER} AND NOT CMAKE_CUDA_COMPILER)
  unset(CMAKE_CUDA_COMPILER CACHE)
endif()
if(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "" AND NOT EXISTS "$ENV{CUDACXX}")
  message(WARNING "CUDACXX names '$ENV{CUDACXX}', which does not exist; it is ignored and nvcc "
                  "is looked for on PATH and in its usual homes instead.")
  unset(ENV{CUDACXX})
endif()
# A CUDACXX that exists must be nvcc: say what it names, and why it is not.
set(_ch12_bad_cudacxx "")
if(CH12_CUDA AND DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
  execute_process(COMMAND "$ENV{CUDACXX}" --version OUTPUT_VARIABLE _ch12_out ERROR_VARIABLE _ch12_err
                  RESULT_VARIABLE _ch12_rc TIMEOUT 60)
  if(NOT _ch12_rc EQUAL 0 OR NOT _ch12_out MATCHES "Cuda compilation tools|NVIDIA \\(R\\) Cuda compiler")
    string(STRIP "${_ch12_out}${_ch12_err}" _ch12_said)
    string(REGEX REPLACE "\n.*" "" _ch12_said "${_ch12_said}")
    if(NOT _ch12_rc EQUAL 0 AND _ch12_said STREQUAL "")
      set(_ch12_said "exited with status ${_ch12_rc} and printed nothing")
    elseif(NOT _ch12_rc EQUAL 0)
      set(_ch12_said "exited with status ${_ch12_rc}, printing '${_ch12_said}'")
    else()
      set(_ch12_said "printed '${_ch12_said}', not nvcc's 'Cuda compilation tools'")
    endif()
    set(_ch12_bad_cudacxx "CUDACXX names '$ENV{CUDACXX}', which is not nvcc: '$ENV{CUDACXX} --version' ${_ch12_said}. Set CUDACXX to nvcc (e.g. /usr/local/cuda/bin/nvcc), or unset it so that nvcc is found on PATH or in its usual homes, then re-run cmake")
  endif()
endif()
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  # nvcc in CUDA_HOME, then CUDA_PATH (find_program's HINTS), then on PATH, then
  # where CUDA toolkits usually live (CH12_NVCC_HOMES).
  set(_ch12_homes)
  foreach(_ch12_home IN LISTS CH12_NVCC_HOMES)
    file(GLOB _ch12_found LIST_DIRECTORIES true "${_ch12_home}")
    list(SORT _ch12_found COMPARE NATURAL ORDER DESCENDING)  # cuda-12.10 before cuda-12.9 before cuda-9.2
    list(APPEND _ch12_homes ${_ch12_found})
  endforeach()
  # That is where nvcc is looked for: not in CMake's own system folders, so
  # that "not on PATH nor in its homes" means not found, as the reason says.
  find_program(_ch12_nvcc nvcc
               HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
               PATHS ${_ch12_homes}
               NO_CACHE NO_CMAKE_SYSTEM_PATH)
  if(_ch12_nvcc)
    set(CMAKE_CUDA_COMPILER "${_ch12_nvcc}" CACHE FILEPATH "The CUDA compiler")
  endif()
endif()
include(CheckLanguage)
if(CH12_CUDA AND _ch12_bad_cudacxx STREQUAL "" AND (CMAKE_CUDA_COMPILER OR DEFINED ENV{CUDACXX}))
  check_language(CUDA)
endif()

set(CH12_HAVE_CUDA OFF)
set(CH12_NO_CUDA_REASON "")
if(NOT CH12_CUDA)
  set(CH12_NO_CUDA_REASON "CUDA is turned off in this build (CH12_CUDA=OFF): re-run cmake with -DCH12_CUDA=ON")
  message(STATUS "CUDA turned off (CH12_CUDA=OFF): the GPU programs are left out and their tests will report Skipped.")
elseif(CMAKE_CUDA_COMPILER)
  # Which GPUs to build for, unless CMAKE_CUDA_ARCHITECTURES is given:
  # - a machine with an NVIDIA GPU: that GPU's own architecture (like CMake's
  #   "native", read from nvidia-smi);
  # - a machine without one: PTX only, for compute_75 -- and compute_90 for the
  #   targets with Hopper-only code paths (ch12_cuda_hopper_paths()) -- the
  #   fewest virtual architectures that still compile every code path.
  # The five-architecture build of earlier versions is the "all-gpus" preset.
  set(CH12_ARCH_MODE "given")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CH12_ARCH_MODE "portable")
    find_program(_ch12_nvidia_smi nvidia-smi NO_CACHE)
    if(_ch12_nvidia_smi)
      execute_process(COMMAND ${_ch12_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE _ch12_caps RESULT_VARIABLE _ch12_smi_rc ERROR_QUIET TIMEOUT 20)
      if(_ch12_smi_rc EQUAL 0 AND _ch12_caps MATCHES "([0-9]+)\\.([0-9]+)")
        set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}-real")
        set(CH12_ARCH_MODE "native")
      endif()
    endif()
    if(CH12_ARCH_MODE STREQUAL "portable")
      set(CMAKE_CUDA_ARCHITECTURES "75-virtual")
    endif()
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CH12_HAVE_CUDA ON)
  message(STATUS "CUDA programs: ${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES} (${CH12_ARCH_MODE})")
elseif(NOT _ch12_bad_cudacxx STREQUAL "")
  set(CH12_NO_CUDA_REASON "CUDA is not configured in this build: ${_ch12_bad_cudacxx}")
  if(CH12_REQUIRE_CUDA)
    message(FATAL_ERROR "CH12_REQUIRE_CUDA is on but ${CH12_NO_CUDA_REASON}")
  endif()
  message(WARNING "${CH12_NO_CUDA_REASON}. The GPU programs are left out and their tests will report Skipped.")
elseif(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
  set(CH12_NO_CUDA_REASON "CUDA is not configured in this build: CUDACXX names '$ENV{CUDACXX}', which answers like nvcc, but CMake could not build a CUDA program with it (its messages are in CMakeFiles/CMakeError.log of the build folder): fix that toolkit, or name another nvcc in CUDACXX, then re-run cmake")
  if(CH12_REQUIRE_CUDA)
    message(FATAL_ERROR "CH12_REQUIRE_CUDA is on but ${CH12_NO_CUDA_REASON}")
  endif()
  message(WARNING "${CH12_NO_CUDA_REASON}. The GPU programs are left out and their tests will report Skipped.")
else()
  set(CH12_NO_CUDA_REASON "CUDA is not configured in this build (no nvcc was found on PATH, in CUDA_HOME or CUDA_PATH, or in ${CH12_NVCC_HOMES}): install the CUDA toolkit, or put its bin/ folder on PATH or name nvcc in CUDACXX, then re-run cmake")
  if(CH12_REQUIRE_CUDA)
    message(FATAL_ERROR "CH12_REQUIRE_CUDA is on but ${CH12_NO_CUDA_REASON}")
  endif()
  message(STATUS "No CUDA compiler: the GPU programs are left out and their tests will report Skipped.")
endif()

# Targets whose code has Hopper-only paths (thread-block clusters) also get
# compute_90 PTX in the portable build, so CI compiles those paths too.
function(ch12_cuda_hopper_paths target)
  if(CH12_HAVE_CUDA AND CH12_ARCH_MODE STREQUAL "portable")
    set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES 75-virtual 90-virtual)
  endif()
endfunction()

# ---- NCCL (the multi-GPU sort, ch12/extras/multi_gpu) ------------------------------
# Looked for, in this order: CH12_NCCL_ROOT (or the environment's NCCL_ROOT /
# NCCL_HOME), the CUDA toolkit's folders, the system's folders, and the pip
# wheel nvidia-nccl-cu13 (site-packages/nvidia/nccl/{include,lib}) of any
# python3 found. Looked for again at every configure. Without NCCL the program
# is still built, for one GPU; its runs on several GPUs exit 77 (Skipped) and
# say why.
set(CH12_NCCL_ROOT "" CACHE PATH "Where NCCL is (its include/ and lib/ folders), when it is not found by itself")
set(_ch12_nccl_hints)
foreach(root IN ITEMS "${CH12_NCCL_ROOT}" "$ENV{NCCL_ROOT}" "$ENV{NCCL_HOME}")
  if(NOT root STREQUAL "")
    list(APPEND _ch12_nccl_hints "${root}")
  endif()
endforeach()
if(CMAKE_CUDA_COMPILER)
  get_filename_component(_ch12_nccl_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  get_filename_component(_ch12_nccl_cuda_root "${_ch12_nccl_cuda_bin}" DIRECTORY)
  list(APPEND _ch12_nccl_hints "${_ch12_nccl_cuda_root}" "${_ch12_nccl_cuda_root}/targets/x86_64-linux" "${_ch12_nccl_cuda_root}/targets/sbsa-linux")
endif()
set(_ch12_nccl_wheels)
find_program(_ch12_nccl_python3 python3 NO_CACHE)
foreach(py IN ITEMS "${Python3_EXECUTABLE}" "${_ch12_nccl_python3}")
  if(py)
    execute_process(COMMAND "${py}" -c
      "import importlib.util as u\ntry:\n s = u.find_spec('nvidia.nccl')\n print(list(s.submodule_search_locations)[0] if s else '')\nexcept Exception:\n pass"
      OUTPUT_VARIABLE _ch12_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 30)
    if(_ch12_nccl_wheel AND IS_DIRECTORY "${_ch12_nccl_wheel}")
      list(APPEND _ch12_nccl_wheels "${_ch12_nccl_wheel}")
    endif()
  endif()
endforeach()
find_path(CH12_NCCL_INCLUDE_DIR nccl.h HINTS ${_ch12_nccl_hints} PATH_SUFFIXES include PATHS ${_ch12_nccl_wheels} NO_CACHE)
find_library(CH12_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_ch12_nccl_hints} PATH_SUFFIXES lib lib64 PATHS ${_ch12_nccl_wheels}
             NO_CACHE)
set(CH12_HAVE_NCCL OFF)
if(CH12_NCCL_INCLUDE_DIR AND CH12_NCCL_LIBRARY)
  file(STRINGS "${CH12_NCCL_INCLUDE_DIR}/nccl.h" _ch12_nccl_v REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*" "\\1" _ch12_nccl_major "${_ch12_nccl_v}")
  string(REGEX REPLACE ".*NCCL_MINOR ([0-9]+).*" "\\1" _ch12_nccl_minor "${_ch12_nccl_v}")
  string(REGEX REPLACE ".*NCCL_PATCH ([0-9]+).*" "\\1" _ch12_nccl_patch "${_ch12_nccl_v}")
  if("${_ch12_nccl_major}.${_ch12_nccl_minor}" VERSION_LESS 2.7)  # ncclSend / ncclRecv came with 2.7
    message(STATUS "Multi-GPU extra: NCCL ${_ch12_nccl_major}.${_ch12_nccl_minor} in ${CH12_NCCL_INCLUDE_DIR} is older than 2.7 (no "
                   "ncclSend/ncclRecv): built for one GPU only")
  else()
    set(CH12_HAVE_NCCL ON)
    message(STATUS "Multi-GPU extra: NCCL ${_ch12_nccl_major}.${_ch12_nccl_minor}.${_ch12_nccl_patch}, ${CH12_NCCL_INCLUDE_DIR}/nccl.h, "
                   "${CH12_NCCL_LIBRARY}")
  endif()
else()
  message(STATUS "Multi-GPU extra: NCCL not found (no nccl.h and libnccl in the CUDA toolkit, the system, or a pip "
                 "wheel nvidia-nccl-cu13; or set CH12_NCCL_ROOT): built for one GPU only, its runs on several "
                 "GPUs will report Skipped")
endif()

# ---- GLSL / Vulkan --------------------------------------------------------------
# The shader is compiled to SPIR-V by glslc at build time; the host program
# needs the Vulkan headers only (it loads the Vulkan loader at run time).
# glslc and node are looked for on PATH (and glslc in $VULKAN_SDK/bin), not in
# CMake's system folders: without them on PATH, they are not there.
find_program(CH12_GLSLC glslc HINTS ENV VULKAN_SDK PATH_SUFFIXES bin NO_CACHE NO_CMAKE_SYSTEM_PATH)
find_path(CH12_VULKAN_INCLUDE_DIR vulkan/vulkan.h HINTS ENV VULKAN_SDK PATH_SUFFIXES include NO_CACHE)
set(CH12_HAVE_VULKAN OFF)
set(CH12_NO_VULKAN_REASON "")
if(CH12_GLSLC AND CH12_VULKAN_INCLUDE_DIR)
  set(CH12_HAVE_VULKAN ON)
  message(STATUS "GLSL/Vulkan extra: ${CH12_GLSLC}, headers in ${CH12_VULKAN_INCLUDE_DIR}")
else()
  set(_missing)
  if(NOT CH12_GLSLC)
    list(APPEND _missing "glslc")
  endif()
  if(NOT CH12_VULKAN_INCLUDE_DIR)
    list(APPEND _missing "the Vulkan headers (vulkan/vulkan.h)")
  endif()
  list(JOIN _missing " and " _missing)
  set(CH12_NO_VULKAN_REASON "the GLSL/Vulkan extra is not configured in this build (${_missing} not found): install them (Debian/Ubuntu: apt-get install glslc libvulkan-dev mesa-vulkan-drivers), then re-run cmake")
  message(STATUS "GLSL/Vulkan extra left out: ${_missing} not found (Debian/Ubuntu: apt-get install glslc libvulkan-dev mesa-vulkan-drivers)")
endif()

# ---- node (the JavaScript reference of the tree extra) ------------------------------
find_program(CH12_NODE NAMES node nodejs NO_CACHE NO_CMAKE_SYSTEM_PATH)
