#!/bin/sh
# Remakes the aarch64 and i386 fixtures of tests/data/arch (README):
# builds st-arch.c static and as a dynamic PIE with a shared library,
# runs each under qemu-user's gdbstub, samples it with gdb-multiarch
# every few instructions (gdb-sampler.py: registers, stack, gdb's
# backtrace as the truth) and packs the samples and every file they
# reference, zstd-compressed.  Needs gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross, gcc-i686-linux-gnu, libc6-dev-i386-cross,
# qemu-user, gdb-multiarch, zstd and python3; exits 77 without them.
# The signal sets (st-arch-signal.c) sample only inside the signal
# handlers (gdb-sampler.py, ST_HANDLERS); aarch64's runs on a CPU
# without SVE (gdb 13 rejects the SVE record qemu's default CPU puts in
# the signal frame) and has its trampoline page stand for a vDSO
# (vdso-aarch64.S).
# Usage: [ST_SETS="static dyn signal"] make-arch-fixture.sh [aarch64|i386]...
set -e
here=$(cd "$(dirname "$0")" && pwd)
for tool in aarch64-linux-gnu-gcc i686-linux-gnu-gcc qemu-aarch64 qemu-i386 \
            gdb-multiarch zstd python3 readelf ss; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "make-arch-fixture.sh: $tool is missing, nothing done" >&2
    exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cflags="-O2 -g0 -fomit-frame-pointer -fasynchronous-unwind-tables"

# sample ARCH QEMU SYSROOT PROGRAM EVERY OUT
sample ()
{
  arch=$1 qemu=$2 sysroot=$3 prog=$4 every=$5 out=$6 handlers=${7:-}
  vdso=${8:-}
  port=$((20000 + $$ % 20000))
  # gdb learns of ld.so and the libraries from the target (qemu-i386's
  # gdbstub does not tell it): a first run gives the maps (qemu-user
  # places everything the same way every run), and each library is
  # given to gdb at its load address.
  : >"$work/symbols.gdb"
  if [ "$arch" = i386 ]; then
    env -i ST_ARCH_MAPS="$work/maps" LD_LIBRARY_PATH="$sysroot/lib" \
      $qemu -L "$sysroot" "$work/$prog" || true
    awk '$3 == "00000000" && $6 ~ /\.so/ { split ($1, a, "-");
           print "add-symbol-file " $6 " -o 0x" a[1] }' "$work/maps" \
      >"$work/symbols.gdb"
  fi
  env -i ST_ARCH_MAPS="$work/maps" LD_LIBRARY_PATH="$sysroot/lib" \
    $qemu -L "$sysroot" -g "$port" "$work/$prog" &
  qpid=$!
  # Wait for the stub to listen (a connection would start the program).
  i=0
  until ss -ltn | grep -q ":$port " || [ $i -gt 100 ]; do
    i=$((i + 1))
    sleep 0.1
  done
  ST_HANDLERS=$handlers ST_EVERY=$every ST_STACK=8192 ST_ARCH=$arch ST_OUT="$work/$prog.jsonl" \
    gdb-multiarch -nx -batch -ex 'set pagination off' \
      -ex 'set confirm off' -ex 'set backtrace past-main on' \
      -ex "set sysroot $sysroot" \
      -ex "set solib-search-path $work:$sysroot/lib" \
      -ex "file $work/$prog" -x "$work/symbols.gdb" \
      -ex "target remote :$port" -x "$here/gdb-sampler.py" >/dev/null
  wait $qpid || true
  python3 "$here/pack-samples.py" "$arch" "$work/maps" "$work/$prog.jsonl" \
    "$here/$arch" $vdso >"$work/$out"
  zstd -q -19 -f "$work/$out" -o "$here/$arch/$out.zst"
  echo "$arch/$out: $(grep -c '^sample' "$work/$out") samples"
}

for arch in ${*:-aarch64 i386}; do
  mkdir -p "$here/$arch"
  case $arch in
    aarch64) cc=aarch64-linux-gnu-gcc qemu=qemu-aarch64
             sysroot=/usr/aarch64-linux-gnu ;;
    i386) cc=i686-linux-gnu-gcc qemu=qemu-i386 sysroot=/usr/i686-linux-gnu ;;
    *) echo "make-arch-fixture.sh: unknown architecture $arch" >&2; exit 2 ;;
  esac
  $cc $cflags -static -o "$work/st-arch-static" "$here/st-arch.c" \
    "$here/st-arch-lib.c" -Wl,--build-id
  $cc $cflags -fPIC -shared -o "$work/libst-arch.so" "$here/st-arch-lib.c" \
    -Wl,--build-id
  $cc $cflags -fPIE -pie -o "$work/st-arch-dyn" "$here/st-arch.c" \
    -L"$work" -lst-arch -Wl,-rpath,'$ORIGIN' -Wl,--build-id
  for set in ${ST_SETS:-static dyn signal}; do
    case $set in
      static)
        rm -f "$here/$arch/st-arch-static.zst" "$here/$arch/static.samples.zst"
        sample "$arch" "$qemu" $sysroot st-arch-static 97 static.samples ;;
      dyn)
        rm -f "$here/$arch/st-arch-dyn.zst" "$here/$arch/libst-arch.so.zst" \
          "$here/$arch/dyn.samples.zst"
        sample "$arch" "$qemu" $sysroot st-arch-dyn 211 dyn.samples ;;
      signal)
        rm -f "$here/$arch/st-arch-signal.zst" "$here/$arch/signal.samples.zst"
        $cc $cflags -static -o "$work/st-arch-signal" \
          "$here/st-arch-signal.c" -Wl,--build-id
        vdso=
        qemu_cpu=$qemu
        if [ "$arch" = aarch64 ]; then
          $cc -nostdlib -shared -Wl,-soname,linux-vdso.so.1 -Wl,--build-id \
            -Wl,--hash-style=sysv -o "$work/linux-vdso.so.1" \
            "$here/vdso-aarch64.S"
          vdso="$work/linux-vdso.so.1"
          qemu_cpu="$qemu -cpu cortex-a57"
        fi
        sample "$arch" "$qemu_cpu" $sysroot st-arch-signal 1 signal.samples \
          "st_on_usr1 st_on_segv" "$vdso" ;;
    esac
  done
done
