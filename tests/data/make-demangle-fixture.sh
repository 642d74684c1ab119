#!/bin/sh
# Regenerate the committed demangling fixture in tests/data/demangle/
# (see tests/data/README): build tests/progs/cxx-names.cc and
# tests/progs/rust-names.rs (the Rust program twice: legacy and v0
# mangling) in a scratch directory that is deleted afterwards, record
# each with perf (zstd-compressed, so the files stay small), and check
# that stacktrace names them.
# Usage: tests/data/make-demangle-fixture.sh [PATH-TO-STACKTRACE]
# Needs g++, rustc (one that takes -C symbol-mangling-version=v0) and a
# working perf.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)   # tests/
top=$(dirname "$here")
dest=$here/data/demangle
st=${1:-${STACKTRACE:-$top/build/src/stacktrace}}
mkdir -p "$dest"

work=$(mktemp -d /tmp/st-demangle.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Dynamic and small: the checks look at the programs' own frames, up to
# main (a machine whose C library differs still unwinds those).
g++ -O2 -fomit-frame-pointer -fasynchronous-unwind-tables \
  -o "$work/cxx-names" "$here/progs/cxx-names.cc"
rust="rustc -O --crate-name bench -C debuginfo=0 -C strip=debuginfo -C lto
  -C panic=abort -C codegen-units=1"
$rust -o "$work/rust-legacy" "$here/progs/rust-names.rs"
$rust -C symbol-mangling-version=v0 -o "$work/rust-v0" \
  "$here/progs/rust-names.rs"

for p in cxx-names rust-legacy rust-v0; do
  # ~300 samples: 150 ms at one sample per 0.5 ms of CPU; 4096 stack
  # bytes are plenty for these shallow paths.
  taskset -c 0 perf record -q -N -z -e cpu-clock -c 500000 \
    --call-graph=dwarf,4096 -o "$work/$p.data" -- "$work/$p" 150
  cp "$work/$p" "$work/$p.data" "$dest/"
  "$st" -i "$dest/$p.data" --symfs "$dest" -o /dev/null --summary
done
