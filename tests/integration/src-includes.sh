#!/bin/sh
# The command is built on the public header: a file of src/ includes
# nothing from lib/ but <stacktrace-1/stacktrace.h> (issue 32).  Read
# from the #include lines of src/*.c and src/*.h: a name found under
# lib/ (and not in src/ itself), or any stacktrace-1/ header but the
# umbrella one, is the library's inside.  The files that do not comply
# yet are listed below with the very headers they still include, so
# that none gains a new one; a file that no longer needs one fails
# too, until its line here is shortened (the list only shrinks).
. "$TESTS_SRCDIR/lib/test-lib.sh"

top=$TESTS_SRCDIR/..
[ -d "$top/src" ] && [ -d "$top/lib" ] || die "no src/ or lib/ under $top"

# FILE: the internal headers it may still include.
cat > "$tmp/allowed" <<'LIST'
src/stacktrace.c: format/reader.h format/writer.h model/debuginfod-library.h pipeline.h util/domain.h util/mapping-guard.h
src/live.c: api/api-private.h
src/live.h: format/reader.h pipeline.h
src/options.h: model/event.h pipeline.h
src/live-unwinder.c: live/capture-pacer.h live/proc-scan.h live/ring-source.h
src/live-unwinder.h: format/writer.h
src/record.c: live/perf-events.h live/proc-scan.h live/ring-source.h util/domain.h
src/record.h: format/writer.h
src/record-child.c: util/domain.h
LIST
# Why each is still there:
# - stacktrace.c, live.[ch], options.h: the command still drives the
#   pipeline, reader and writer itself (and takes the statistics from
#   the pipeline through lib/api's private constructors): until it runs
#   on StStream (issue 32, stage 3's last step).
# - live-unwinder.[ch], record.[ch], record-child.c: the live rings,
#   the /proc scan, the perf events and the capture pacer, which get a
#   public level of their own (the live-queue work of issue 32).

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
  allowed=$(grep -F -e "$rel:" "$tmp/allowed" | sed 's/^[^:]*: *//' \
            | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
  checked=$((checked + 1))
  [ "$found" = "$allowed" ] && continue
  if [ -z "$allowed" ]; then
    fail "$rel includes the library's inside: $found (only <stacktrace-1/stacktrace.h> is allowed)"
  else
    fail "$rel includes '$found' from lib/, listed: '$allowed' (a new one is refused; one no longer needed: shorten the list in $0)"
  fi
done
[ "$checked" -gt 0 ] || die "no files in $top/src"
echo "$checked files of src/ checked; $(wc -l < "$tmp/allowed") still include internal headers"
finish
