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
if ! command -v python3 >/dev/null 2>&1; then
  echo "run_all.sh: 'python3' was not found. Please install Python 3.8 or newer" \
       "(https://www.python.org, or your package manager's python3)." >&2
  exit 1
fi
exec python3 "$here/common/run_all.py" "$@"
