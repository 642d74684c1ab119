#!/usr/bin/env python3
"""Writes the small seed corpora of the fuzz targets (tests/fuzz/seeds/)
from the committed fixture (tests/data/fixture): the first frames of the
capture, the first records of the perf.data in file and pipe form (also
compressed as perf record -z writes them, with the zstd command), and
the registers and stacks of a few raw-stack samples.  Run it again when
the fixture changes:  python3 tests/fuzz/make-seeds.py"""
import os
import struct
import subprocess

here = os.path.dirname(os.path.abspath(__file__))
fixture = os.path.join(here, '..', 'data', 'fixture')
seeds = os.path.join(here, 'seeds')


def put(target, name, data):
    d = os.path.join(seeds, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def capture_frames(data):
    off = 256
    while off + 24 <= len(data):
        ln, _cpu, _pid, _time, typ = struct.unpack_from('<HhiqI', data, off)
        yield off, ln, typ
        off += ln


cap = open(os.path.join(fixture, 'fixture.syscap'), 'rb').read()
frames = list(capture_frames(cap))
stack_users = [f for f in frames if f[2] == 18]

# Capture: the header, every non-sample frame and the first samples.
head = [f for f in frames if f[2] != 18][:8]
body = b''.join(cap[o:o + ln] for o, ln, _ in sorted(head + stack_users[:3]))
put('capture-reader', 'fixture-start', cap[:256] + body)
put('capture-reader', 'one-stack-user',
    cap[:256] + cap[stack_users[0][0]:stack_users[0][0] + stack_users[0][1]])

# Registers and stacks of raw-stack samples.
for i, (o, ln, _) in enumerate(stack_users[:4]):
    size, tid = struct.unpack_from('<Qi', cap, o + 24)
    n_regs, abi = struct.unpack_from('<II', cap, o + 40 + size)
    regs = cap[o + 48 + size:o + 48 + size + 8 * n_regs]
    stack = cap[o + 40:o + 40 + size]
    put('unwind', 'sample-%d' % i, regs + stack)
    head_word = abi | (n_regs << 8) | (tid << 32)
    put('registers', 'sample-%d' % i,
        struct.pack('<QQ', head_word, 0xff01ff) + regs + stack[:512])

# perf.data: header, attributes, the first records; no feature sections.
perf = open(os.path.join(fixture, 'fixture.data'), 'rb').read()
(attr_size, attrs_off, attrs_size, data_off,
 data_size) = struct.unpack_from('<QQQQQ', perf, 16)
records = []
off = data_off
while off < data_off + data_size:
    _typ, _misc, size = struct.unpack_from('<IHH', perf, off)
    records.append(perf[off:off + size])
    off += size
# Up to the third sample, and the last records (rounds, exit).
data = b''.join(records[:21] + records[-3:])
header = bytearray(perf[:data_off])
struct.pack_into('<QQ', header, 40, data_off, len(data))
struct.pack_into('<32x', header, 72)          # no feature sections
put('perf-file', 'fixture-start', bytes(header) + data)

# Pipe mode: the attributes as HEADER_ATTR records, then the records.
pipe = b''
for a in range(attrs_size // attr_size):
    entry = perf[attrs_off + a * attr_size:attrs_off + (a + 1) * attr_size]
    attr = entry[:attr_size - 16]
    ids_off, ids_size = struct.unpack_from('<QQ', entry, attr_size - 16)
    ids = perf[ids_off:ids_off + ids_size]
    pipe += struct.pack('<IHH', 64, 0, 8 + len(attr) + len(ids)) + attr + ids
put('perf-pipe', 'fixture-start', pipe + data)


# perf record -z: the same records as one zstd frame (zstd command),
# cut into compressed records of at most 300 bytes at any point, as
# COMPRESSED (perf 6.1) and COMPRESSED2 (data size, data padded to 8).
def compressed(v2):
    frame = subprocess.run(['zstd', '-1', '-c', '--no-check', '-q'],
                           input=data, stdout=subprocess.PIPE,
                           check=True).stdout
    out = b''
    for at in range(0, len(frame), 300):
        chunk = frame[at:at + 300]
        if v2:
            body = struct.pack('<Q', len(chunk)) + chunk
            body += b'\0' * (-len(body) % 8)
            out += struct.pack('<IHH', 83, 0, 8 + len(body)) + body
        else:
            out += struct.pack('<IHH', 81, 0, 8 + len(chunk)) + chunk
    return out


# HEADER_COMPRESSED (feature 27): version, zstd, level, ratio, mmap_len.
comp_feature = struct.pack('<IHHQIIIII', 80, 0, 36, 27, 0, 1, 1, 4, 528384)
put('perf-pipe', 'compressed', pipe + comp_feature + compressed(False))
put('perf-pipe', 'compressed2', pipe + comp_feature + compressed(True))
zdata = compressed(False)
struct.pack_into('<QQ', header, 40, data_off, len(zdata))
put('perf-file', 'compressed', bytes(header) + zdata)

# .eh_frame of the fixture program: its first entries (a CIE and some
# FDEs, cut at an entry's end, then the zero terminator), alone (mode 0)
# and with an .eh_frame_hdr search table of those FDEs (mode 1), laid out
# as fuzz-eh-frame.c builds its ELF (.eh_frame_hdr at 0x1000, .eh_frame
# at 0x2000).
elf = open(os.path.join(fixture, 'st-fixture'), 'rb').read()
(shoff,) = struct.unpack_from('<Q', elf, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)


def section(i):
    return struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)


names_off = section(shstrndx)[4]
for i in range(shnum):
    sh = section(i)
    name = elf[names_off + sh[0]:elf.index(b'\0', names_off + sh[0])]
    if name == b'.eh_frame':
        eh_addr, eh = sh[3], elf[sh[4]:sh[4] + sh[5]]
off, fdes = 0, []
while off + 8 <= len(eh) and off < 1500:
    length, cie_id = struct.unpack_from('<II', eh, off)
    if length == 0:
        break
    if cie_id != 0:
        fdes.append(off)
    off += 4 + length
frame = eh[:off] + b'\0\0\0\0'
put('eh-frame', 'fixture-alone', b'\0\0' + frame)
HDR, FRAME = 0x1000, 0x2000
table = []
for o in fdes:
    (rel,) = struct.unpack_from('<i', frame, o + 8)
    table.append((FRAME + o + 8 + rel, FRAME + o))
table.sort()
hdr = struct.pack('<BBBBiI', 1, 0x1b, 0x03, 0x3b, FRAME - (HDR + 4),
                  len(table))
for start, fde in table:
    hdr += struct.pack('<ii', start - HDR, fde - HDR)
put('eh-frame', 'fixture-table', bytes([1, len(hdr) // 4]) + hdr + frame)
