#!/usr/bin/env python3
# A second truth for the samples of tests/data/arch (README there), made
# without any unwinder, gdb's or ours: the program runs again under
# qemu-user, one instruction per translation block, with qemu logging
# the registers before every instruction (-singlestep -d exec,cpu,nochain).
# Walking that trace keeps the call stack as the code built it: a call
# (aarch64 bl/blr, i386 call) pushes the address after it, a return
# (ret) pops up to the address it returns to (a ret to an address not on
# the stack, as i386's lazy-binding trampoline does to enter the resolved
# function, is a jump).  Each sample is found in the trace by its
# registers (every general register, the stack pointer and the PC), and
# its call stack written as the truth: the PC, then the return addresses
# innermost first, as in the samples' own truth.
#
# Usage: call-stacks.py ARCH SET   (e.g. aarch64 dyn), from anywhere;
# writes ARCH/SET.callstacks.zst.  Needs qemu-user, zstd and the
# sysroot of ARCH holding the same loader and libc as ARCH/ (Debian 12's
# libc6-dev-arm64-cross, libc6-dev-i386-cross); exits 77 without them.
# The program and its library are put back where they were recorded
# (the map lines' paths) and removed afterwards: the environment and
# paths are the recording's, so the program takes the same path.
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
arch, set_name = sys.argv[1], sys.argv[2]
sysroot = {"aarch64": "/usr/aarch64-linux-gnu",
           "i386": "/usr/i686-linux-gnu"}[arch]
qemu = {"aarch64": "qemu-aarch64", "i386": "qemu-i386"}[arch]
data = os.path.join(here, arch)


def unzstd(path):
    return subprocess.run(["zstd", "-qdc", path], check=True,
                          stdout=subprocess.PIPE).stdout


for tool in (qemu, "zstd"):
    if shutil.which(tool) is None:
        print("call-stacks.py: %s is missing, nothing done" % tool,
              file=sys.stderr)
        sys.exit(77)

# --- the recorded samples and mappings -------------------------------------
maps = []
samples = []
for line in unzstd(os.path.join(data, set_name + ".samples.zst")).decode() \
        .splitlines():
    f = line.split(" ")
    if f[0] == "map":
        maps.append((int(f[1], 16), int(f[2], 16), int(f[3], 16),
                     int(f[4]), f[5]))
    elif f[0] == "sample":
        # gdb gives i386's registers sign-extended.
        mask = (1 << 64) - 1 if arch == "aarch64" else (1 << 32) - 1
        samples.append([int(x, 16) & mask for x in f[1].split(",")])

files = {}
for start, end, pgoff, prot, path in maps:
    name = os.path.basename(path)
    if name not in files:
        files[name] = unzstd(os.path.join(data, name + ".zst"))
    if path.startswith(sysroot + "/"):
        with open(path, "rb") as f:
            if f.read() != files[name]:
                print("call-stacks.py: %s is not %s/%s, nothing done"
                      % (path, arch, name), file=sys.stderr)
                sys.exit(77)


def code(addr, n):
    """N bytes of the mapped files at ADDR (short past a mapping)."""
    for start, end, pgoff, prot, path in maps:
        if start <= addr < end:
            off = pgoff + addr - start
            return files[os.path.basename(path)][off:off + min(n, end - addr)]
    return b""


# --- the run, traced --------------------------------------------------------
program = next(p for s, e, o, x, p in maps
               if os.path.basename(p).startswith("st-arch"))
workdir = os.path.dirname(program)
if os.path.exists(workdir):
    print("call-stacks.py: %s exists, nothing done" % workdir, file=sys.stderr)
    sys.exit(1)
os.makedirs(workdir)
log = tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
try:
    for start, end, pgoff, prot, path in maps:
        if os.path.dirname(path) == workdir and not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(files[os.path.basename(path)])
            os.chmod(path, 0o755)
    # make-arch-fixture.sh's environment, its paths the recording's.
    env = {"ST_ARCH_MAPS": os.path.join(workdir, "maps"),
           "LD_LIBRARY_PATH": sysroot + "/lib"}
    subprocess.run([qemu, "-singlestep", "-d", "exec,cpu,nochain", "-D", log,
                    "-L", sysroot, program], env=env, cwd=workdir,
                   check=False, stdout=subprocess.DEVNULL)
finally:
    shutil.rmtree(workdir)

# --- the calls and returns --------------------------------------------------


def aarch64_kind(pc):
    b = code(pc, 4)
    if len(b) < 4:
        return None
    w = struct.unpack("<I", b)[0]
    if (w & 0xfc000000) == 0x94000000 or (w & 0xfffffc1f) == 0xd63f0000 \
            or (w & 0xfefff800) == 0xd63f0800:          # bl, blr, blra*
        return ("call", pc + 4)
    if (w & 0xfffffc1f) == 0xd65f0000 or w in (0xd65f0bff, 0xd65f0fff):
        return ("ret", None)                            # ret, reta*
    return None


