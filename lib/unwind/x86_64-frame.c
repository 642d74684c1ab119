/* x86_64 for the fast engine.  libdwfl (elfutils 0.188) tracks DWARF
   registers 0..16 (rax..r15 and the return address column, rip) and,
   where no CFI covers a PC, unwinds by frame pointer (the x86_64
   backend's ebl_unwind), which is reproduced here read for read, so both
   engines walk such frames the same way:
     rbp must be known and non-zero;
     the caller's rbp is the word at rbp (0 if unreadable);
     the return address is the word at rbp + 8 (unreadable: stop);
     the caller's rsp is rbp + 16, which must lie above the callee's rsp
     (else the "frame" is garbage: stop);
   every other register of the caller is unknown.  */
#include "config.h"

#include <elf.h>

#include "unwind/fast-arch.h"

enum
{
  X86_64_RBP = 6,
  X86_64_RSP = 7,
  X86_64_RIP = 16,
  X86_64_N_REGS = 17,
};

static gboolean
x86_64_frame_pointer_step (const StFrameRegs *cur, StFrameRegs *next,
                           StSampleMemory *mem, uint64_t *pc)
{
  if (!(cur->set & (1u << X86_64_RBP)) || cur->regs[X86_64_RBP] == 0)
    return FALSE;
  uint64_t fp = cur->regs[X86_64_RBP];
  uint64_t sp = (cur->set & (1u << X86_64_RSP)) ? cur->regs[X86_64_RSP] : 0;
  uint64_t prev_fp, ret;

  if (!st_sample_memory_read (mem, fp, &prev_fp))
    prev_fp = 0;
  if (!st_sample_memory_read (mem, fp + 8, &ret))
    return FALSE;
  next->set = (1u << X86_64_RBP) | (1u << X86_64_RSP);
  next->regs[X86_64_RBP] = prev_fp;
  next->regs[X86_64_RSP] = fp + 16;
  *pc = ret;
  /* The stack pointer must move up, or this was no frame.  */
  return sp < fp + 16;
}

G_STATIC_ASSERT (X86_64_N_REGS <= ST_FRAME_MAX_REGS);

static const StFastArch x86_64_arch = {
  "x86_64", EM_X86_64, X86_64_N_REGS, X86_64_RIP, X86_64_RSP, X86_64_RBP,
  x86_64_frame_pointer_step
};

const StFastArch *
st_fast_arch (int machine)
{
  return machine == EM_X86_64 ? &x86_64_arch : NULL;
}
