# ch12_program(): one declaration per program, and every test made from it.
#
# ch12_program(<name> SOURCE <file> ID <short id> SECTION <12.x|extra> WHAT "<one line>"
#   [RUN_ALL]                 run_all.sh runs it (in declaration order)
#   [NOT_BY_DEFAULT]          with RUN_ALL: only when named (./run_all.sh <id>),
#                             not in the default run (a program slow to build)
#   [TRAP_OF <id>]            a COMMON TRAP: run_all.sh --traps runs it after lesson <id>
#   [ERRATA <n>]              with TRAP_OF: the trap fails otherwise than the book
#                             says, as ch12/ERRATA.md entry <n> explains
#   [BLOCK_SIM]               a C++ program that runs kernels in the block
#                             simulator (common/block_sim.h): built with its
#                             instrumentation, linked with its runtime
#                             (ch12_block_sim); Skipped where the compiler has none
#   [GOLDEN]                  stdout must equal expected_output/<name>.txt
#   [REPLAY]                  --replay (the book's CPU replay) must print
#                             expected_output/<name>.replay.txt; it needs no
#                             GPU, but nvcc to be built
#   [REPLAY_BY_LINES]         with REPLAY: the replay is checked like the run
#                             (EXPECT_EXIT, EXPECT_LINE), not against a golden
#                             (an exercise a student has edited)
#   [STARTER_AS_SHIPPED]      an exercise's starter, unedited: its check is
#                             expected to say NOT YET (run_all.sh shows TODO)
#   [EXPECT_EXIT <n>]         the run's exit status (default 0; traps: 1)
#   [EXPECT_LINE "<line>"]    a line the run must print (repeatable)
#   [ARGS <arg>...]           the run's arguments
#   [BAD_ARGS "<what>|<arg>|...|=<problem>"...]
#                             bad command lines: usage_<name>_<what> expects
#                             exit 2, nothing on stdout, the usage on stderr,
#                             and stderr holding <problem>: the program's own
#                             message for it (what it prints after "<name>: "),
#                             or a distinctive part of it that its --help text
#                             does not hold. (Older forms: a token marked '!',
#                             else the last one, is the text looked for; the
#                             test usage_checks_need_the_problem_line fails
#                             any that the usage alone would satisfy.)
#   [STANDALONE]              also build it with the book's own command
#   [VULKAN]                  a Vulkan program (else: .cpp = CPU, .cu = GPU)
#   [HOPPER]                  has Hopper-only code paths (portable builds add compute_90)
#   [LIBS <target>...] [INCLUDES <dir>...] [LABELS <label>...] [TIMEOUT <s>]
#   [SANITIZE "<tag>|<arg>|..."...]  the compute-sanitizer runs (default: one, with ARGS);
#                             an element "env:NAME=VALUE" sets a variable for the run
#   [SANITIZE_TOOLS <tool>...]       default: memcheck racecheck synccheck initcheck
# )
# An argument it does not know, or a missing SOURCE, ID, SECTION or WHAT,
# stops the configure step with the declaration's name (ch12_test() and
# ch12_row() reject unknown arguments too).
#
# Tests, each labelled (ctest -L '^<label>$': labels are regular expressions):
#   golden_<name> / run_<name>   the run: golden and/or lines, exit status      golden|gpu|cpu
#   replay_<name>                --replay against its golden (no GPU needed)   replay;cpu
#   no_gpu_<name>                no usable device: nothing on stdout, one line  no_device
#                                on stderr (pointing to --replay), exit 77
#   help_<name>                  --help: usage on stdout, exit 0               usage
#   usage_<name>_<what>          a bad command line                            usage
#   write_error_<name>           stdout on /dev/full: exit 1                   usage
#   standalone_<name>            the book's compile command, then a run        standalone
#   sanitize_<tool>_<name>[_<tag>]  compute-sanitizer finds 0 errors           sanitize;gpu
# A program that this build cannot make (no nvcc, no glslc) keeps every one of
# its tests: they report Skipped, with the reason and how to fix it.
#
# The table flows one way: each test's finished command is recorded as it is
# made, and <build>/ch12_programs.json holds them, arguments as lists --
# run_all.sh runs exactly those commands (the run rows), and the meta-test
# usage_checks_need_the_problem_line re-runs every bad-command-line check
# with a stand-in for the program. ch12_row() adds a row that is not a
# compiled program (the web page's output).

