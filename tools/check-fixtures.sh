#!/bin/sh
# Checks that the committed test fixtures are all there (tests/data/README):
# each recording, the files it references (the program, the recording
# kernel's [vdso] in a build-id cache layout) and the fuzz regressions.
# A missing or empty one is named, so the suite fails here, loudly,
# rather than in an obscure assertion later.  Run by run-tests.sh.
data=$(cd "$(dirname "$0")/../tests/data" && pwd) || exit 1
status=0

need ()
{
  if ! [ -s "$1" ]; then
    echo "check-fixtures: missing or empty: tests/data/${1#"$data"/}" >&2
    status=1
  fi
}

for fx in fixture:st-fixture fixture-lld:st-fixture-lld; do
  dir=$data/${fx%%:*}
  need "$dir/${fx#*:}"
  need "$dir/fixture.data"
  need "$dir/fixture.syscap"
  # The [vdso] the recording's samples use, reached as perf's cache
  # reaches it: .build-id/NN/REST -> ../../[vdso]/BUILD-ID (holding vdso).
  found=0
  for link in "$dir"/.build-id/*/*; do
    [ -e "$link" ] || [ -L "$link" ] || continue
    found=1
    need "$link/vdso"
  done
  if [ $found = 0 ]; then
    echo "check-fixtures: no .build-id cache in tests/data/${fx%%:*} (its [vdso])" >&2
    status=1
  fi
done
need "$data/fixture/st-fixture.c"
[ -d "$data/fuzz-regressions" ] || {
  echo "check-fixtures: missing: tests/data/fuzz-regressions" >&2
  status=1
}
if [ $status -ne 0 ]; then
  echo "check-fixtures: the committed fixtures are incomplete: check out the" >&2
  echo "check-fixtures: whole tree again, or regenerate them with" >&2
  echo "check-fixtures: tests/data/make-fixture.sh (see tests/data/README)" >&2
fi
exit $status
