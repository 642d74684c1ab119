#!/bin/sh
# The command is built on the public header: a file of src/ includes
# nothing from lib/ but <stacktrace-1/stacktrace.h> (issue 32).  Read
# from the #include lines of src/*.c and src/*.h: a name found under
# lib/ (and not in src/ itself), or any stacktrace-1/ header but the
# umbrella one, is the library's inside.  Every file complies: none is
# excepted (the live modes run on the live level, stacktrace-1/live.h;
# the command's GError domain is its own, src/command-error.h).  The
# command is built without lib/ on its include path too, so that the
# compiler refuses what this test would.
. "$TESTS_SRCDIR/lib/test-lib.sh"

top=$TESTS_SRCDIR/..
[ -d "$top/src" ] && [ -d "$top/lib" ] || die "no src/ or lib/ under $top"

checked=0
for f in "$top"/src/*.c "$top"/src/*.h; do
  rel=src/${f##*/}
  found=
  for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f"); do
    case $h in
      stacktrace-1/stacktrace.h) continue ;;
      stacktrace-1/*) found="$found $h"; continue ;;
    esac
    if [ -f "$top/lib/$h" ] && [ ! -f "$top/src/$h" ]; then
      found="$found $h"
    fi
  done
  found=$(echo $found | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
  checked=$((checked + 1))
  [ -z "$found" ] && continue
  fail "$rel includes the library's inside: $found (only <stacktrace-1/stacktrace.h> is allowed)"
done
[ "$checked" -gt 0 ] || die "no files in $top/src"
echo "$checked files of src/ checked, all on the public header"
finish