set(CH12_COMPARE ${CH12_TOOL_PYTHON} ${PROJECT_SOURCE_DIR}/common/compare_output.py)
set(CH12_GOLDEN_DIR ${PROJECT_SOURCE_DIR}/expected_output)
set(CH12_SANITIZE ${CH12_TOOL_PYTHON} ${PROJECT_SOURCE_DIR}/common/sanitize.py)

# The tests of this folder that start run_all.sh, or configure a build of
# their own, hand them the interpreter found here (CH12_PYTHON): python3 on
# PATH may be a launcher (a pyenv shim is a bash script that looks the
# version up: some 50 ms of CPU at every start, and they start hundreds).
function(ch12_tests_use_this_python)
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(tests)
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT "CH12_PYTHON=${Python3_EXECUTABLE}")
  endif()
endfunction()

# ---- warnings -----------------------------------------------------------------------
set(CH12_CXX_WARNINGS -Wall -Wextra)
set(CH12_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra)
if(CH12_WARNINGS_AS_ERRORS)
  list(APPEND CH12_CXX_WARNINGS -Werror)
  list(APPEND CH12_CUDA_WARNINGS -Xcompiler=-Werror --Werror=all-warnings)
endif()

# ---- the declarations' own check -------------------------------------------------------
# After cmake_parse_arguments(<prefix> ...): anything it did not take is an
# error, named after the function and the declaration.
macro(ch12_reject_unknown_arguments prefix what)
  if(${prefix}_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${what}: unknown argument(s): ${${prefix}_UNPARSED_ARGUMENTS} (the arguments it takes are "
                        "listed at the top of cmake/Ch12Programs.cmake)")
  endif()
endmacro()

# ---- JSON, for the exported table ------------------------------------------------------
# A JSON string literal of <text>. (Strings are built with string(APPEND), never
# as CMake lists, so a '[' or ']' in a check cannot split or join elements.)
function(ch12_json_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# A JSON array of strings from the CMake list variable named <listvar>.
function(ch12_json_list out listvar)
  set(json "")
  set(sep "")
  foreach(item IN LISTS ${listvar})
    ch12_json_string(s "${item}")
    string(APPEND json "${sep}${s}")
    set(sep ", ")
  endforeach()
  set(${out} "[${json}]" PARENT_SCOPE)
endfunction()

# Where a target's program is, for the table: the same file as
# $<TARGET_FILE:...> (every program lands at the top of the build folder), with
# the folder escaped for JSON at configure time.
if(CMAKE_CONFIGURATION_TYPES)
  set(_ch12_runtime_dir "${PROJECT_BINARY_DIR}/$<CONFIG>")
else()
  set(_ch12_runtime_dir "${PROJECT_BINARY_DIR}")
endif()
function(ch12_json_target_file out target)
  ch12_json_string(dir "${_ch12_runtime_dir}/")
  string(REGEX REPLACE "\"$" "" dir "${dir}")
  set(${out} "${dir}$<TARGET_FILE_NAME:${target}>\"" PARENT_SCOPE)
endfunction()

# Appends one JSON item to the comma-separated list in a global property.
function(ch12_append_json property item)
  get_property(have GLOBAL PROPERTY ${property} SET)
  if(have)
    set_property(GLOBAL APPEND_STRING PROPERTY ${property} ",\n    ${item}")
  else()
    set_property(GLOBAL PROPERTY ${property} "    ${item}")
  endif()
endfunction()

# Records one test for the table (global property CH12_TESTS) and hands its
# record to the caller in CH12_TEST_RECORD.
function(ch12_record_test record)
  ch12_append_json(CH12_TESTS "${record}")
  set(CH12_TEST_RECORD "${record}" PARENT_SCOPE)
endfunction()

# ---- one test --------------------------------------------------------------------------
# A test that cannot run in this build: it reports Skipped (exit 77) with the reason.
function(ch12_unbuildable_test name reason)
  cmake_parse_arguments(T "BAD_COMMAND_LINE" "" "LABELS" ${ARGN})
  if(WIN32)
    add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} -c
             "import sys; print('SKIPPED: ' + sys.argv[1]); sys.exit(77)" "${reason}")
  else()  # (the shell starts in a millisecond: a build without CUDA has some 400 of these)
    add_test(NAME ${name} COMMAND /bin/sh -c "printf 'SKIPPED: %s\\n' \"$1\"; exit 77" sh "${reason}")
  endif()
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
  ch12_json_string(jname "${name}")
  ch12_json_string(jreason "${reason}")
  ch12_json_list(jlabels T_LABELS)
  set(bad false)
  if(T_BAD_COMMAND_LINE)
    set(bad true)
  endif()
  ch12_record_test("{\"test\": ${jname}, \"labels\": ${jlabels}, \"bad_command_line\": ${bad}, \"unbuilt\": ${jreason}}")
  set(CH12_TEST_RECORD "${CH12_TEST_RECORD}" PARENT_SCOPE)
