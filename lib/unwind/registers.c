/* Register numbering tables: perf_regs.h numbers on one side, the DWARF
   numbers of each psABI on the other.  */
#include "config.h"

#include <elf.h>

#include "unwind/registers.h"
#include "popcount.h"

/* x86_64 perf: AX0 BX1 CX2 DX3 SI4 DI5 BP6 SP7 IP8 ... R8..R15 = 16..23.
   DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15.  */
static const StRegisterLayout x86_64_layout = {
  "x86_64", EM_X86_64, 16,
  { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23 },
  8, 7, 16
};

/* i386 DWARF: eax ecx edx ebx esp ebp esi edi.  */
static const StRegisterLayout i386_layout = {
  "i386", EM_386, 8,
  { 0, 2, 3, 1, 7, 6, 4, 5 },
  8, 7, 8
};

/* aarch64 perf: X0..X30 = 0..30, SP 31, PC 32; DWARF 0..31 are the same.  */
static const StRegisterLayout aarch64_layout = {
  "aarch64", EM_AARCH64, 32,
  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
  32, 31, -1
};

const StRegisterLayout *
st_register_layout (int machine)
{
  switch (machine)
    {
    case EM_X86_64: return &x86_64_layout;
    case EM_386: return &i386_layout;
    case EM_AARCH64: return &aarch64_layout;
    default: return NULL;
    }
}

const StRegisterLayout *
st_register_layout_guess (const StEvent *ev)
{
  switch (ev->stack.abi)
    {
    case ST_REGS_ABI_64:
      return ev->stack.regs_mask >> aarch64_layout.perf_ip & 1
             ? &aarch64_layout : &x86_64_layout;
    case ST_REGS_ABI_32:
      return &i386_layout;
    default:
      return NULL;
    }
}

gboolean
st_event_register (const StEvent *ev, int perf_reg, uint64_t *value)
{
  uint64_t mask = ev->stack.regs_mask;

  if (perf_reg < 0 || perf_reg > 63 || !(mask & (1ull << perf_reg)))
    return FALSE;
  guint index = st_popcount64 (mask & ((1ull << perf_reg) - 1));
  if (index >= ev->stack.n_regs)
    return FALSE;
  *value = ev->stack.regs[index];
  return TRUE;
}

uint64_t
st_event_registers (const StEvent *ev, uint64_t *by_perf)
{
  uint64_t mask = ev->stack.regs_mask, present = 0;
  guint index = 0;

  while (mask != 0 && index < ev->stack.n_regs)
    {
      int reg = __builtin_ctzll (mask);
      by_perf[reg] = ev->stack.regs[index++];
      present |= 1ull << reg;
      mask &= mask - 1;
    }
  return present;
}
