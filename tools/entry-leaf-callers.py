#!/usr/bin/env python3
# Issue 23's check on a real recording (x86_64): for every sample whose
# leaf is at a function's entry (on `push %rbp`, or on the `mov %rsp,%rbp`
# after it) or exit (on `ret`, or on `pop %rbp; ret`), frame #1 of
# stacktrace's --chains must be the return address the CPU will use: the
# word at SP (SP+8 once %rbp is pushed) in the sample's copy of the user
# stack, read here straight from the perf.data file.  Independent of the
# unwinder: no CFI, no frame pointers, only the recorded stack.
#
# Usage: tools/entry-leaf-callers.py PERF.DATA CHAINS MMAPS BINARY
#   PERF.DATA  perf record --call-graph=dwarf (not -z), file mode
#   CHAINS     stacktrace -f perf -i PERF.DATA --chains CHAINS -o /dev/null
#   MMAPS      the BINARY's executable MMAP2 lines of
#              `perf script --show-mmap-events` (one per process)
#   BINARY     the program whose code the leaves are in (e.g. chromium)
import struct, sys, collections, re
data_path, chains_path, maps_path, binpath = sys.argv[1:5]
d = open(data_path, 'rb').read()
assert d[:8] == b'PERFILE2'
attr_size, = struct.unpack_from('<Q', d, 16)
a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', d, 24)
attrs = []
for o in range(a_off, a_off + a_size, attr_size):
    st, = struct.unpack_from('<Q', d, o + 24)
    regs, = struct.unpack_from('<Q', d, o + 80)
    attrs.append((st, regs))
st, regs_mask = max(attrs, key=lambda a: a[1])
nregs = bin(regs_mask).count('1')
stacks = {}
o = d_off; end = d_off + d_size
while o + 8 <= end:
    typ, misc, size = struct.unpack_from('<IHH', d, o)
    if size == 0: break
    if typ == 9:
        p = o + 8
        if st & (1 << 16): p += 8
        if st & 1: p += 8
        pid = tid = None; time = None
        if st & 2: pid, tid = struct.unpack_from('<II', d, p); p += 8
        if st & 4: time, = struct.unpack_from('<Q', d, p); p += 8
        if st & 8: p += 8
        if st & (1 << 6): p += 8
        if st & (1 << 9): p += 8
        if st & (1 << 7): p += 8
        if st & (1 << 8): p += 8
        if st & (1 << 5):
            n, = struct.unpack_from('<Q', d, p); p += 8 + 8 * n
        if st & (1 << 10):
            n, = struct.unpack_from('<I', d, p); p += 4 + n
        if st & (1 << 12):
            abi, = struct.unpack_from('<Q', d, p); p += 8
            if abi: p += 8 * nregs
        if st & (1 << 13):
            sz, = struct.unpack_from('<Q', d, p); p += 8
            if sz >= 16:
                stacks[(tid, time)] = d[p:p + 16]
    o += size
maps = {}
for line in open(maps_path):
    m = re.search(r'MMAP2 (\d+)/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ 0x([0-9a-f]+) ', line)
    if m:
        maps[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
code_file = open(binpath, 'rb').read()
def code(pid, addr, n):
    if pid not in maps: return None
    s, l, off = maps[pid]
    if not (s <= addr < s + l): return None
    return code_file[off + addr - s: off + addr - s + n]
cnt = collections.Counter()
for line in open(chains_path):
    f = line.rstrip('\n').split('\t')
    pid, tid, time = int(f[0]), int(f[1]), int(f[2])
    ips = [int(x, 16) for x in f[3].split(',')] if f[3] else []
    if not ips: continue
    pc = ips[0]
    b = code(pid, pc, 8); prev = code(pid, pc - 1, 1)
    if b is None: continue
    endbr = b[:4] == b'\xf3\x0f\x1e\xfa'
    bb = b[4:] if endbr else b
    if bb[:1] == b'\x55' and bb[1:4] == b'\x48\x89\xe5': kind, at = 'entry (push %rbp next)', 0
    elif prev == b'\x55' and b[:3] == b'\x48\x89\xe5': kind, at = 'after push %rbp', 8
    elif b[:1] == b'\xc3' or b[:2] == b'\xf3\xc3': kind, at = 'at ret', 0
    elif b[:2] == b'\x5d\xc3': kind, at = 'at pop %rbp; ret', 8
    else: continue
    cnt[kind] += 1
    stk = stacks.get((tid, time))
    if stk is None: cnt[kind + ': no raw stack found'] += 1; continue
    ra, = struct.unpack_from('<Q', stk, at)
    if len(ips) < 2: cnt[kind + ': no frame #1'] += 1; continue
    if ips[1] + 1 == ra or ips[1] == ra: cnt[kind + ': frame #1 is the return address on the stack'] += 1
    else: cnt[kind + ': frame #1 DIFFERS'] += 1
for k in sorted(cnt): print('%-70s %d' % (k, cnt[k]))