endfunction()

# ch12_test(<name> {TARGET <target> | PROGRAM <command>...} [ARGS ...] [CHECK ...]
#           [LABELS ...] [TIMEOUT s] [UNBUILT "<reason>"] [BAD_COMMAND_LINE])
# One run of a program through compare_output.py (CHECK: its options).
# Exit 77 from the program (no device) makes the test Skipped, never passed.
# PROGRAM is a command that is not a target of this build (node and a script);
# UNBUILT, when not empty, makes the test a Skipped one with that reason.
# BAD_COMMAND_LINE marks a bad-command-line check (for the meta-test).
# The test's command is recorded for the table; CH12_TEST_RECORD holds it.
function(ch12_test name)
  cmake_parse_arguments(T "BAD_COMMAND_LINE" "TARGET;TIMEOUT;KIND;UNBUILT" "PROGRAM;ARGS;CHECK;LABELS" ${ARGN})
  ch12_reject_unknown_arguments(T "ch12_test(${name})")
  set(bad)
  if(T_BAD_COMMAND_LINE)
    set(bad BAD_COMMAND_LINE)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(T_TARGET AND NOT TARGET "${T_TARGET}" AND "${T_UNBUILT}" STREQUAL "")
    get_property(reason GLOBAL PROPERTY CH12_UNBUILT_${T_TARGET})
    set(T_UNBUILT "${T_TARGET}: ${reason}")
  endif()
  if(NOT "${T_UNBUILT}" STREQUAL "")
    ch12_unbuildable_test(${name} "${T_UNBUILT}" LABELS ${T_LABELS} ${bad})
    set(CH12_TEST_RECORD "${CH12_TEST_RECORD}" PARENT_SCOPE)
    return()
  endif()

  math(EXPR inner "${T_TIMEOUT} - 5")
  set(check --timeout ${inner} ${T_CHECK})
  if(T_TARGET)
    set(program $<TARGET_FILE:${T_TARGET}>)
    ch12_json_target_file(jprogram ${T_TARGET})
    set(jprogram "[${jprogram}]")
  else()
    set(program ${T_PROGRAM})
    ch12_json_list(jprogram T_PROGRAM)
  endif()
  add_test(NAME ${name} COMMAND ${CH12_COMPARE} ${check} -- ${program} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")

  set(compare ${CH12_COMPARE})
  ch12_json_string(jname "${name}")
  ch12_json_list(jcompare compare)
  ch12_json_list(jcheck check)
  ch12_json_list(jargs T_ARGS)
  ch12_json_list(jlabels T_LABELS)
  set(jbad false)
  if(T_BAD_COMMAND_LINE)
    set(jbad true)
  endif()
  ch12_record_test("{\"test\": ${jname}, \"labels\": ${jlabels}, \"bad_command_line\": ${jbad}, \"unbuilt\": null, \"target\": \"${T_TARGET}\", \"compare\": ${jcompare}, \"check\": ${jcheck}, \"program\": ${jprogram}, \"args\": ${jargs}}")
  set(CH12_TEST_RECORD "${CH12_TEST_RECORD}" PARENT_SCOPE)
endfunction()

# ---- ch12_program(), step by step ------------------------------------------------------
# Each step is a function that reads the parsed declaration (P_*) and what the
# steps before it found (kind, build_label, reason, labels), from its caller.

# What it is (cpu, gpu, vulkan), its build label, and why this build cannot make it ("" if it can).
function(ch12_program_kind)
  set(reason "")
  if(P_BLOCK_SIM)
    set(kind cpu)
    set(build_label cpu)
    if(NOT CH12_HAVE_BLOCK_SIM)
      set(reason "${CH12_NO_BLOCK_SIM_REASON}")
    endif()
  elseif(P_VULKAN)
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
  set(kind ${kind} PARENT_SCOPE)
  set(build_label ${build_label} PARENT_SCOPE)
  set(reason "${reason}" PARENT_SCOPE)
  set(labels ${labels} PARENT_SCOPE)
endfunction()

# The executable, or the record of why it is not made.
function(ch12_program_target name)
  if(NOT "${reason}" STREQUAL "")
    set_property(GLOBAL PROPERTY CH12_UNBUILT_${name} "${reason}")
    return()
  endif()
  # A program that links libraries with code of their own (LIBS: the sort
  # library, the multi-GPU one, the tree harness) compiles its source as an
  # object library, <name>_objects: Make would otherwise wait for every
  # library it links to be built before compiling it (the sort benchmark's
  # 30 CPU-seconds behind the sort library's 47), while compiling needs only
  # their headers. CMAKE_OPTIMIZE_DEPENDENCIES (top-level CMakeLists.txt)
  # drops that wait for object libraries; the executable links the objects
  # and the libraries, exactly as before (same linker, same link line).
  # - Such a library must be declared before the program (a name that is not
  #   a target yet is taken for a system library, like dl: the configure step
  #   stops if it turns out to be one of ours -- ch12_check_library_order()).
  # - Settings for compiling such a program (definitions, include folders, a
  #   dependency on generated headers) go on <name>_objects; on <name> they
  #   would miss its compile step. (The GLSL program's dependency on its
  #   shaders goes on glsl_bitonic_sort: it links no library with code.)
  set(compiled ${name})
  set(links_code OFF)
  foreach(lib IN LISTS P_LIBS)
    if(TARGET ${lib})
      ch12_is_code_library(code ${lib})
      if(code)
        set(links_code ON)
      endif()
    else()
      set_property(GLOBAL APPEND PROPERTY CH12_LIBS_NOT_YET_DECLARED "${name}|${lib}")
    endif()
  endforeach()
  if(links_code)
    set(compiled ${name}_objects)
    add_library(${compiled} OBJECT ${P_SOURCE})
    add_executable(${name} $<TARGET_OBJECTS:${compiled}>)
    target_link_libraries(${name} PRIVATE ${P_LIBS})
  else()
    add_executable(${name} ${P_SOURCE})
  endif()
  target_include_directories(${compiled} PRIVATE ${PROJECT_SOURCE_DIR}/common ${PROJECT_SOURCE_DIR}/common/include ${P_INCLUDES})
  if(kind STREQUAL "gpu")
    target_compile_options(${compiled} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${CH12_CUDA_WARNINGS} --threads=0>)
    target_compile_options(${compiled} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CH12_CXX_WARNINGS}>)
    if(P_HOPPER)
      ch12_cuda_hopper_paths(${compiled})
    endif()
  else()
    target_compile_options(${compiled} PRIVATE ${CH12_CXX_WARNINGS})
  endif()
  if(P_BLOCK_SIM)
    target_compile_options(${compiled} PRIVATE ${CH12_BLOCK_SIM_FLAGS})
    target_link_libraries(${name} PRIVATE ch12_block_sim)  # the simulator's runtime (common/block_sim.cpp)
    if(NOT compiled STREQUAL name)
      target_link_libraries(${compiled} PRIVATE ch12_block_sim)  # (its compile definitions)
    endif()
  endif()
  if(P_LIBS)
    target_link_libraries(${compiled} PRIVATE ${P_LIBS})
  endif()
