/* aarch64: perf's registers against the psABI's DWARF numbers, and what
   the fast engine needs to walk it.

   The DWARF registers tracked are x0..x30 and sp (0..31); the return
   address column is x30 (the link register), the frame pointer x29.
   libdw's ABI CFI keeps x19..x30 (same_value) and says nothing of sp: the
   caller's sp is the CFA, as the psABI defines it (sp_is_cfa).

   A frame without CFI (a PLT stub, _start, _init, frame_dummy, hand
   written code) is unwound as gdb's prologue analysis does it, never by
   guessing that x29 points at a frame record of this function (it is
   the caller's while the prologue has not run, and is any register with
   -fomit-frame-pointer):
     - the code before the PC, back to the previous function (a return,
       an unconditional branch, or code with CFI), is searched for the
       prologue's "stp x29, x30, [sp, #-N]!" (or "sub sp, sp, #N;
       stp x29, x30, [sp, #N-16]");
     - found: the instructions run since then say where sp stands against
       the frame record: the caller's x29 and return address are the
       record's two words, its sp the record + N;
     - not found, or the epilogue's "ldp x29, x30, [sp], #N" has run: the
       return address is still in x30 and sp is the caller's.  Only in
       frame 0: a caller's x30 is not known (it is the PC itself).
   Return addresses signed by pointer authentication (ARMv8.3 PAC, which
   perf records as they are) lose the code in their upper bits: user
   addresses have 48 bits at most.  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"
#include "unwind/arch/signal-frame.h"

enum
{
  AARCH64_X29 = 29,
  AARCH64_X30 = 30,
  AARCH64_SP = 31,
  AARCH64_N_REGS = 32,
  /* How far back the prologue is looked for: 1 KiB of code.  */
  PROLOGUE_SEARCH = 256,
};

/* A64 instructions (little-endian words), by mask and value.  */
#define IS(insn, mask, value) (((insn) & (mask)) == (value))
#define STP_FP_LR_PRE(i)    IS (i, 0xffc07fffu, 0xa9807bfdu)
#define STP_FP_LR_OFFSET(i) IS (i, 0xffc07fffu, 0xa9007bfdu)
#define STP_PRE_SP(i)       IS (i, 0xffc003e0u, 0xa98003e0u)
#define LDP_FP_LR_POST(i)   IS (i, 0xffc07fffu, 0xa8c07bfdu)
#define SUB_SP_SP_IMM(i)    IS (i, 0xff8003ffu, 0xd10003ffu)
#define ADD_SP_SP_IMM(i)    IS (i, 0xff8003ffu, 0x910003ffu)
#define ADDSUB_IMM_TO_SP(i) IS (i, 0x7f00001fu, 0x1100001fu)
#define ADDSUB_EXT_TO_SP(i) IS (i, 0x5fe0001fu, 0x4b20001fu)
#define RET(i)              IS (i, 0xfffffc1fu, 0xd65f0000u)
#define BR(i)               IS (i, 0xfffffc1fu, 0xd61f0000u)
#define B(i)                IS (i, 0xfc000000u, 0x14000000u)

/* The scaled signed offset of an STP/LDP (imm7, in 8-byte units).  */
static int64_t
pair_offset (uint32_t insn)
{
  int64_t imm7 = (insn >> 15) & 0x7f;
  return (imm7 >= 64 ? imm7 - 128 : imm7) * 8;
}

/* The immediate of an ADD/SUB (immediate): imm12, shifted by 12 when
   the sh bit is set.  */
static uint64_t
addsub_imm (uint32_t insn)
{
  uint64_t imm = (insn >> 10) & 0xfff;
  return insn & (1u << 22) ? imm << 12 : imm;
}

/* Ends the function before it: a return or an unconditional branch
   (a PLT stub's last instruction), or zeros (padding).  */
static gboolean
ends_function (uint32_t insn)
{
  return RET (insn) || BR (insn) || B (insn) || insn == 0;
}

/* The return address still in x30: SP and every register but x30 are
   the caller's.  */
static gboolean
from_link_register (const StFrameRegs *cur, const StNoCfiFrame *frame,
                    StFrameRegs *next, uint64_t *pc)
{
  if (!frame->leaf || !(cur->set & (1u << AARCH64_X30))
      || cur->regs[AARCH64_X30] == 0)
    return FALSE;
  *next = *cur;
  next->set &= ~(1u << AARCH64_X30);
  *pc = cur->regs[AARCH64_X30];
  return TRUE;
}

