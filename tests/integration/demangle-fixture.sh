#!/bin/sh
# Demangled names in --summary and --chains, from the committed
# recordings of tests/data/demangle (a C++ program and a Rust program
# built with each Rust mangling, see tests/data/README): the samples
# whose leaf is the programs' busy function must name the known path up
# to main, demangled (work(int), bench::level3, ...), and with
# --no-demangle as the symbol table spells it.  Needs no perf.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
fx=$TESTS_DATA/demangle
# ~300 samples each, nearly all in the leaf.
ST_MIN_LEAF_SAMPLES=${ST_MIN_LEAF_SAMPLES:-250}

check_cxx_names "$fx" cxx-names
check_rust_names "$fx" rust-legacy legacy
check_rust_names "$fx" rust-v0 v0
finish