endfunction()

# Called once every folder is declared (top-level CMakeLists.txt): a LIBS
# name that was not a target when its program was declared must not have
# become one of ours with code since -- that program would compile only after
# it (see ch12_program_target).
function(ch12_check_library_order)
  get_property(pairs GLOBAL PROPERTY CH12_LIBS_NOT_YET_DECLARED)
  foreach(pair IN LISTS pairs)
    string(REPLACE "|" ";" parts "${pair}")
    list(GET parts 0 program)
    list(GET parts 1 lib)
    ch12_is_code_library(code ${lib})
    if(code)
      message(FATAL_ERROR "${program} links ${lib}, which is declared after it: declare ${lib} "
                          "first (add its folder before ${program}'s), so that ${program} compiles beside it")
    endif()
  endforeach()
endfunction()

# out = whether lib is a target of ours with code to build (a static, shared
# or object library), not an interface library or a system one.
function(ch12_is_code_library out lib)
  set(code OFF)
  if(TARGET ${lib})
    get_target_property(type ${lib} TYPE)
    if(type MATCHES "^(STATIC|SHARED|OBJECT)_LIBRARY$")
      set(code ON)
    endif()
  endif()
  set(${out} ${code} PARENT_SCOPE)
endfunction()

# The run (golden_ or run_) and the book's replay (replay_); their records go
# back to the caller in run_record and replay_record ("" when there is none).
function(ch12_program_run_tests name)
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
  set(run_record "")
  if(P_GOLDEN)
    ch12_test(golden_${name} TARGET ${name} ARGS ${P_ARGS} CHECK --golden ${CH12_GOLDEN_DIR}/${name}.txt ${check}
              LABELS golden ${kind} ${labels} TIMEOUT ${P_TIMEOUT})
    set(run_record "${CH12_TEST_RECORD}")
  elseif(P_EXPECT_LINE)
    ch12_test(run_${name} TARGET ${name} ARGS ${P_ARGS} CHECK ${check} LABELS ${kind} ${labels} TIMEOUT ${P_TIMEOUT})
    set(run_record "${CH12_TEST_RECORD}")
  endif()

  set(replay_record "")
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
    set(replay_record "${CH12_TEST_RECORD}")
  endif()
  set(run_record "${run_record}" PARENT_SCOPE)
  set(replay_record "${replay_record}" PARENT_SCOPE)
