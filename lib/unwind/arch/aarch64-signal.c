/* aarch64's signal frame (signal-frame.h).  A handler returns into the
   vDSO's __kernel_rt_sigreturn ("mov x8, #139; svc #0"; or into the same
   two instructions elsewhere: SA_RESTORER, qemu-user's trampoline
   page), which has no CFI since Linux 5.10 (arch/arm64/kernel/vdso/
   sigreturn.S: unwinders are to recognise the instructions).  At that
   point sp is the kernel's struct rt_sigframe (arch/arm64/kernel/
   signal.c): a siginfo (128 bytes), then a ucontext whose uc_mcontext,
   the struct sigcontext, lies 176 bytes in (uc_flags, uc_link,
   uc_stack, uc_sigmask, 120 bytes unused, aligned to 16).  The
   sigcontext holds fault_address, then x0..x30, sp, pc and pstate, 8
   bytes each (uapi asm/sigcontext.h; gdb's aarch64-linux-tdep.c reads
   them there too).  */
#include "config.h"

#include "unwind/arch/signal-frame.h"

enum
{
  X30 = 30,
  SP = 31,
  MOV_X8_NR_RT_SIGRETURN = 0xd2801168u,   /* mov x8, #139 */
  SVC_0 = 0xd4000001u,                    /* svc #0 */
  SIGINFO_SIZE = 128,
  UC_MCONTEXT = 176,
  SC_REGS = 8,                            /* after fault_address */
  SC_SP = SC_REGS + 31 * 8,
  SC_PC = SC_SP + 8,
};

/* Whether PC is at one of the trampoline's two instructions.  */
static gboolean
at_trampoline (StSampleMemory *mem, uint64_t pc)
{
  uint32_t insn, other;

  if (!st_sample_memory_read_code32 (mem, pc, &insn))
    return FALSE;
  if (insn == MOV_X8_NR_RT_SIGRETURN)
    return st_sample_memory_read_code32 (mem, pc + 4, &other)
           && other == SVC_0;
  if (insn == SVC_0)
    return st_sample_memory_read_code32 (mem, pc - 4, &other)
           && other == MOV_X8_NR_RT_SIGRETURN;
  return FALSE;
}

gboolean
st_aarch64_signal_frame (const StFrameRegs *cur, uint64_t pc,
                         StSampleMemory *mem, StFrameRegs *next,
                         uint64_t *next_pc)
{
  if (!(cur->set & (1u << SP)) || !at_trampoline (mem, pc))
    return FALSE;
  uint64_t sc = cur->regs[SP] + SIGINFO_SIZE + UC_MCONTEXT;
  uint64_t interrupted;

  if (!st_sample_memory_read (mem, sc + SC_PC, &interrupted)
      || !st_sample_memory_read (mem, sc + SC_SP, &next->regs[SP]))
    return FALSE;
  next->set = 1u << SP;
  /* Every register: the interrupted code may be a leaf whose return
     address is still in x30.  */
  for (unsigned r = 0; r <= X30; r++)
    if (st_sample_memory_read (mem, sc + SC_REGS + 8 * r, &next->regs[r]))
      next->set |= 1u << r;
  *next_pc = interrupted;
  return TRUE;
}
