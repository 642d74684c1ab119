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
# ST_SETS=linkers makes the aarch64 linker matrix (aarch64-linkers/),
# ST_SETS=vsyscall i386's __kernel_vsyscall set.
# Usage: [ST_SETS="static dyn signal linkers vsyscall"]
#        make-arch-fixture.sh [aarch64|i386]...
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

# sample ARCH QEMU SYSROOT PROGRAM EVERY OUT [HANDLERS] [VDSO]: the
# samples and files into OUTDIR (default $here/ARCH); WINDOW (functions:
# sample only while it runs) and BIND_NOW (yes: no lazy binding) from
# the caller, and WINDOW_LEAF, MAX_HITS (gdb-sampler.py).
sample ()
{
  arch=$1 qemu=$2 sysroot=$3 prog=$4 every=$5 out=$6 handlers=${7:-}
  vdso=${8:-}
  dest=${OUTDIR:-$here/$arch}
  bind=
  [ "${BIND_NOW:-}" = yes ] && bind=LD_BIND_NOW=1
  port=$((20000 + $$ % 20000))
  # gdb learns of ld.so and the libraries from the target (qemu-i386's
  # gdbstub does not tell it): a first run gives the maps (qemu-user
  # places everything the same way every run), and each library is
  # given to gdb at its load address.
  : >"$work/symbols.gdb"
  if [ "$arch" = i386 ]; then
    env -i ST_ARCH_MAPS="$work/maps" LD_LIBRARY_PATH="$sysroot/lib" $bind \
      $qemu -L "$sysroot" "$work/$prog" || true
    awk '$3 == "00000000" && $6 ~ /\.so/ { split ($1, a, "-");
           print "add-symbol-file " $6 " -o 0x" a[1] }' "$work/maps" \
      >"$work/symbols.gdb"
  fi
  env -i ST_ARCH_MAPS="$work/maps" LD_LIBRARY_PATH="$sysroot/lib" $bind \
    $qemu -L "$sysroot" -g "$port" "$work/$prog" &
  qpid=$!
  # Wait for the stub to listen (a connection would start the program).
  i=0
  until ss -ltn | grep -q ":$port " || [ $i -gt 100 ]; do
    i=$((i + 1))
    sleep 0.1
  done
  ST_WINDOW=${WINDOW:-} ST_WINDOW_LEAF=${WINDOW_LEAF:-} \
    ST_MAX_HITS=${MAX_HITS:-1} ST_HANDLERS=$handlers ST_EVERY=$every ST_STACK=8192 ST_ARCH=$arch ST_OUT="$work/$prog.jsonl" \
    gdb-multiarch -nx -batch -ex 'set pagination off' \
      -ex 'set confirm off' -ex 'set backtrace past-main on' \
      -ex "set sysroot $sysroot" \
      -ex "set solib-search-path $work/$(dirname "$prog"):$sysroot/lib" \
      -ex "file $work/$prog" -x "$work/symbols.gdb" \
      -ex "target remote :$port" -x "$here/gdb-sampler.py" >/dev/null
  wait $qpid || true
  python3 "$here/pack-samples.py" "$arch" "$work/maps" "$work/$prog.jsonl" \
    "$dest" $vdso >"$work/$out"
  zstd -q -19 -f "$work/$out" -o "$dest/$out.zst"
  echo "${dest#"$here"/}/$out: $(grep -c '^sample' "$work/$out") samples"
}

# The aarch64 linker matrix (README): st-arch-dyn and its library linked
# by each linker here in each layout, into aarch64-linkers/LINKER-LAYOUT;
# the loader and libc are aarch64/'s (the same files: checked).
linker_matrix ()
{
  # gcc finds ld.lld and ld.mold by those names in a -B directory.
  mkdir -p "$work/ld"
  for tool in ld.lld mold; do
    command -v $tool >/dev/null && ln -sf "$(command -v $tool)" \
      "$work/ld/ld.${tool#ld.}"
  done
  printf 'int main (void) { return 0; }\n' >"$work/empty.c"
  for linker in bfd gold lld mold; do
    ld="-B$work/ld/ -fuse-ld=$linker"
    if ! $cc $ld -o "$work/empty" "$work/empty.c" 2>/dev/null; then
      echo "aarch64-linkers: $linker cannot link for aarch64 here, skipped"
      continue
    fi
    for layout in pie nopie separate-code noseparate-code max-page-4k \
                  fixed; do
      lib= exe= pie=
      case $linker:$layout in
        gold:separate-code|gold:noseparate-code) continue ;;
      esac
      case $layout in
        nopie) pie=-fno-pie exe=-no-pie ;;
        separate-code) lib="-Wl,-z,separate-code" exe=$lib ;;
        noseparate-code) lib="-Wl,-z,noseparate-code" exe=$lib ;;
        max-page-4k) lib="-Wl,-z,max-page-size=0x1000" exe=$lib ;;
        fixed)
          pie=-fno-pie
          case $linker in
            lld|mold) lib="-Wl,--image-base=0x20000000"
                      exe="-no-pie -Wl,--image-base=0x10000000" ;;
            *) lib="-Wl,-Ttext-segment=0x20000000"
               exe="-no-pie -Wl,-Ttext-segment=0x10000000" ;;
          esac ;;
      esac
      variant=$linker-$layout
      dest=$here/aarch64-linkers/$variant
      mkdir -p "$work/$variant" "$dest"
      rm -f "$dest"/*.zst
      # shellcheck disable=SC2086
      $cc $cflags -fPIC -shared $ld $lib -Wl,--build-id \
        -o "$work/$variant/libst-arch.so" "$here/st-arch-lib.c"
      # shellcheck disable=SC2086
      $cc $cflags $pie $ld $exe -Wl,--build-id -o "$work/$variant/st-arch-dyn" \
        "$here/st-arch.c" -L"$work/$variant" -lst-arch -Wl,-rpath,'$ORIGIN'
      OUTDIR=$dest WINDOW=st_recurse BIND_NOW=yes \
        sample aarch64 "$qemu" $sysroot "$variant/st-arch-dyn" 7 dyn.samples
      # The loader and libc: aarch64/'s.
      for f in ld-linux-aarch64.so.1 libc.so.6; do
        if cmp -s "$dest/$f.zst" "$here/aarch64/$f.zst"; then
          rm -f "$dest/$f.zst"
        else
          echo "aarch64-linkers: $f is not aarch64/'s, kept" >&2
        fi
      done
    done
  done
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
      linkers)
        [ "$arch" = aarch64 ] && linker_matrix ;;
      vsyscall)
        [ "$arch" = i386 ] || continue
        rm -f "$here/$arch/st-arch-vsyscall.zst" \
          "$here/$arch/vsyscall.samples.zst"
        # shellcheck disable=SC2086
        $cc $cflags -static -o "$work/st-arch-vsyscall" \
          "$here/st-arch-vsyscall.c" "$here/vsyscall-i386.S" -Wl,--build-id
        WINDOW="__kernel_vsyscall st_vsyscall_nocfi" WINDOW_LEAF=1 \
          MAX_HITS=20 sample "$arch" "$qemu" $sysroot st-arch-vsyscall 1 \
          vsyscall.samples ;;
    esac
  done
done
