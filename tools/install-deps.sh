#!/usr/bin/env bash
# Installs what building and testing stacktrace needs on Debian 12.
# Used by quickstart.sh and run-tests.sh; the package list lives only here.
# Asks apt only for packages that are missing, so re-runs cost nothing.
set -euo pipefail

packages=(
  build-essential autoconf automake libtool pkg-config
  libglib2.0-dev libdw-dev libelf-dev libdebuginfod-dev
  libzstd-dev         # perf record -z (compressed perf.data)
  libiberty-dev       # demangling C++ and Rust names (--summary, --chains)
  zstd                # tests/fuzz/make-seeds.py: the compressed perf.data seeds
  elfutils debuginfod libsysprof-4-dev
  binutils lld mold   # tests/integration/linker-matrix.sh: bfd, gold, lld and mold
  linux-perf          # the perf integration tests (they skip without it)
  time python3        # make bench: peak RSS, a python capture
  gawk                # awk is gawk, as on Fedora and Arch: the tests must not
                      # lean on mawk's handling of escapes
  clang libclang-rt-14-dev   # make fuzz (libFuzzer targets)
  valgrind            # tests/integration/valgrind-fixture.sh (skips without it), callgrind in make bench
  hotspot             # tests/integration/hotspot-parser.sh: hotspot's own perf.data parser
  golang-go           # tests/integration/go-roots.sh: Go's stack roots (skips without it)
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: no dpkg-query (not Debian?); install the equivalents of:" >&2
  echo "  ${packages[*]}" >&2
  echo "install-deps: continuing without installing anything" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: as root, run:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
