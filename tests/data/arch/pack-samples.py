# Packs what gdb-sampler.py wrote and the program's maps into the text
# the test reads (tests/data/arch/README): the architecture, the
# mappings of the ELF files the process mapped, one line per sample; and
# copies those files, zstd-compressed, into OUTDIR.  qemu-i386 shows no
# mapping executable (and merges the pages of a file's segments into one
# mapping): a mapping is taken as executable when it holds bytes of an
# executable PT_LOAD segment of its file (readelf -lW).
# Usage: pack-samples.py ARCH MAPS SAMPLES.jsonl OUTDIR > samples
import json
import os
import subprocess
import sys

arch, maps, samples, outdir = sys.argv[1:5]


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
    if f[1][0] == "r" and any(lo < pgoff + end - start and pgoff < hi
                              for lo, hi in exec_ranges(f[5])):
        prot |= 1
    print("map %x %x %x %d %s" % (start, end, pgoff, prot, f[5]))
    if f[5] not in packed:
        packed.add(f[5])
        subprocess.run(["zstd", "-q", "-19", "-f", f[5], "-o",
                        os.path.join(outdir,
                                     os.path.basename(f[5]) + ".zst")],
                       check=True)
for line in open(samples):
    d = json.loads(line)
    if "regs" not in d:
        continue
    print("sample %s %s %s" % (",".join("%x" % r for r in d["regs"]),
                               ",".join("%x" % t for t in d["truth"]),
                               d["stack"] or "-"))
