#!/bin/sh
# The manual page is the one option reference: every option that
# `stacktrace --help` lists (long and short names) must be documented in
# doc/stacktrace.1, and --help must point to it.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace

man="$TESTS_SRCDIR/../doc/stacktrace.1"
[ -r "$man" ] || die "no manual page at $man"

"$STACKTRACE" --help > "$tmp/help" 2>&1 || fail "stacktrace --help failed"

# In the page, options are written \-\-name and \-x; the help lists
# "  -x, --name=ARG   text" and "  --name   text".
sed 's/\\-/-/g' "$man" > "$tmp/man"
n=0
for opt in $(sed -n 's/^  *\(-[a-zA-Z?], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' "$tmp/help") \
           $(sed -n 's/^  *\(-[a-zA-Z?]\), --.*/\1/p' "$tmp/help"); do
  n=$((n + 1))
  # The name must not be the start of a longer one (--priming in
  # --priming-cap).  Basic regular expressions ('-?' literal), and no
  # GNU '\|'.
  { grep -q -e "$opt[^a-z-]" "$tmp/man" || grep -q -e "$opt\$" "$tmp/man"; } \
    || fail "$opt is in --help but not in doc/stacktrace.1"
done
[ "$n" -ge 20 ] || fail "found only $n options in --help"
echo "$n option names of --help checked in doc/stacktrace.1"

grep -q "man stacktrace" "$tmp/help" \
  || fail "--help does not point to the manual page"

finish
