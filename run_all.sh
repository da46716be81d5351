#!/usr/bin/env bash
# run_all.sh -- run the programs of Chapter 12 (Bitonic Sort) in book order,
# show what each one prints, check it against its golden output, and finish
# with a summary table. Made for a classroom: one command, no setup.
# ./run_all.sh --help says what it does; common/run_all.py does it, running
# the checks that the build exported (build/ch12_programs.json).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
  echo "run_all.sh: 'python3' was not found. Please install Python 3.8 or newer" \
       "(https://www.python.org, or your package manager's python3)." >&2
  exit 1
fi
exec python3 "$here/common/run_all.py" "$@"
