/* i386's signal frames (signal-frame.h).  A handler returns into one of
   two trampolines: the vDSO's __kernel_sigreturn or libc's __restore
   ("pop %eax; mov $119, %eax; int $0x80", for a handler without
   SA_SIGINFO) and __kernel_rt_sigreturn or __restore_rt ("mov $173,
   %eax; int $0x80").  The handler's return popped the frame's pretcode,
   so esp is at the kernel's struct sigframe_ia32 or rt_sigframe_ia32
   (arch/x86/include/asm/sigframe.h) past that word:
     - sigreturn: sig, then the struct sigcontext (after the "pop": at
       esp);
     - rt_sigreturn: sig, pinfo, puc, the pointer to the ucontext whose
       uc_mcontext lies 20 bytes in (uc_flags, uc_link, uc_stack).
   The sigcontext's registers (uapi asm/sigcontext.h, struct
   sigcontext_32): gs fs es ds, then edi esi ebp esp ebx edx ecx eax at
   16..44, trapno err, eip at 56.  gdb's i386-linux-tdep.c reads the
   same.  */
#include "config.h"

#include "unwind/arch/signal-frame.h"

enum
{
  I386_ESP = 4,
  I386_EIP = 8,
  UC_MCONTEXT = 20,
  SC_EIP = 56,
};

/* The sigcontext offset of each DWARF register: eax ecx edx ebx esp ebp
   esi edi.  */
static const uint8_t sc_of_dwarf[] = { 44, 40, 36, 32, 28, 24, 20, 16 };

/* "pop %eax; mov $119, %eax; int $0x80" and "mov $173, %eax;
   int $0x80".  */
static const uint8_t sigreturn_code[] = {
  0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80,
};
static const uint8_t rt_sigreturn_code[] = {
  0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80,
};

/* Whether the code at START is CODE[0..LEN).  */
static gboolean
code_is (StSampleMemory *mem, uint64_t start, const uint8_t *code,
         size_t len)
{
  for (size_t i = 0; i < len; i += 4)
    {
      uint32_t word;
      if (!st_sample_memory_read_code32 (mem, start + i, &word))
        return FALSE;
      for (size_t j = i; j < len && j < i + 4; j++)
        if (((word >> (8 * (j - i))) & 0xff) != code[j])
          return FALSE;
    }
  return TRUE;
}

/* Where the sigcontext is when the trampoline stands at PC with stack
   pointer ESP; FALSE when PC is at none of its instructions.  */
static gboolean
sigcontext_at (StSampleMemory *mem, uint64_t pc, uint64_t esp, uint64_t *sc)
{
  /* The instructions' offsets in the code: the sigcontext is past "sig"
     until the "pop %eax" has run.  */
  static const uint8_t sigreturn_insn[] = { 0, 1, 6 };
  for (size_t i = 0; i < G_N_ELEMENTS (sigreturn_insn); i++)
    if (code_is (mem, pc - sigreturn_insn[i], sigreturn_code,
                 sizeof sigreturn_code))
      {
        *sc = sigreturn_insn[i] == 0 ? esp + 4 : esp;
        return TRUE;
      }
  static const uint8_t rt_sigreturn_insn[] = { 0, 5 };
  for (size_t i = 0; i < G_N_ELEMENTS (rt_sigreturn_insn); i++)
    if (code_is (mem, pc - rt_sigreturn_insn[i], rt_sigreturn_code,
                 sizeof rt_sigreturn_code))
      {
        uint64_t puc;
        if (!st_sample_memory_read (mem, esp + 8, &puc))
          return FALSE;
        *sc = puc + UC_MCONTEXT;
        return TRUE;
      }
  return FALSE;
}

gboolean
st_i386_signal_frame (const StFrameRegs *cur, uint64_t pc,
                      StSampleMemory *mem, StFrameRegs *next,
                      uint64_t *next_pc)
{
  uint64_t sc, eip;

  if (!(cur->set & (1u << I386_ESP))
      || !sigcontext_at (mem, pc, cur->regs[I386_ESP], &sc)
      || !st_sample_memory_read (mem, sc + SC_EIP, &eip))
    return FALSE;
  next->set = 0;
  for (unsigned r = 0; r < G_N_ELEMENTS (sc_of_dwarf); r++)
    if (st_sample_memory_read (mem, sc + sc_of_dwarf[r], &next->regs[r]))
      next->set |= 1u << r;
  if (!(next->set & (1u << I386_ESP)))
    return FALSE;
  next->regs[I386_EIP] = eip;
  next->set |= 1u << I386_EIP;
  *next_pc = eip;
  return TRUE;
}
