/* x86_64: perf's registers, and everything the fast engine needs.

   libdwfl (elfutils 0.188) tracks DWARF registers 0..16 (rax..r15 and
   the return address column, rip).  Before every CIE, libdw runs the
   backend's ABI CFI: rax, rbp, r12-r15 and rip same_value, rsp the CFA
   itself (val_offset 0), the CFA and every other register undefined.
   Where no CFI covers a PC it unwinds by frame pointer (the backend's
   ebl_unwind), which is reproduced here read for read, so both engines
   walk such frames the same way:
     rbp must be known and non-zero;
     the caller's rbp is the word at rbp (0 if unreadable);
     the return address is the word at rbp + 8 (unreadable: stop);
     the caller's rsp is rbp + 16, which must lie above the callee's rsp
     (else the "frame" is garbage: stop);
   every other register of the caller is unknown.  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"
#include "unwind/arch/x86_64-code.h"

enum
{
  X86_64_RAX = 0,
  X86_64_RBP = 6,
  X86_64_RSP = 7,
  X86_64_R12 = 12,
  X86_64_R13 = 13,
  X86_64_R14 = 14,
  X86_64_R15 = 15,
  X86_64_RIP = 16,
  X86_64_N_REGS = 17,
};

static gboolean
frame_pointer_step (const StFrameRegs *cur, const StNoCfiFrame *frame,
                    StFrameRegs *next, StSampleMemory *mem, uint64_t *pc)
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

static const uint8_t abi_same_value[] = {
  X86_64_RAX, X86_64_RBP, X86_64_R12, X86_64_R13, X86_64_R14, X86_64_R15,
  X86_64_RIP,
};

static const StFastArch fast = {
  .name = "x86_64",
  .machine = EM_X86_64,
  .n_regs = X86_64_N_REGS,
  .ra = X86_64_RIP,
  .sp = X86_64_RSP,
  .fp = X86_64_RBP,
  .elf_class = ELFCLASS64,
  .regs_abi = ST_REGS_ABI_64,
  .ra_mask = ~(uint64_t) 0,
  .sp_is_cfa = FALSE,           /* the ABI CFI says it */
  .lean = TRUE,
  .lean_no_cfi = TRUE,
  .abi_same_value = abi_same_value,
  .n_abi_same_value = G_N_ELEMENTS (abi_same_value),
  .no_cfi_step = frame_pointer_step,
  .leaf_rule = st_x86_64_leaf_rule,
  .follows_call = st_x86_64_follows_call,
};

/* perf: AX0 BX1 CX2 DX3 SI4 DI5 BP6 SP7 IP8 ... R8..R15 = 16..23.
   DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, rip 16.  */
const StArch st_arch_x86_64 = {
  .registers = {
    .name = "x86_64",
    .elf_machine = EM_X86_64,
    .n_dwarf = 16,
    .perf_of_dwarf = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22,
                       23 },
    .perf_ip = 8,
    .perf_sp = 7,
    .dwarf_pc = X86_64_RIP,
  },
  .fast = &fast,
};
