#!/bin/sh
# The committed fixtures bring the recording kernel's [vdso] with them
# (tests/data/README), so that their samples in the vDSO unwind on any
# machine, whatever kernel it runs.  The running kernel's vDSO is hidden
# from stacktrace here (a preload library, harness/hide-vdso.so, makes
# getauxval (AT_SYSINFO_EHDR) answer 0), as on a machine whose kernel
# differs from the recording one:
#   - without the fixture's build-id cache the [vdso] is unusable (the
#     hiding works, and the vDSO samples then lose their callers);
#   - with it (--symfs DIR holding DIR/.build-id, and --buildid-dir),
#     every sample, the vDSO ones included, is unwound to the root, the
#     vDSO ones along __vdso_clock_gettime, clock_gettime, st_read_clock,
#     st_run, main.
# Needs no perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
shim=$TESTS_BUILDDIR/harness/hide-vdso.so
[ -f "$shim" ] || die "no $shim (make check builds it)"
# The sanitizer runtime wants to come first; the shim is not sanitized.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS

# hidden LABEL ARGS...: stacktrace -v without a vDSO of its own.
hidden ()
{
  h_label=$1
  shift
  LD_PRELOAD=$shim "$STACKTRACE" -v "$@" -o /dev/null \
    --chains "$tmp/$h_label.chains" 2>"$tmp/$h_label.err"
}

# vdso_samples CHAINS: the samples whose leaf is in the vDSO's
# clock_gettime, and how many of them have the whole path.
vdso_samples ()
{
  awk -F '\t' '
    $5 ~ /^(__vdso_)?clock_gettime;/ {
      n++
      if ($5 ~ /^(__vdso_)?clock_gettime;(__)?clock_gettime;st_read_clock;st_run;main;__libc_start_call_main;__libc_start_main(_impl)?;_start$/)
        whole++
    }
    END { printf "%d %d\n", n, whole }' "$1"
}

for fx in "$TESTS_DATA/fixture" "$TESTS_DATA/fixture-lld"; do
  f=$(basename "$fx")
  for file in fixture.syscap fixture.data; do
    [ -f "$fx/$file" ] || die "$fx/$file missing"
  done
  ls "$fx"/.build-id/*/* >/dev/null 2>&1 \
    || die "$f: no .build-id directory (tests/data/make-fixture.sh makes it)"

  echo "== $f: the shim hides the running kernel's vDSO"
  mkdir -p "$tmp/$f-bare"
  cp "$fx"/st-fixture* "$tmp/$f-bare/"
  if hidden "$f-bare" -i "$fx/fixture.syscap" --symfs "$tmp/$f-bare"; then
    grep -q '\[vdso\]: unusable' "$tmp/$f-bare.err" \
      || fail "$f: the [vdso] was usable without its copy: the shim did not hide ours"
  else
    fail "$f-bare: stacktrace failed"
  fi

  for input in fixture.syscap fixture.data; do
    for how in symfs buildid-dir; do
      label=$f-$input-$how
      echo "== $label"
      if [ $how = symfs ]; then
        set -- --symfs "$fx"
      else
        set -- --symfs "$tmp/$f-bare" --buildid-dir "$fx"
      fi
      if ! hidden "$label" -i "$fx/$input" "$@"; then
        fail "$label: stacktrace failed"
        tail -n 5 "$tmp/$label.err"
        continue
      fi
      grep -q '\[vdso\]: unusable' "$tmp/$label.err" \
        && fail "$label: the fixture's [vdso] was not used"
      grep -E '^stacktrace: total:' "$tmp/$label.err" | sed "s/^/$label: /"
      set -- $(vdso_samples "$tmp/$label.chains")
      echo "$label: $1 sample(s) in the vDSO, $2 with the whole path"
      [ "$1" -ge 5 ] || fail "$label: fewer than 5 samples in the vDSO"
      [ "$1" -eq "$2" ] || fail "$label: vDSO samples without their callers"
      grep -q '^stacktrace: total: \([0-9]*\) samples, \1 unwound to the root' \
        "$tmp/$label.err" || fail "$label: not every sample unwound to the root"
    done
  done
done
finish