def i386_kind(pc):
    b = code(pc, 16)
    i = 0
    while i < len(b) and b[i] in (0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0xf2,
                                  0xf3):
        i += 1
    if i >= len(b):
        return None
    op = b[i]
    if op in (0xc3, 0xc2):
        return ("ret", None)
    if op == 0xe8:
        rel = struct.unpack("<i", b[i + 1:i + 5])[0]
        after = pc + i + 5
        # call to the next instruction: getting the PC, not a call.
        return None if rel == 0 else ("call", after)
    if op == 0xff and i + 1 < len(b) and (b[i + 1] >> 3) & 7 == 2:
        modrm = b[i + 1]
        mod, rm = modrm >> 6, modrm & 7
        n = i + 2
        if mod != 3:
            if rm == 4:
                sib = b[n]
                n += 1
                if mod == 0 and sib & 7 == 5:
                    n += 4
            elif mod == 0 and rm == 5:
                n += 4
            n += {0: 0, 1: 1, 2: 4}[mod]
        return ("call", pc + n)
    return None


kind_of = aarch64_kind if arch == "aarch64" else i386_kind
# gdb took a sample every EVERY instructions (make-arch-fixture.sh's
# stepi count), the first after EVERY.  A sample is the instruction near
# there (a few instructions either way: gdb's stepping and qemu's log
# need not count the same instructions) with the sample's PC and stack
# pointer and the fewest other registers different (values the system
# gave differently on this run: a time, a random number), the nearest
# of those.  Every other instruction there with the sample's PC and
# stack pointer must have the same call stack (checked), so that a wrong
# choice among them could not change the truth.
every = {"static": 97, "dyn": 211}[set_name]
slack = 8
if arch == "aarch64":
    names = ["X%02d" % i for i in range(31)] + ["SP", "PC"]
    must_match = (31, 32)
else:
    names = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP", "EIP"]
    must_match = (7, 8)
reg_re = re.compile(r"\b(%s) ?=([0-9a-f]+)" % "|".join(names))


def trace():
    """Each instruction's registers (NAMES' order), in execution order."""
    regs = None
    with open(log) as f:
        for line in f:
            if line.startswith("Trace "):
                if regs is not None:
                    yield tuple(regs.get(n) for n in names)
                regs = {}
            elif regs is not None:
                for name, value in reg_re.findall(line):
                    regs[name] = int(value, 16)
    if regs is not None:
        yield tuple(regs.get(n) for n in names)


steps = list(trace())
os.unlink(log)
at = []                  # each sample's index in STEPS
near = []                # the indexes with its PC and stack pointer
prev = 0
inexact = 0              # samples with a register not the trace's
drift = 0                # the most instructions away from EVERY
for k, want in enumerate(samples):
    best = None
    near.append([])
    for i in range(max(prev + 1, prev + every - slack),
                   min(len(steps), prev + every + slack + 1)):
        regs = steps[i]
        if any(regs[r] != want[r] for r in must_match):
            continue
        near[-1].append(i)
        score = (sum(regs[r] != want[r] for r in range(len(names))),
                 abs(i - prev - every))
        if best is None or score < best[0]:
            best = (score, i)
    if best is None or best[0][0] > 3:
        print("call-stacks.py: sample %d not found in the trace" % k,
              file=sys.stderr)
        sys.exit(1)
    prev = best[1]
    at.append(prev)
    inexact += best[0][0] > 0
    drift = max(drift, best[0][1])

stack = []
stray_returns = 0
out = []
wanted = dict((i, k) for k, i in enumerate(at))
at_near = {}             # the call stacks at NEAR's indexes
watched = set(i for n in near for i in n)
pending = None           # the instruction before: its kind
for i, regs in enumerate(steps):
    pc = regs[len(names) - 1] if arch == "aarch64" else regs[8]
    if pending is not None:
        what, after = pending
        if what == "call":
            stack.append(after)
        elif pc in stack:
            while stack[-1] != pc:
                stack.pop()
            stack.pop()
        else:
            stray_returns += 1
    if i in watched:
        at_near[i] = tuple(stack)
    if i in wanted:
        out.append("%d %s" % (wanted[i], ",".join(
            "%x" % a for a in [pc] + stack[::-1])))
    pending = kind_of(pc)

dest = os.path.join(data, set_name + ".callstacks.zst")
for k, n in enumerate(near):
    if len(set(at_near[i] for i in n)) > 1:
        print("call-stacks.py: sample %d: its instructions near the count "
              "have different call stacks" % k, file=sys.stderr)
        sys.exit(1)
# From a file, so that the frame holds its size (the test needs it).
with tempfile.NamedTemporaryFile("w", suffix=".callstacks") as text:
    text.write("\n".join(out) + "\n")
    text.flush()
    subprocess.run(["zstd", "-q", "-19", "-f", text.name, "-o", dest],
                   check=True)
print("%s/%s.callstacks: %d samples (%d with a register other than the "
      "trace's, %d instructions away from the count at most; %d returns to "
      "an address not on the call stack, taken as jumps)"
      % (arch, set_name, len(out), inexact, drift, stray_returns))