static gboolean
prologue_step (const StFrameRegs *cur, const StNoCfiFrame *frame,
               StFrameRegs *next, StSampleMemory *mem, uint64_t *pc)
{
  if (!(cur->set & (1u << AARCH64_SP)))
    return FALSE;
  const uint64_t sp = cur->regs[AARCH64_SP];
  uint64_t at = 0;
  uint32_t insn = 0;

  /* The prologue's store of the frame record, before the PC.  */
  for (unsigned i = 1; i <= PROLOGUE_SEARCH; i++)
    {
      uint64_t a = frame->pc - 4 * (uint64_t) i;
      if ((frame->has_cfi != NULL && frame->has_cfi (frame->user, a))
          || !st_sample_memory_read_code32 (mem, a, &insn)
          || ends_function (insn))
        break;
      if (STP_FP_LR_PRE (insn) || STP_FP_LR_OFFSET (insn))
        {
          at = a;
          break;
        }
    }
  if (at == 0)
    return from_link_register (cur, frame, next, pc);

  /* Where the frame record lies and the caller's sp, against the sp
     right after the store (ABOVE: the record's offset from it).  */
  int64_t above, size;
  if (STP_FP_LR_PRE (insn))
    {
      above = 0;
      size = -pair_offset (insn);
    }
  else
    {
      uint32_t sub;
      if (!st_sample_memory_read_code32 (mem, at - 4, &sub)
          || !SUB_SP_SP_IMM (sub))
        return FALSE;
      above = pair_offset (insn);
      size = (int64_t) addsub_imm (sub);
    }
  if (size <= 0 || above < 0 || above + 16 > size)
    return FALSE;

  /* The instructions run since: how far sp went down below it.  */
  int64_t below = 0;
  for (uint64_t a = at + 4; a < frame->pc; a += 4)
    {
      if (!st_sample_memory_read_code32 (mem, a, &insn))
        return FALSE;
      if (SUB_SP_SP_IMM (insn))
        below += (int64_t) addsub_imm (insn);
      else if (ADD_SP_SP_IMM (insn))
        below -= (int64_t) addsub_imm (insn);
      else if (STP_PRE_SP (insn))
        below -= pair_offset (insn);
      else if (LDP_FP_LR_POST (insn) && below == -above)
        /* The epilogue has run: x29 and x30 hold the caller's values
           again.  */
        return from_link_register (cur, frame, next, pc);
      else if (ADDSUB_IMM_TO_SP (insn) || ADDSUB_EXT_TO_SP (insn))
        return FALSE;      /* sp set in a way not followed */
    }
  if (below < 0)
    return FALSE;

  uint64_t record = sp + (uint64_t) below + (uint64_t) above;
  uint64_t fp, ra;
  if (!st_sample_memory_read (mem, record, &fp)
      || !st_sample_memory_read (mem, record + 8, &ra) || ra == 0)
    return FALSE;
  next->set = (1u << AARCH64_X29) | (1u << AARCH64_SP);
  next->regs[AARCH64_X29] = fp;
  next->regs[AARCH64_SP] = record - (uint64_t) above + (uint64_t) size;
  *pc = ra;
  return TRUE;
}

G_STATIC_ASSERT (AARCH64_N_REGS <= ST_FRAME_MAX_REGS);

static const uint8_t abi_same_value[] = {
  19, 20, 21, 22, 23, 24, 25, 26, 27, 28, AARCH64_X29, AARCH64_X30,
};

static const StFastArch fast = {
  .name = "aarch64",
  .machine = EM_AARCH64,
  .n_regs = AARCH64_N_REGS,
  .ra = AARCH64_X30,
  .sp = AARCH64_SP,
  .fp = AARCH64_X29,
  .elf_class = ELFCLASS64,
  .regs_abi = ST_REGS_ABI_64,
  .ra_mask = (UINT64_C (1) << 48) - 1,
  .sp_is_cfa = TRUE,
  .lean = TRUE,
  .lean_no_cfi = FALSE,         /* the step reads code and x30 */
  .abi_same_value = abi_same_value,
  .n_abi_same_value = G_N_ELEMENTS (abi_same_value),
  .signal_frame = st_aarch64_signal_frame,
  .no_cfi_step = prologue_step,
};

/* perf: X0..X29 = 0..29, LR 30, SP 31, PC 32; DWARF 0..31 are the same.
   No DWARF number for the PC.  */
const StArch st_arch_aarch64 = {
  .registers = {
    .name = "aarch64",
    .elf_machine = EM_AARCH64,
    .n_dwarf = 32,
    .perf_of_dwarf = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                       29, 30, 31 },
    .perf_ip = 32,
    .perf_sp = 31,
    .dwarf_pc = -1,
  },
  .fast = &fast,
};
