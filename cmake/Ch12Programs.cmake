# ch12_program(): one declaration per program, and every test made from it.
#
# ch12_program(<name> SOURCE <file> ID <short id> SECTION <12.x|extra> WHAT "<one line>"
#   [RUN_ALL]                 run_all.sh runs it (in declaration order)
#   [TRAP_OF <id>]            a COMMON TRAP: run_all.sh --traps runs it after lesson <id>
#   [GOLDEN]                  stdout must equal expected_output/<name>.txt
#   [REPLAY]                  --replay (the book's CPU replay) must print
#                             expected_output/<name>.replay.txt, on any machine
#                             with nvcc (no GPU needed)
#   [REPLAY_BY_LINES]         with REPLAY: the replay is checked like the run
#                             (EXPECT_EXIT, EXPECT_LINE), not against a golden
#                             (an exercise a student has edited; run_all.sh
#                             then has no replay row for it)
#   [EXPECT_EXIT <n>]         the run's exit status (default 0; traps: 1)
#   [EXPECT_LINE "<line>"]    a line the run must print (repeatable)
#   [ARGS <arg>...]           the run's arguments
#   [BAD_ARGS "<what>|<arg>|..."...]
#                             bad command lines: usage_<name>_<what> expects
#                             exit 2, nothing on stdout, the usage on stderr,
#                             and stderr naming the bad argument (the token
#                             marked with a leading '!', else the last one; an
#                             element "=TEXT" is no argument but the text to find)
#   [STANDALONE]              also build it with the book's own command
#   [VULKAN]                  a Vulkan program (else: .cpp = CPU, .cu = GPU)
#   [HOPPER]                  has Hopper-only code paths (portable builds add compute_90)
#   [LIBS <target>...] [INCLUDES <dir>...] [LABELS <label>...] [TIMEOUT <s>]
#   [SANITIZE "<tag>|<arg>|..."...]  the compute-sanitizer runs (default: one, with ARGS);
#                             an element "env:NAME=VALUE" sets a variable for the run
#   [SANITIZE_TOOLS <tool>...]       default: memcheck racecheck synccheck initcheck
# )
#
# Tests, each labelled (ctest -L <label>):
#   golden_<name> / run_<name>   the run: golden and/or lines, exit status      golden|gpu|cpu
#   replay_<name>                --replay against its golden (no GPU needed)   replay;cpu
#   no_gpu_<name>                no usable device: nothing on stdout, one line  nogpu
#                                on stderr (pointing to --replay), exit 77
#   help_<name>                  --help: usage on stdout, exit 0               usage
#   usage_<name>_<what>          a bad command line                            usage
#   write_error_<name>           stdout on /dev/full: exit 1                   usage
#   standalone_<name>            the book's compile command, then a run        standalone
#   sanitize_<tool>_<name>[_<tag>]  compute-sanitizer finds 0 errors           sanitize;gpu
# A program that this build cannot make (no nvcc, no glslc) keeps every one of
# its tests: they report Skipped, with the reason and how to fix it.

set(CH12_COMPARE ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/compare_output.py)
set(CH12_GOLDEN_DIR ${PROJECT_SOURCE_DIR}/expected_output)
set(CH12_SANITIZE ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/sanitize.py)

# ---- warnings -----------------------------------------------------------------------
set(CH12_CXX_WARNINGS -Wall -Wextra)
set(CH12_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra)
if(CH12_WARNINGS_AS_ERRORS)
  list(APPEND CH12_CXX_WARNINGS -Werror)
  list(APPEND CH12_CUDA_WARNINGS -Xcompiler=-Werror --Werror=all-warnings)
endif()

# A test that cannot run in this build: it reports Skipped (exit 77) with the reason.
function(ch12_unbuildable_test name reason)
  cmake_parse_arguments(T "" "" "LABELS" ${ARGN})
  add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} -c
           "import sys; print('SKIPPED: ' + sys.argv[1]); sys.exit(77)" "${reason}")
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
endfunction()

