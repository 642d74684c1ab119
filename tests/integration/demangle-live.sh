#!/bin/sh
# Demangled names from real perf recordings made now: the C++ and Rust
# test programs (tests/progs/cxx-names.cc, rust-names.rs, with each Rust
# mangling this rustc offers) built, recorded and unwound; the known
# paths must be named demangled in --chains and --summary, and raw with
# --no-demangle (the checks of demangle-fixture.sh).  Skips without
# perf; the Rust part without rustc, v0 without a rustc that takes
# -C symbol-mangling-version=v0.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf
command -v g++ >/dev/null 2>&1 || skip "no g++"
src=$TESTS_SRCDIR/progs
ms=${ST_PROG_MS:-300}

# record NAME: $tmp/NAME.data of one run of $tmp/NAME.
record ()
{
  # shellcheck disable=SC2086
  $ST_PERF_RECORD -o "$tmp/$1.data" -- "$tmp/$1" "$ms" \
    >"$tmp/$1.record.log" 2>&1 || fail "$1: perf record failed"
}

g++ -O2 -fomit-frame-pointer -fasynchronous-unwind-tables \
  -o "$tmp/cxx-names" "$src/cxx-names.cc" || die "g++ failed"
record cxx-names
check_cxx_names "$tmp" cxx-names

# (A rustup proxy without a toolchain is no rustc either.)
if rustc --version >/dev/null 2>&1; then
  rust="rustc -O --crate-name bench -C debuginfo=0"
  $rust -o "$tmp/rust-legacy" "$src/rust-names.rs" >"$tmp/rustc.log" 2>&1 \
    || { cat "$tmp/rustc.log"; die "rustc failed"; }
  record rust-legacy
  check_rust_names "$tmp" rust-legacy legacy
  if $rust -C symbol-mangling-version=v0 -o "$tmp/rust-v0" \
       "$src/rust-names.rs" >"$tmp/rustc-v0.log" 2>&1; then
    record rust-v0
    check_rust_names "$tmp" rust-v0 v0
  else
    echo "rustc takes no -C symbol-mangling-version=v0: v0 not checked"
  fi
else
  echo "no rustc: the Rust names not checked"
fi
finish
