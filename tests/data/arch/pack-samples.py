# Packs what gdb-sampler.py wrote and the program's maps into the text
# the test reads (tests/data/arch/README): the architecture, the
# mappings of the ELF files the process mapped, one line per sample; and
# copies those files, zstd-compressed, into OUTDIR.  qemu-i386 shows no
# mapping executable (and merges the pages of a file's segments into one
# mapping): there a mapping is taken as executable when it holds bytes of
# an executable PT_LOAD segment of its file (readelf -lW).
# Truth PCs that are not return addresses (the interrupted code's
# after a signal frame) are written with a "!" before them.  VDSO, for
# the aarch64 signal set: a file whose __kernel_rt_sigreturn stands for
# the trampoline page qemu-user maps without a file (the truth's PC just
# before the first exact one), mapped there as perf would map the
# [vdso] that holds the same code.
# Usage: pack-samples.py ARCH MAPS SAMPLES.jsonl OUTDIR [VDSO] > samples
import json
import os
import subprocess
import sys

arch, maps, samples, outdir = sys.argv[1:5]
vdso = sys.argv[5] if len(sys.argv) > 5 else None


def exec_ranges(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                         text=True).stdout
    ranges = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            ranges.append((int(f[1], 16), int(f[1], 16) + int(f[4], 16)))
    return ranges


print("arch", arch)
packed = set()
for line in open(maps):
    f = line.split()
    if len(f) < 6 or not f[5].startswith("/") or not os.path.isfile(f[5]):
        continue
    with open(f[5], "rb") as elf:
        if elf.read(4) != b"\x7fELF":
            continue
    start, end = (int(x, 16) for x in f[0].split("-"))
    pgoff = int(f[2], 16)
    prot = (4 if f[1][0] == "r" else 0) | (2 if f[1][1] == "w" else 0) \
        | (1 if f[1][2] == "x" else 0)
    # Only where qemu shows none (i386): a page of an aarch64 file may
    # hold the end of a read-only segment and the start of the code
    # (lld, mold), and only the mapping qemu shows executable is.
    if arch == "i386" and f[1][0] == "r" \
            and any(lo < pgoff + end - start and pgoff < hi
                    for lo, hi in exec_ranges(f[5])):
        prot |= 1
    print("map %x %x %x %d %s" % (start, end, pgoff, prot, f[5]))
    if f[5] not in packed:
        packed.add(f[5])
        subprocess.run(["zstd", "-q", "-19", "-f", f[5], "-o",
                        os.path.join(outdir,
                                     os.path.basename(f[5]) + ".zst")],
                       check=True)

lines = [json.loads(line) for line in open(samples)]
lines = [d for d in lines if "regs" in d]
if vdso is not None:
    d = next(d for d in lines if d.get("exact"))
    tramp = d["truth"][d["exact"][0] - 1]
    symbols = subprocess.run(["nm", vdso], capture_output=True,
                             text=True).stdout.split()
    at = int(symbols[symbols.index("__kernel_rt_sigreturn") - 2], 16)
    # The file's first PT_LOAD maps offset 0 at address 0: the
    # symbol's address is its offset in the file.
    print("map %x %x %x %d %s" % (tramp & ~0xfff, (tramp & ~0xfff) + 0x1000,
                                  at & ~0xfff, 5,
                                  "/qemu/" + os.path.basename(vdso)))
    subprocess.run(["zstd", "-q", "-19", "-f", vdso, "-o",
                    os.path.join(outdir, os.path.basename(vdso) + ".zst")],
                   check=True)
for d in lines:
    exact = d.get("exact", [])
    print("sample %s %s %s" % (",".join("%x" % r for r in d["regs"]),
                               ",".join(("!%x" if i in exact else "%x") % t
                                        for i, t in enumerate(d["truth"])),
                               d["stack"] or "-"))
