# Runs inside gdb-multiarch (make-arch-fixture.sh): steps a program that
# runs under qemu-user's gdbstub ST_EVERY instructions at a time and
# writes, at every stop, one JSON line to ST_OUT: the registers in perf's
# order, the stack from SP (at most ST_STACK bytes, up to the end of the
# stack mapping), and gdb's backtrace (the truth: frame 0's PC, then every
# caller's return address; inline and tail-call frames dropped, as
# perf's samples have none).
import json
import os

import gdb

every = int(os.environ["ST_EVERY"])
stack_max = int(os.environ["ST_STACK"])
arch = os.environ["ST_ARCH"]
out = open(os.environ["ST_OUT"], "w")

if arch == "aarch64":
    names = ["x%d" % i for i in range(31)] + ["sp", "pc"]
else:
    names = ["eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "eip",
             "eflags", "cs", "ss"]


def register(frame, name):
    v = int(frame.read_register(name))
    return v & ((1 << 64) - 1)


def sample():
    frame = gdb.newest_frame()
    regs = [register(frame, n) for n in names]
    sp = regs[31] if arch == "aarch64" else regs[7]
    mem = b""
    inferior = gdb.selected_inferior()
    while len(mem) < stack_max:     # up to the end of the stack mapping
        try:
            mem += bytes(inferior.read_memory(sp + len(mem), 256))
        except gdb.error:
            break
    truth = []
    stop = ""
    f = frame
    while f is not None and len(truth) < 256:
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            truth.append(f.pc())
        try:
            older = f.older()
        except gdb.error as e:
            stop = str(e)
            break
        if older is None:
            stop = gdb.frame_stop_reason_string(f.unwind_stop_reason())
        f = older
    out.write(json.dumps({"regs": regs, "stack": mem.hex(), "truth": truth,
                          "stop": stop}) + "\n")


n = 0
while True:
    try:
        gdb.execute("stepi %d" % every, to_string=True)
    except gdb.error:
        break
    if gdb.selected_thread() is None:
        break
    try:
        sample()
        n += 1
    except gdb.error as e:
        out.write(json.dumps({"error": str(e)}) + "\n")
out.close()
gdb.write("%d samples\n" % n)
