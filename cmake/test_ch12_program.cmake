# cmake -DCASE=<case> -P cmake/test_ch12_program.cmake -- ch12_program()'s own
# check of its arguments, in script mode (no project: a declaration that got
# past the check would fail on add_executable instead, with other words).
#   CASE=unknown   an argument it does not know   -> "unknown argument(s): NO_SUCH_OPTION"
#   CASE=missing   no WHAT                         -> "WHAT is missing"
#   CASE=test      ch12_test() with an unknown one -> "unknown argument(s): GOLDEN_FILE"
set(PROJECT_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}/..)
set(PROJECT_BINARY_DIR ${CMAKE_CURRENT_BINARY_DIR})
set(Python3_EXECUTABLE python3)
set(CH12_TOOL_PYTHON python3 -S)
include(${CMAKE_CURRENT_LIST_DIR}/Ch12Programs.cmake)
if(CASE STREQUAL "unknown")
  ch12_program(bogus SOURCE bogus.cpp ID bogus SECTION extra WHAT "a declaration with a typo" NO_SUCH_OPTION 1)
elseif(CASE STREQUAL "missing")
  ch12_program(bogus SOURCE bogus.cpp ID bogus SECTION extra)
elseif(CASE STREQUAL "test")
  ch12_test(bogus TARGET bogus GOLDEN_FILE x.txt)
endif()
message(FATAL_ERROR "CASE=${CASE}: the declaration was accepted")
