# Runs inside gdb-multiarch (make-arch-fixture.sh): steps a program that
# runs under qemu-user's gdbstub ST_EVERY instructions at a time and
# writes, at every stop, one JSON line to ST_OUT: the registers in perf's
# order, the stack from SP (at most ST_STACK bytes, up to the end of the
# stack mapping), and gdb's backtrace (the truth: frame 0's PC, then every
# caller's return address; inline and tail-call frames dropped, as
# perf's samples have none).
#
# ST_HANDLERS (names of signal handlers, space-separated): only samples
# taken while one of them runs, stepping from its first instruction; the
# truth is then gdb's backtrace up to the handler's caller (the
# trampoline), followed by gdb's backtrace of the interrupted code taken
# where the signal stopped it, its first PC exact (marked "exact": not a
# return address).  gdb's own unwinding through the signal frame is not
# used: on i386 it does not recognise libc's trampolines here.
#
# ST_WINDOW (functions, space-separated): only samples taken while one
# runs, stepping from its first instruction, for the first ST_MAX_HITS
# calls (1) not nested in another; the truth is gdb's backtrace, or with
# ST_WINDOW_LEAF=1 (leaf functions, which gdb may not unwind right
# without CFI) the PC followed by the callers gdb gave at the function's
# first instruction, where the return address is at the top of the
# stack.
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


def backtrace(frame):
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
    return truth, stop


def handler_depth(frame, handlers):
    """How many frames of FRAME's chain lie above the handler's caller,
    or None when no handler is on it."""
    n = 0
    f = frame
    while f is not None and n < 64:
        if f.name() in handlers:
            return n + 1
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            n += 1
        try:
            f = f.older()
        except gdb.error:
            return None
    return None


def sample(interrupted=None, handlers=(), callers=None):
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
    truth, stop = backtrace(frame)
    if callers is not None:
        truth = [frame.pc()] + callers[0]
        stop = callers[1]
    exact = []
    if interrupted is not None:
        depth = handler_depth(frame, handlers)
        if depth is None:
            return False
        exact = [depth + 1]
        truth = truth[:depth + 1] + interrupted[0]
        stop = interrupted[1]
    out.write(json.dumps({"regs": regs, "stack": mem.hex(), "truth": truth,
                          "exact": exact, "stop": stop}) + "\n")
    return True


def sample_handlers(handlers):
    """Samples inside HANDLERS: a signal stops the program where it
    interrupts it (the interrupted backtrace), a breakpoint at each
    handler's first instruction starts the stepping."""
    stops = []
    gdb.events.stop.connect(lambda ev: stops.append(ev))
    for h in handlers:
        gdb.execute("break *%s" % h, to_string=True)
    n = 0
    interrupted = None
    while True:
        del stops[:]
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
        if gdb.selected_thread() is None or not stops:
            break
        if isinstance(stops[-1], gdb.SignalEvent):
            interrupted = backtrace(gdb.newest_frame())
            continue
        if interrupted is None:
            continue
        while sample(interrupted, handlers):
            n += 1
            try:
                gdb.execute("stepi %d" % every, to_string=True)
            except gdb.error:
                break
            if gdb.selected_thread() is None:
                break
        interrupted = None
    return n


def sample_window(functions, max_hits, leaf):
    """Samples while one of FUNCTIONS runs, from its first instruction."""
    bps = [gdb.Breakpoint("*" + f, internal=True) for f in functions]
    n = 0
    hits = 0
    while hits < max_hits:
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
        if gdb.selected_thread() is None:
            break
        hits += 1
        for bp in bps:              # the recursion's own calls: stepped
            bp.enabled = False
        callers = None
        if leaf:
            entry, stop = backtrace(gdb.newest_frame())
            callers = (entry[1:], stop)
        while handler_depth(gdb.newest_frame(), functions) is not None:
            sample(callers=callers)
            n += 1
            try:
                gdb.execute("stepi %d" % every, to_string=True)
            except gdb.error:
                break
            if gdb.selected_thread() is None:
                break
        for bp in bps:
            bp.enabled = True
    for bp in bps:
        bp.delete()
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        pass
    return n


def sample_all():
    """Every stop of stepping EVERY instructions at a time."""
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
    return n


if os.environ.get("ST_HANDLERS"):
    gdb.execute("handle all nostop noprint pass", to_string=True)
    for sig in ("SIGUSR1", "SIGSEGV"):
        gdb.execute("handle %s stop print pass" % sig, to_string=True)
    n = sample_handlers(os.environ["ST_HANDLERS"].split())
elif os.environ.get("ST_WINDOW"):
    n = sample_window(tuple(os.environ["ST_WINDOW"].split()),
                      int(os.environ.get("ST_MAX_HITS", "1")),
                      os.environ.get("ST_WINDOW_LEAF") == "1")
else:
    n = sample_all()
out.close()
gdb.write("%d samples\n" % n)
