/* One descriptor per architecture, each in a file of its own
   (x86_64.c, i386.c, aarch64.c), and the lookups by ELF machine.

   A descriptor holds what the unwinders know of an architecture: how
   perf numbers its user registers against the psABI's DWARF numbers
   (StRegisterLayout, registers.h), and, for the architectures the fast
   engine walks itself, the registers it tracks, the return address,
   stack and frame pointer columns, the ABI's initial CFI and the step
   for frames without CFI (StFastArch, fast-arch.h).  An architecture
   without the latter is unwound by libdwfl whole.  Adding one is adding
   a file here and a line to the table in arch.c.  */
#ifndef ST_ARCH_H
#define ST_ARCH_H

#include "unwind/fast-arch.h"
#include "unwind/registers.h"

typedef struct
{
  StRegisterLayout registers;
  const StFastArch *fast;       /* NULL: libdwfl unwinds it whole */
} StArch;

extern const StArch st_arch_x86_64;
extern const StArch st_arch_i386;
extern const StArch st_arch_aarch64;

/* The descriptor of ELF machine MACHINE, or NULL.  */
const StArch *st_arch (int machine);

#endif /* ST_ARCH_H */
