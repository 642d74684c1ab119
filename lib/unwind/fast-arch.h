/* What the fast engine needs to know of an architecture: the registers
   libdwfl tracks for it (ebl_frame_nregs), the return address, stack
   and frame pointer columns, the ABI's initial CFI (what libdw's
   backend runs before every CIE) and its unwinder for frames without
   CFI (x86_64: libdwfl's ebl_unwind, a frame pointer walk; aarch64 and
   i386: the return address where the function's code says it is, as
   gdb finds it).  One per architecture in arch/ (x86_64.c, i386.c,
   aarch64.c).  */
#ifndef ST_FAST_ARCH_H
#define ST_FAST_ARCH_H

#include <glib.h>

#include "unwind/cfi-rules.h"
#include "unwind/sample-memory.h"

/* A frame without CFI, as the step for it sees it.  */
typedef struct
{
  uint64_t pc;          /* the frame's PC (a caller's: its return address) */
  gboolean leaf;        /* frame 0: every register is the sampled one */
  /* Whether CFI covers ADDR (the code before PC is then another
     function's).  */
  gboolean (*has_cfi) (void *user, uint64_t addr);
  void *user;
} StNoCfiFrame;

typedef struct
{
  const char *name;
  int machine;               /* ELF e_machine */
  unsigned n_regs;           /* DWARF registers 0..n_regs-1 */
  unsigned ra;               /* return address column */
  unsigned sp;               /* DWARF stack pointer */
  unsigned fp;               /* DWARF frame pointer */
  int elf_class;             /* ELFCLASS32 or ELFCLASS64 of its modules */
  uint32_t regs_abi;         /* its samples' perf register ABI */
  /* Return addresses are masked with it (aarch64: the pointer
     authentication code in the bits above the address is cleared).  */
  uint64_t ra_mask;
  /* The caller's stack pointer is the CFA where the CFI says nothing of
     it (aarch64: libdw's ABI CFI leaves it undefined).  */
  gboolean sp_is_cfa;
  /* The lean walk (lean-walk.h) may run its samples (8-byte words),
     and may take its step without CFI (it reads only the stack and frame
     pointers; else the lean walk leaves such frames to the full one).  */
  gboolean lean;
  gboolean lean_no_cfi;
  /* The ABI's initial CFI: these registers same_value, the stack
     pointer the CFA itself (val_offset 0), the CFA and every other
     register undefined.  */
  const uint8_t *abi_same_value;
  unsigned n_abi_same_value;
  /* Unwinds CUR, the frame FRAME, without CFI into NEXT and *PC; FALSE
     when it cannot (the walk then stops with an error, as libdwfl's
     does).  */
  gboolean (*no_cfi_step) (const StFrameRegs *cur, const StNoCfiFrame *frame,
                           StFrameRegs *next, StSampleMemory *mem,
                           uint64_t *pc);
} StFastArch;

/* The description for ELF machine MACHINE, or NULL (arch/arch.c).  */
const StFastArch *st_fast_arch (int machine);

#endif /* ST_FAST_ARCH_H */
