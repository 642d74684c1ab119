/* The table of architectures and the lookups registers.h and
   fast-arch.h declare.  */
#include "config.h"

#include <elf.h>

#include "unwind/arch/arch.h"

static const StArch *const all[] = {
  &st_arch_x86_64,
  &st_arch_i386,
  &st_arch_aarch64,
};

const StArch *
st_arch (int machine)
{
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i]->registers.elf_machine == machine)
      return all[i];
  return NULL;
}

const StRegisterLayout *
st_register_layout (int machine)
{
  const StArch *a = st_arch (machine);

  return a != NULL ? &a->registers : NULL;
}

const StFastArch *
st_fast_arch (int machine)
{
  const StArch *a = st_arch (machine);

  return a != NULL ? a->fast : NULL;
}

/* Only aarch64's perf registers go up to its PC (32); a 64-bit set
   without it is x86_64's.  */
const StRegisterLayout *
st_register_layout_guess (const StEvent *ev)
{
  const StRegisterLayout *aarch64 = &st_arch_aarch64.registers;

  switch (ev->stack.abi)
    {
    case ST_REGS_ABI_64:
      return ev->stack.regs_mask >> aarch64->perf_ip & 1
             ? aarch64 : &st_arch_x86_64.registers;
    case ST_REGS_ABI_32:
      return &st_arch_i386.registers;
    default:
      return NULL;
    }
}
