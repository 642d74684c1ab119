#!/bin/sh
# No cycles between the library's files or folders: data flows one way
# (format -> model -> unwind -> writers, the pipeline on top, util/
# below everything).  Four graphs, each must be acyclic:
#
#   calls between files:    A -> B when lib/A.o uses a symbol lib/B.o
#                           defines (nm on the built objects);
#   includes between files: A -> B when lib/A includes lib/B, where a
#                           .c and a .h are separate nodes;
#   calls and includes between folders: the same edges between the
#                           folders of lib/ (format, model, unwind,
#                           report, util; a subfolder such as unwind/arch
#                           is part of its folder; the files directly in
#                           lib/ are the folder "lib", the pipeline on
#                           top).
#
# Why a .c and its .h are separate nodes in the include graph: a header
# that declares an interface (writer.h's StWriterOps) is included by the
# implementations' headers (capture-output.h), while the interface's
# factory (writer.c) includes those to choose one.  Nothing there is
# circular -- the implementations do not call the factory, which the
# call graph checks -- but merging writer.c and writer.h into one node
# would report it.  A real include cycle (headers including each other)
# and a real call cycle (objects calling each other) both show.
#
# Prints every cycle found (the members tsort names).  Needs nm.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v nm >/dev/null 2>&1 || skip "no nm"
command -v tsort >/dev/null 2>&1 || skip "no tsort"
libdir=$TESTS_BUILDDIR/../lib
srcdir=$TESTS_SRCDIR/../lib
[ -d "$libdir" ] || die "no built library at $libdir"

# Call edges "A B", one per line, of units named by their path below
# lib/ without the extension.
# The objects of the sources there are (not those a removed source left
# in the build tree).
( cd "$srcdir" && find . -name '*.c' | sed 's|^\./||; s|\.c$|.o|' | sort ) >"$tmp/objects"
[ -s "$tmp/objects" ] || die "no sources in $srcdir"
while read -r o; do
  unit=${o%.o}
  # libtool keeps the (position-independent) object in .libs/.
  case $o in
    */*) obj=$libdir/${o%/*}/.libs/${o##*/} ;;
    *) obj=$libdir/.libs/$o ;;
  esac
  [ -f "$obj" ] || die "$obj not built"
  nm "$obj" | awk -v u="$unit" '
    NF == 3 && $2 ~ /^[TDBRVWC]$/ { print "def", $3, u }
    NF == 2 && $1 == "U" { print "use", $2, u }'
done <"$tmp/objects" >"$tmp/symbols"
awk '
  $1 == "def" { def[$2] = $3 }
  $1 == "use" { use[++n] = $2; user[n] = $3 }
  END { for (i = 1; i <= n; i++)
          if ((use[i] in def) && def[use[i]] != user[i])
            print user[i], def[use[i]] }' "$tmp/symbols" | sort -u >"$tmp/calls"

# Include edges "A B" of files named by their path below lib/, with
# their extension.
( cd "$srcdir" && find . -name '*.[ch]' | sed 's|^\./||' | sort ) | while read -r f; do
  sed -n 's|^#include "\([^"]*\.h\)".*|\1|p' "$srcdir/$f" | while read -r h; do
    [ -f "$srcdir/$h" ] && [ "$h" != "$f" ] && echo "$f $h"
  done
done | sort -u >"$tmp/includes"

# The folder of each end (its first component below lib/, "lib" for a
# file directly in lib/), edges between different folders only.
folder_of ()
{
  awk '{ a = $1; b = $2
         if (!sub(/\/.*$/, "", a)) a = "lib"
         if (!sub(/\/.*$/, "", b)) b = "lib"
         if (a != b) print a, b }' "$1" | sort -u
}

# cycles FILE LABEL: tsort names the members of every cycle on stderr.
cycles ()
{
  if [ -s "$1" ] && ! tsort "$1" >/dev/null 2>"$tmp/tsort.err"; then
    echo "cycle in the $2 graph:"
    sed -n 's/^tsort: //p' "$tmp/tsort.err" | grep -v 'input contains a loop' \
      | sed 's/^/  /'
    fail "$2: cycle"
  else
    echo "$2: $(wc -l <"$1") edges, no cycle"
  fi
}

folder_of "$tmp/calls" >"$tmp/calls.folders"
folder_of "$tmp/includes" >"$tmp/includes.folders"
cycles "$tmp/calls" "calls between files"
cycles "$tmp/includes" "includes between files"
cycles "$tmp/calls.folders" "calls between folders"
cycles "$tmp/includes.folders" "includes between folders"
finish
