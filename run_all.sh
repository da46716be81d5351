#!/bin/sh
# run_all.sh -- run the programs of Chapter 12 (Bitonic Sort) in book order,
# show what each one prints, check it against its golden output, and finish
# with a summary table. Made for a classroom: one command, no setup.
# ./run_all.sh --help says what it does; common/run_all.py does it, running
# the checks that the build exported (build/ch12_programs.json).
#
# A plain POSIX sh that runs nothing before the exec: a signal that comes
# before Python has its handlers ends this script with it (bash ignores
# SIGQUIT for itself and takes a SIGINT that comes while it waits for a
# child as handled by that child; the traps cover a shell that does so).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 131' QUIT
trap 'exit 143' TERM
case $0 in
  */*) here=${0%/*} ;;
  *) here=. ;;
esac
# The Python: $CH12_PYTHON when set (the test suite sets it to the one CMake
# found), else python3 on PATH. -S: the tools use the standard library only,
# and nothing installed in site-packages changes them.
if [ -n "${CH12_PYTHON:-}" ]; then
  if [ ! -f "$CH12_PYTHON" ] || [ ! -x "$CH12_PYTHON" ] ||
     [ "$("$CH12_PYTHON" -S -c 'import sys; print("python", sys.version_info >= (3, 8))' 2>/dev/null)" != "python True" ]; then
    echo "run_all.sh: CH12_PYTHON names '$CH12_PYTHON', which is not a Python 3.8 or newer." \
         "Name one there, or unset CH12_PYTHON to use python3 on PATH." >&2
    exit 1
  fi
  exec "$CH12_PYTHON" -S "$here/common/run_all.py" "$@"
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "run_all.sh: 'python3' was not found. Please install Python 3.8 or newer" \
       "(https://www.python.org, or your package manager's python3)." >&2
  exit 1
fi
exec python3 -S "$here/common/run_all.py" "$@"
