#!/bin/sh
# make installcheck: what a user of the installed library does.  The
# examples are built with `pkg-config --cflags --libs stacktrace-1` from
# the installed .pc only, and their chains must be the installed
# command's --chains on the fixture (capture and perf.data).
#
#   tests/installcheck-library.sh BINDIR LIBDIR SRCDIR
set -u
bindir=$1 libdir=$2 srcdir=$3
fx=$srcdir/tests/data/fixture
tmp=$(mktemp -d "${TMPDIR:-/tmp}/st-installcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0

PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs stacktrace-1) \
  || { echo "installcheck: pkg-config does not know stacktrace-1"; exit 1; }
echo "installcheck: pkg-config stacktrace-1: $flags"
for p in unwind-chains convert; do
  # shellcheck disable=SC2086
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic \
    "$srcdir/examples/$p.c" $flags -o "$tmp/$p" \
    || { echo "installcheck: example $p does not build"; exit 1; }
done
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
for input in fixture.syscap fixture.data; do
  "$bindir/stacktrace" -q -i "$fx/$input" --symfs "$fx" -o /dev/null \
    --chains "$tmp/cmd.chains" || { echo "installcheck: stacktrace failed"; status=1; }
  "$tmp/unwind-chains" --symfs "$fx" "$fx/$input" > "$tmp/ex.chains" \
    || { echo "installcheck: unwind-chains failed on $input"; status=1; }
  if [ -s "$tmp/cmd.chains" ] && cmp -s "$tmp/cmd.chains" "$tmp/ex.chains"; then
    echo "installcheck: $input: unwind-chains gives the command's chains ($(wc -l < "$tmp/ex.chains") lines)"
  else
    echo "installcheck: $input: unwind-chains differs from stacktrace --chains"
    status=1
  fi
  "$tmp/convert" --symfs "$fx" --chains "$tmp/conv.chains" "$fx/$input" \
    "$tmp/conv.out" perf || { echo "installcheck: convert failed on $input"; status=1; }
  cmp -s "$tmp/cmd.chains" "$tmp/conv.chains" \
    || { echo "installcheck: $input: convert's chains differ"; status=1; }
done
exit $status