# ch12_test(<name> TARGET <target> [ARGS ...] [CHECK ...] [LABELS ...] [TIMEOUT s] [KIND cpu|gpu|vulkan])
# One run of a program through compare_output.py (CHECK: its options).
# Exit 77 from the program (no device) makes the test Skipped, never passed.
function(ch12_test name)
  cmake_parse_arguments(T "" "TARGET;TIMEOUT;KIND" "ARGS;CHECK;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT TARGET ${T_TARGET})
    get_property(reason GLOBAL PROPERTY CH12_UNBUILT_${T_TARGET})
    ch12_unbuildable_test(${name} "${T_TARGET}: ${reason}" LABELS "${T_LABELS}")
    return()
  endif()
  math(EXPR inner "${T_TIMEOUT} - 5")
  add_test(NAME ${name} COMMAND ${CH12_COMPARE} --timeout ${inner} ${T_CHECK} -- $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
endfunction()

function(ch12_program name)
  cmake_parse_arguments(P "RUN_ALL;GOLDEN;REPLAY;REPLAY_BY_LINES;STANDALONE;VULKAN;HOPPER"
    "SOURCE;ID;SECTION;WHAT;TRAP_OF;EXPECT_EXIT;TIMEOUT"
    "EXPECT_LINE;ARGS;BAD_ARGS;LIBS;INCLUDES;LABELS;SANITIZE;SANITIZE_TOOLS" ${ARGN})
  if(NOT DEFINED P_EXPECT_EXIT)
    set(P_EXPECT_EXIT 0)
  endif()
  if(NOT P_TIMEOUT)
    set(P_TIMEOUT 120)
  endif()
  if(NOT P_SANITIZE_TOOLS)
    set(P_SANITIZE_TOOLS memcheck racecheck synccheck initcheck)
  endif()

  # What it is, and whether this build can make it.
  set(reason "")
  if(P_VULKAN)
    set(kind vulkan)
    set(build_label glsl)
    if(NOT CH12_HAVE_VULKAN)
      set(reason "${CH12_NO_VULKAN_REASON}")
    endif()
  elseif(P_SOURCE MATCHES "\\.cu$")
    set(kind gpu)
    set(build_label cuda)
    if(NOT CH12_HAVE_CUDA)
      set(reason "${CH12_NO_CUDA_REASON}")
    endif()
  else()
    set(kind cpu)
    set(build_label cpu)
  endif()
  set(labels ${P_LABELS})
  if(P_TRAP_OF)
    list(APPEND labels trap)
  endif()

  if(reason STREQUAL "")
    add_executable(${name} ${P_SOURCE})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/common ${P_INCLUDES})
    if(kind STREQUAL "gpu")
      target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${CH12_CUDA_WARNINGS} --threads=0>)
      target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CH12_CXX_WARNINGS}>)
      if(P_HOPPER)
        ch12_cuda_hopper_paths(${name})
      endif()
    else()
      target_compile_options(${name} PRIVATE ${CH12_CXX_WARNINGS})
    endif()
    if(P_LIBS)
      target_link_libraries(${name} PRIVATE ${P_LIBS})
    endif()
  else()
    set_property(GLOBAL PROPERTY CH12_UNBUILT_${name} "${reason}")
  endif()

  # ---- the run
  set(check)
  if(NOT P_EXPECT_EXIT EQUAL 0)
    list(APPEND check --expect-exit ${P_EXPECT_EXIT})
  endif()
  foreach(line IN LISTS P_EXPECT_LINE)
    list(APPEND check "--expect-line=${line}")
  endforeach()
  if(kind STREQUAL "vulkan")
    list(APPEND check "--mask-line-prefix=device: ")
  endif()
  if(P_GOLDEN)
    ch12_test(golden_${name} TARGET ${name} ARGS ${P_ARGS} CHECK --golden ${CH12_GOLDEN_DIR}/${name}.txt ${check}
              LABELS golden ${kind} ${labels} TIMEOUT ${P_TIMEOUT})
  elseif(P_EXPECT_LINE)
    ch12_test(run_${name} TARGET ${name} ARGS ${P_ARGS} CHECK ${check} LABELS ${kind} ${labels} TIMEOUT ${P_TIMEOUT})
  endif()

  # ---- the book's replay, on the CPU (no GPU needed)
  if(P_REPLAY)
    set(rcheck --golden ${CH12_GOLDEN_DIR}/${name}.replay.txt)
    if(P_REPLAY_BY_LINES)
      set(rcheck)
      foreach(line IN LISTS P_EXPECT_LINE)
        list(APPEND rcheck "--expect-line=${line}")
      endforeach()
    endif()
    if(NOT P_EXPECT_EXIT EQUAL 0)
      list(APPEND rcheck --expect-exit ${P_EXPECT_EXIT})
    endif()
    ch12_test(replay_${name} TARGET ${name} ARGS --replay CHECK ${rcheck} LABELS replay cpu ${labels})
  endif()

  # ---- no usable device: exit 77, nothing on stdout, one line on stderr
  if(kind STREQUAL "gpu")
    set(ncheck --env CUDA_VISIBLE_DEVICES= --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1)
    if(P_REPLAY)
      list(APPEND ncheck --expect-stderr-contains=--replay)
    endif()
    ch12_test(no_gpu_${name} TARGET ${name} ARGS ${P_ARGS} CHECK ${ncheck} LABELS nogpu ${build_label} ${labels})
  elseif(kind STREQUAL "vulkan")
    ch12_test(no_gpu_${name} TARGET ${name} ARGS ${P_ARGS}
              CHECK --env VK_ICD_FILENAMES=/nonexistent/icd.json --env VK_DRIVER_FILES=/nonexistent/icd.json
                    --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1
              LABELS nogpu ${build_label} ${labels})
    ch12_test(no_loader_${name} TARGET ${name} ARGS ${P_ARGS}
              CHECK --env CH12_VULKAN_LOADER=/nonexistent/libvulkan.so.1
                    --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1
              LABELS nogpu ${build_label} ${labels})
  endif()

  # ---- the command-line convention
  ch12_test(help_${name} TARGET ${name} ARGS --help
            CHECK "--expect-line-prefix=usage: ${name}" --expect-stderr-lines 0 LABELS usage ${build_label} ${labels})
  foreach(case IN LISTS P_BAD_ARGS)
    string(REPLACE "|" ";" argv "${case}")
    list(POP_FRONT argv what)
    set(marked "")
    set(args)
    foreach(a IN LISTS argv)
      if(a MATCHES "^=(.*)$")  # not an argument: the text stderr must hold
        set(marked "${CMAKE_MATCH_1}")
      elseif(a MATCHES "^!(.*)$")
        set(marked "${CMAKE_MATCH_1}")
        list(APPEND args "${CMAKE_MATCH_1}")
      else()
        list(APPEND args "${a}")
      endif()
    endforeach()
    if(marked STREQUAL "")
      list(GET args -1 marked)
    endif()
    ch12_test(usage_${name}_${what} TARGET ${name} ARGS ${args}
              CHECK --expect-exit 2 --expect-empty-stdout "--expect-stderr-contains=usage: ${name}"
                    "--expect-stderr-contains=${marked}"
              LABELS usage ${build_label} ${labels})
  endforeach()
  # A write error on stdout is exit 1: the run itself where it exits 0 on any
  # machine, else --help.
  if(kind STREQUAL "cpu" AND P_EXPECT_EXIT EQUAL 0)
    set(wargs ${P_ARGS})
  elseif(kind STREQUAL "gpu" AND P_REPLAY AND P_EXPECT_EXIT EQUAL 0)
    set(wargs --replay)
  else()
    set(wargs --help)
  endif()
  ch12_test(write_error_${name} TARGET ${name} ARGS ${wargs}
            CHECK --stdout-to /dev/full --expect-exit 1 --expect-stderr-contains "standard output"
            LABELS usage ${build_label} ${labels})

  # ---- the book's own compile command, in a scratch copy
  if(P_STANDALONE AND NOT MSVC)
    if(kind STREQUAL "gpu")
      set(sargs --compiler "${CMAKE_CUDA_COMPILER}" --golden ${CH12_GOLDEN_DIR}/${name}.replay.txt --run-arg=--replay)
    else()
      set(sargs --compiler "${CMAKE_CXX_COMPILER}" --golden ${CH12_GOLDEN_DIR}/${name}.txt)
    endif()
    if(reason STREQUAL "")
      add_test(NAME standalone_${name}
               COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/standalone_build.py
                       --source ${PROJECT_SOURCE_DIR}/${P_SOURCE}
                       --scratch ${PROJECT_BINARY_DIR}/standalone/${name} ${sargs})
      set_tests_properties(standalone_${name} PROPERTIES TIMEOUT 600 LABELS "standalone;${build_label};${labels}")
    else()
      ch12_unbuildable_test(standalone_${name} "${name}: ${reason}" LABELS standalone ${build_label} ${labels})
    endif()
  endif()

  # ---- compute-sanitizer: every GPU program, every tool, 0 errors
  if(kind STREQUAL "gpu")
    if(NOT P_SANITIZE)
      list(JOIN P_ARGS "|" joined)
      set(P_SANITIZE "|${joined}")
    endif()
    foreach(run IN LISTS P_SANITIZE)
      string(REPLACE "|" ";" argv "${run}")
      list(POP_FRONT argv tag)
      if(tag STREQUAL "")
        set(suffix "")
      else()
        set(suffix "_${tag}")
      endif()
      set(envs)
      set(sargs)
      foreach(a IN LISTS argv)
        if(a MATCHES "^env:(.*)$")
          list(APPEND envs "--env=${CMAKE_MATCH_1}")
        else()
          list(APPEND sargs "${a}")
        endif()
      endforeach()
      foreach(tool IN LISTS P_SANITIZE_TOOLS)
        set(tname sanitize_${tool}_${name}${suffix})
        if(TARGET ${name})
          add_test(NAME ${tname} COMMAND ${CH12_SANITIZE} --tool ${tool} --expect-exit ${P_EXPECT_EXIT} ${envs}
                                         -- $<TARGET_FILE:${name}> ${sargs})
          set_tests_properties(${tname} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "sanitize;gpu;${labels}")
        else()
          ch12_unbuildable_test(${tname} "${name}: ${reason}" LABELS sanitize gpu ${labels})
        endif()
      endforeach()
    endforeach()
  endif()

  # ---- the table run_all.sh reads
  if(P_RUN_ALL OR P_TRAP_OF)
    set(trap "-")
    if(P_TRAP_OF)
      set(trap "${P_TRAP_OF}")
    endif()
    set(golden "-")
    if(P_GOLDEN)
      set(golden "${name}.txt")
    endif()
    set(replay "-")
    if(P_REPLAY AND NOT P_REPLAY_BY_LINES)
      set(replay "${name}.replay.txt")
    endif()
    set(line "-")
    if(P_EXPECT_LINE)
      list(GET P_EXPECT_LINE 0 line)
    endif()
    list(JOIN P_ARGS " " args)
    if(args STREQUAL "")
      set(args "-")
    endif()
    if(TARGET ${name})
      set(path "$<TARGET_FILE:${name}>")
    else()
      set(path "-")
    endif()
    string(TOUPPER "${kind}" KIND)
    set_property(GLOBAL APPEND_STRING PROPERTY CH12_TABLE
      "${P_ID}\t${name}\t${KIND}\t${P_SECTION}\t${P_WHAT}\t${path}\t${golden}\t${replay}\t${trap}\t${P_EXPECT_EXIT}\t${line}\t${args}\n")
  endif()
endfunction()

# Writes <build>/ch12_programs.tsv (the programs run_all.sh runs, in order) and
# <build>/ch12_build.tsv (what this build could make, and how to fix what not).
function(ch12_write_program_table)
  get_property(table GLOBAL PROPERTY CH12_TABLE)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ch12_programs.tsv CONTENT
       "# id\tname\tkind\tsection\twhat\tpath\tgolden\treplay\ttrap_of\texpect_exit\texpect_line\targs\n${table}")
  set(cuda "OFF\t${CH12_NO_CUDA_REASON}")
  if(CH12_HAVE_CUDA)
    set(cuda "ON\t${CMAKE_CUDA_COMPILER}")
  endif()
  set(vulkan "OFF\t${CH12_NO_VULKAN_REASON}")
  if(CH12_HAVE_VULKAN)
    set(vulkan "ON\t${CH12_GLSLC}")
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/ch12_build.tsv "cuda\t${cuda}\nvulkan\t${vulkan}\n")
endfunction()
