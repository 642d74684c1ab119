/* What the fast engine needs to know of an architecture: the registers
   libdwfl tracks for it (ebl_frame_nregs), the return address, stack
   and frame pointer columns, the ABI's initial CFI (what libdw's
   backend runs before every CIE) and its unwinder for frames without
   CFI (libdwfl's ebl_unwind: a frame pointer walk).  Only x86_64 has one
   (arch/x86_64.c); samples of other architectures (i386, aarch64) go to
   the libdwfl engine whole.  */
#ifndef ST_FAST_ARCH_H
#define ST_FAST_ARCH_H

#include <glib.h>

#include "unwind/cfi-rules.h"
#include "unwind/sample-memory.h"

typedef struct
{
  const char *name;
  int machine;               /* ELF e_machine */
  unsigned n_regs;           /* DWARF registers 0..n_regs-1 */
  unsigned ra;               /* return address column */
  unsigned sp;               /* DWARF stack pointer */
  unsigned fp;               /* DWARF frame pointer */
  /* The ABI's initial CFI: these registers same_value, the stack
     pointer the CFA itself (val_offset 0), the CFA and every other
     register undefined.  */
  const uint8_t *abi_same_value;
  unsigned n_abi_same_value;
  /* Unwinds CUR without CFI into NEXT and *PC; FALSE when it cannot (the
     walk then stops with an error, as libdwfl's does).  */
  gboolean (*no_cfi_step) (const StFrameRegs *cur, StFrameRegs *next,
                           StSampleMemory *mem, uint64_t *pc);
} StFastArch;

/* The description for ELF machine MACHINE, or NULL (arch/arch.c).  */
const StFastArch *st_fast_arch (int machine);

#endif /* ST_FAST_ARCH_H */
