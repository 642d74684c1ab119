#!/bin/sh
# The linker-and-layout matrix: uses-lib and its library (tests/progs)
# linked by every linker here (bfd, gold, lld, mold) in every layout
# (PIE, non-PIE, -z separate-code, -z noseparate-code, 2 MiB max page
# size, fixed addresses for the program and a prelinked-style library,
# static and static-pie with the library's code linked in).  For each:
#   1. libdwfl's bias of every mapped module of the running program
#      equals ours (unit/model/test-load-bias --live), which needs no perf;
#   2. recorded by perf: --engine fast and --engine dwfl give identical
#      chains, the capture converted from the recording gives them too
#      (no protection recorded there), and >= 99% of the samples whose
#      leaf is st_lib_leaf carry the whole known path to main.
# A linker that is not installed is skipped with a note; a layout a
# linker does not offer (gold: -z separate-code, -static-pie) is not
# built.  Skips (77) only when no linker but bfd can link at all.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
progs=$TESTS_SRCDIR/progs
checker=$TESTS_BUILDDIR/unit/model/test-load-bias
[ -x "$checker" ] || die "$checker not built"

CFLAGS_PROG="-O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables -I$progs"
LAYOUTS="pie nopie separate-code noseparate-code max-page-2m fixed static static-pie"

# Whether gcc links with linker $1 here.
linker_works ()
{
  printf 'int main (void) { return 0; }\n' >"$tmp/empty.c"
  gcc -fuse-ld="$1" -o "$tmp/empty-$1" "$tmp/empty.c" >/dev/null 2>&1
}

# layout_offered LINKER LAYOUT
layout_offered ()
{
  case $1:$2 in
    gold:separate-code|gold:noseparate-code|gold:static-pie) return 1 ;;
  esac
  return 0
}

# build_variant LINKER LAYOUT DIR: DIR/uses-lib (and DIR/libstcallee.so
# unless static).  Sets $static to yes or no.
build_variant ()
{
  bv_pie= bv_lib= bv_exe= static=no
  case $2 in
    pie) ;;
    nopie) bv_pie=-fno-pie bv_exe=-no-pie ;;
    separate-code) bv_lib="-Wl,-z,separate-code" bv_exe=$bv_lib ;;
    noseparate-code) bv_lib="-Wl,-z,noseparate-code" bv_exe=$bv_lib ;;
    max-page-2m) bv_lib="-Wl,-z,max-page-size=0x200000" bv_exe=$bv_lib ;;
    fixed)
      bv_pie=-fno-pie
      case $1 in
        lld|mold) bv_lib="-Wl,--image-base=0x20000000"
                  bv_exe="-no-pie -Wl,--image-base=0x10000000" ;;
        *) bv_lib="-Wl,-Ttext-segment=0x20000000"
           bv_exe="-no-pie -Wl,-Ttext-segment=0x10000000" ;;
      esac ;;
    static) static=yes bv_exe=-static ;;
    static-pie) static=yes bv_pie=-fPIE bv_exe=-static-pie ;;
  esac
  mkdir -p "$3"
  # shellcheck disable=SC2086
  if [ $static = yes ]; then
    gcc $CFLAGS_PROG $bv_pie -fuse-ld="$1" $bv_exe -o "$3/uses-lib" \
      "$progs/uses-lib.c" "$progs/callee.c"
  else
    gcc $CFLAGS_PROG -fPIC -shared -fuse-ld="$1" $bv_lib \
        -Wl,-soname,libstcallee.so -o "$3/libstcallee.so" "$progs/callee.c" \
      && gcc $CFLAGS_PROG $bv_pie -fuse-ld="$1" $bv_exe -o "$3/uses-lib" \
           "$progs/uses-lib.c" -L"$3" -lstcallee -Wl,-rpath,'$ORIGIN'
  fi
}

linkers=
for l in bfd gold lld mold; do
  if linker_works "$l"; then
    linkers="$linkers $l"
  else
    echo "note: no working $l linker here (tools/install-deps.sh installs it)"
  fi
done
case $linkers in
  *gold*|*lld*|*mold*) ;;
  *) skip "only bfd links here" ;;
esac

with_perf=no
if perf_can_record; then
  with_perf=yes
else
  echo "note: perf cannot record here: the libdwfl comparison only"
fi

variants=0
for l in $linkers; do
  for layout in $LAYOUTS; do
    layout_offered "$l" "$layout" || continue
    v=$l-$layout
    d=$tmp/$v
    variants=$((variants + 1))
    if ! build_variant "$l" "$layout" "$d" >"$tmp/$v.build.log" 2>&1; then
      cat "$tmp/$v.build.log"
      fail "$v: does not build"
      continue
    fi

    # 1. Our bias against libdwfl's, on the running program.
    if "$checker" --live "$d/uses-lib" >"$tmp/$v.bias.log" 2>&1; then
      echo "$v: bias of $(grep -c '^ok' "$tmp/$v.bias.log") mappings as libdwfl's"
    else
      grep -v '^ok' "$tmp/$v.bias.log"
      fail "$v: bias differs from libdwfl's"
    fi

    [ $with_perf = yes ] || continue

    # 2. Recorded, unwound by both engines and through a capture.
    expect=uses-lib
    [ $static = yes ] && expect=uses-lib-static
    # shellcheck disable=SC2086
    if ! $ST_PERF_RECORD -o "$d.data" -- "$d/uses-lib" ${ST_PROG_MS:-300} \
         >"$d.record.log" 2>&1; then
      cat "$d.record.log"
      fail "$v: perf record failed"
      continue
    fi
    for engine in fast dwfl; do
      run_st "$v-$engine" --engine $engine -i "$d.data" \
        -o "$d-$engine.syscap" --chains "$d-$engine.chains" \
        || fail "$v-$engine: stacktrace failed"
    done
    cmp -s "$d-fast.chains" "$d-dwfl.chains" \
      || fail "$v: --engine fast and --engine dwfl chains differ"
    if run_st "$v-passthru" -m passthru -i "$d.data" -o "$d-raw.syscap" \
       && run_st "$v-capture" -i "$d-raw.syscap" -o "$d-capture.syscap" \
            --chains "$d-capture.chains"; then
      cmp -s "$d-fast.chains" "$d-capture.chains" \
        || fail "$v: the capture's chains differ from the perf.data's"
    else
      fail "$v: the capture path failed"
    fi
    check_chains "$v" "$expect" "$d-fast.chains" || fail "$v"
  done
done
echo "$variants variants"
finish