endfunction()

# No usable device: exit 77, nothing on stdout, one line on stderr.
function(ch12_program_no_device_tests name)
  if(kind STREQUAL "gpu")
    set(ncheck --env CUDA_VISIBLE_DEVICES= --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1)
    if(P_REPLAY)
      list(APPEND ncheck --expect-stderr-contains=--replay)
    endif()
    ch12_test(no_gpu_${name} TARGET ${name} ARGS ${P_ARGS} CHECK ${ncheck} LABELS no_device ${build_label} ${labels})
  elseif(kind STREQUAL "vulkan")
    ch12_test(no_gpu_${name} TARGET ${name} ARGS ${P_ARGS}
              CHECK --env VK_ICD_FILENAMES=/nonexistent/icd.json --env VK_DRIVER_FILES=/nonexistent/icd.json
                    --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1
              LABELS no_device ${build_label} ${labels})
    ch12_test(no_loader_${name} TARGET ${name} ARGS ${P_ARGS}
              CHECK --env CH12_VULKAN_LOADER=/nonexistent/libvulkan.so.1
                    --expect-exit 77 --expect-empty-stdout --expect-stderr-lines 1
              LABELS no_device ${build_label} ${labels})
  endif()
endfunction()

# The command-line convention: --help, each bad command line, a write error.
function(ch12_program_command_line_tests name)
  ch12_test(help_${name} TARGET ${name} ARGS --help
            CHECK "--expect-line-prefix=usage: ${name}" --expect-stderr-lines 0 LABELS usage ${build_label} ${labels})
  foreach(case IN LISTS P_BAD_ARGS)
    string(REPLACE "|" ";" argv "${case}")
    list(POP_FRONT argv what)
    set(problem "")
    set(args)
    foreach(a IN LISTS argv)
      if(a MATCHES "^=(.*)$")  # not an argument: the problem's text, which stderr must hold
        set(problem "${CMAKE_MATCH_1}")
      elseif(a MATCHES "^!(.*)$")
        set(problem "${CMAKE_MATCH_1}")
        list(APPEND args "${CMAKE_MATCH_1}")
      else()
        list(APPEND args "${a}")
      endif()
    endforeach()
    if("${problem}" STREQUAL "")
      list(GET args -1 problem)
    endif()
    ch12_test(usage_${name}_${what} TARGET ${name} ARGS ${args} BAD_COMMAND_LINE
              CHECK --expect-exit 2 --expect-empty-stdout "--expect-stderr-contains=usage: ${name}"
                    "--expect-stderr-contains=${problem}"
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
endfunction()

# The book's own compile command, in a scratch copy.
function(ch12_program_standalone_test name)
  if(NOT P_STANDALONE OR MSVC)
    return()
  endif()
  if(kind STREQUAL "gpu")
    set(sargs --compiler "${CMAKE_CUDA_COMPILER}" --golden ${CH12_GOLDEN_DIR}/${name}.replay.txt --run-arg=--replay)
  else()
    set(sargs --compiler "${CMAKE_CXX_COMPILER}" --golden ${CH12_GOLDEN_DIR}/${name}.txt)
  endif()
  if("${reason}" STREQUAL "")
    add_test(NAME standalone_${name}
             COMMAND ${CH12_TOOL_PYTHON} ${PROJECT_SOURCE_DIR}/common/standalone_build.py
                     --source ${PROJECT_SOURCE_DIR}/${P_SOURCE}
                     --scratch ${PROJECT_BINARY_DIR}/standalone/${name} ${sargs})
    set_tests_properties(standalone_${name} PROPERTIES TIMEOUT 600 LABELS "standalone;${build_label};${labels}")
  else()
    ch12_unbuildable_test(standalone_${name} "${name}: ${reason}" LABELS standalone ${build_label} ${labels})
  endif()
endfunction()

# compute-sanitizer: every GPU program, every tool, 0 errors.
function(ch12_program_sanitize_tests name)
  if(NOT kind STREQUAL "gpu")
    return()
  endif()
  set(runs ${P_SANITIZE})
  if(NOT runs)
    list(JOIN P_ARGS "|" joined)
    set(runs "|${joined}")
  endif()
  foreach(run IN LISTS runs)
    string(REPLACE "|" ";" argv "${run}")
    list(POP_FRONT argv tag)
    set(suffix "")
    if(NOT "${tag}" STREQUAL "")
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
endfunction()

# One row of the table run_all.sh runs: what it is, and the finished records
# of its runs (given as "<mode>|<record>" pairs in ARGN: mode run, replay or web).
# group: lesson, trap, extra, exercise or web; of: the lesson a trap or web row follows.
function(ch12_table_row)
  cmake_parse_arguments(R "STARTER_AS_SHIPPED;NOT_BY_DEFAULT" "ID;NAME;KIND;SECTION;WHAT;GROUP;OF;UNBUILT;CHECK_VERSION;ERRATA;STARTER;SHIPPED_SHA256"
                        "EXPECT_LINE;RUNS" ${ARGN})
  set(runs "")
  set(sep "")
  list(LENGTH R_RUNS n)
  set(i 0)
  while(i LESS n)
    list(GET R_RUNS ${i} mode)
    math(EXPR i "${i} + 1")
    list(GET R_RUNS ${i} key)
    math(EXPR i "${i} + 1")
    get_property(record GLOBAL PROPERTY ${key})
    string(APPEND runs "${sep}{\"mode\": \"${mode}\", \"record\": ${record}}")
    set(sep ", ")
  endwhile()
  foreach(field ID NAME KIND SECTION WHAT GROUP OF CHECK_VERSION ERRATA STARTER SHIPPED_SHA256)
    ch12_json_string(j${field} "${R_${field}}")
  endforeach()
  ch12_json_list(jlines R_EXPECT_LINE)
  set(starter false)
  if(R_STARTER_AS_SHIPPED)
    set(starter true)
  endif()
  set(by_default true)
  if(R_NOT_BY_DEFAULT)
    set(by_default false)
  endif()
  set(row "{\"id\": ${jID}, \"name\": ${jNAME}, \"kind\": ${jKIND}, \"section\": ${jSECTION}, \"what\": ${jWHAT}, \"group\": ${jGROUP}, \"of\": ${jOF}, \"starter_as_shipped\": ${starter}, \"starter\": ${jSTARTER}, \"shipped_sha256\": ${jSHIPPED_SHA256}, \"expect_lines\": ${jlines}, \"by_default\": ${by_default}, \"check_version\": ${jCHECK_VERSION}, \"errata\": ${jERRATA}, \"runs\": [${runs}]}")
  ch12_append_json(CH12_ROWS "${row}")
endfunction()

# A record kept in a global property, so that it can be handed on by name
# (a record is JSON text, which is no CMake list).
function(ch12_keep_record key record)
  set_property(GLOBAL PROPERTY ${key} "${record}")
endfunction()

# The row of a program that run_all.sh runs (RUN_ALL or TRAP_OF).
function(ch12_program_table_row name)
  if(NOT P_RUN_ALL AND NOT P_TRAP_OF)
    return()
  endif()
  if("${run_record}" STREQUAL "")
    message(FATAL_ERROR "ch12_program(${name}): RUN_ALL or TRAP_OF needs a check of its run (GOLDEN or EXPECT_LINE)")
  endif()
  if(P_TRAP_OF)
    set(group trap)
  elseif("exercise" IN_LIST P_LABELS)
    set(group exercise)
  elseif(P_SECTION STREQUAL "extra")
    set(group extra)
  else()
    set(group lesson)
  endif()
  ch12_keep_record(CH12_RECORD_run_${name} "${run_record}")
  set(runs run CH12_RECORD_run_${name})
  if(NOT "${replay_record}" STREQUAL "")
    ch12_keep_record(CH12_RECORD_replay_${name} "${replay_record}")
    list(APPEND runs replay CH12_RECORD_replay_${name})
  endif()
  set(starter)
  if(P_STARTER_AS_SHIPPED)
    set(starter STARTER_AS_SHIPPED)
  endif()
  set(by_default)
  if(P_NOT_BY_DEFAULT)
    set(by_default NOT_BY_DEFAULT)
  endif()
  string(TOUPPER "${kind}" KIND)
  ch12_table_row(ID "${P_ID}" NAME ${name} KIND ${KIND} SECTION "${P_SECTION}" WHAT "${P_WHAT}"
                 GROUP ${group} OF "${P_TRAP_OF}" ERRATA "${P_ERRATA}" ${starter} ${by_default}
                 EXPECT_LINE ${P_EXPECT_LINE} RUNS ${runs})
endfunction()

function(ch12_program name)
  cmake_parse_arguments(P "RUN_ALL;NOT_BY_DEFAULT;GOLDEN;REPLAY;REPLAY_BY_LINES;STARTER_AS_SHIPPED;STANDALONE;VULKAN;HOPPER;BLOCK_SIM"
    "SOURCE;ID;SECTION;WHAT;TRAP_OF;ERRATA;EXPECT_EXIT;TIMEOUT"
    "EXPECT_LINE;ARGS;BAD_ARGS;LIBS;INCLUDES;LABELS;SANITIZE;SANITIZE_TOOLS" ${ARGN})
  ch12_reject_unknown_arguments(P "ch12_program(${name})")
  foreach(required SOURCE ID SECTION WHAT)
    if(NOT DEFINED P_${required})
      message(FATAL_ERROR "ch12_program(${name}): ${required} is missing")
    endif()
  endforeach()
  if(NOT DEFINED P_EXPECT_EXIT)
    set(P_EXPECT_EXIT 0)
  endif()
  if(NOT P_TIMEOUT)
    set(P_TIMEOUT 120)
  endif()
  if(NOT P_SANITIZE_TOOLS)
    set(P_SANITIZE_TOOLS memcheck racecheck synccheck initcheck)
  endif()

  ch12_program_kind()                       # kind, build_label, reason, labels
  ch12_program_target(${name})
  ch12_program_run_tests(${name})           # run_record, replay_record
  ch12_program_no_device_tests(${name})
  ch12_program_command_line_tests(${name})
  ch12_program_standalone_test(${name})
  ch12_program_sanitize_tests(${name})
  ch12_program_table_row(${name})
endfunction()

# ch12_row(<name> ID <id> SECTION <12.x> WHAT "<one line>" KIND <shown kind>
#          GROUP web OF <lesson id> PROGRAM <command>... [ARGS ...] CHECK ...
#          [LABELS ...] [TIMEOUT s] [UNBUILT "<reason>"])
# A row of run_all.sh's table that is no compiled program (the web page's
# output of a lesson): its test <name> is made like any other, through
# compare_output.py, and run_all.sh runs that test's command.
function(ch12_row name)
  cmake_parse_arguments(W "" "ID;SECTION;WHAT;KIND;GROUP;OF;TIMEOUT;UNBUILT" "PROGRAM;ARGS;CHECK;LABELS" ${ARGN})
  ch12_reject_unknown_arguments(W "ch12_row(${name})")
  if(NOT W_TIMEOUT)
    set(W_TIMEOUT 120)
  endif()
  ch12_test(${name} PROGRAM ${W_PROGRAM} ARGS ${W_ARGS} CHECK ${W_CHECK} LABELS ${W_LABELS}
            TIMEOUT ${W_TIMEOUT} UNBUILT "${W_UNBUILT}")
  ch12_keep_record(CH12_RECORD_row_${name} "${CH12_TEST_RECORD}")
  ch12_table_row(ID "${W_ID}" NAME ${name} KIND "${W_KIND}" SECTION "${W_SECTION}" WHAT "${W_WHAT}"
                 GROUP "${W_GROUP}" OF "${W_OF}" RUNS ${W_GROUP} CH12_RECORD_row_${name})
endfunction()

# Writes <build>/ch12_programs.json: what this build could make (and how to
# fix what not), the rows run_all.sh runs (in order), and every test's
# finished command. Call once, after every declaration.
function(ch12_write_program_table)
  get_property(rows GLOBAL PROPERTY CH12_ROWS)
  get_property(tests GLOBAL PROPERTY CH12_TESTS)
  foreach(v PROJECT_SOURCE_DIR PROJECT_BINARY_DIR CMAKE_CUDA_COMPILER CH12_NO_CUDA_REASON CH12_GLSLC CH12_NO_VULKAN_REASON)
    ch12_json_string(j_${v} "${${v}}")
  endforeach()
  set(cuda false)
  if(CH12_HAVE_CUDA)
    set(cuda true)
  endif()
  set(vulkan false)
  if(CH12_HAVE_VULKAN)
    set(vulkan true)
  endif()
  # run_all.sh builds this (nothing) first: any build runs CMake again when a
  # declaration has changed since (an exercise's starter), so the table is fresh.
  add_custom_target(ch12_table)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ch12_programs.json CONTENT "{
  \"format\": \"ch12-programs 1\",
  \"source_dir\": ${j_PROJECT_SOURCE_DIR},
  \"build_dir\": ${j_PROJECT_BINARY_DIR},
  \"cuda\": {\"configured\": ${cuda}, \"compiler\": ${j_CMAKE_CUDA_COMPILER}, \"reason\": ${j_CH12_NO_CUDA_REASON}},
  \"vulkan\": {\"configured\": ${vulkan}, \"compiler\": ${j_CH12_GLSLC}, \"reason\": ${j_CH12_NO_VULKAN_REASON}},
  \"rows\": [
${rows}
  ],
  \"tests\": [
${tests}
  ]
}
")
endfunction()
