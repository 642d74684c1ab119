/* perf user registers -> DWARF registers, per architecture (the
   tables: arch/, one file per architecture), and an event's registers
   by perf number.  */
#ifndef ST_REGISTERS_H
#define ST_REGISTERS_H

#include <glib.h>
#include <stdint.h>

#include "model/event.h"

#define ST_MAX_DWARF_REGS 33

typedef struct
{
  const char *name;
  int elf_machine;
  guint n_dwarf;                        /* DWARF registers 0..n_dwarf-1 */
  int8_t perf_of_dwarf[ST_MAX_DWARF_REGS]; /* -1: not sampled by perf */
  int perf_ip;
  int perf_sp;
  /* The DWARF number of the program counter when the psABI has one (the
     return address column of x86_64 and i386), or -1.  CFI may read it:
     a PLT stub's CFA expression depends on RIP.  */
  int dwarf_pc;
} StRegisterLayout;

/* The layout for ELF machine MACHINE (EM_X86_64, EM_386, EM_AARCH64), or
   NULL when unsupported (arch/arch.c).  */
const StRegisterLayout *st_register_layout (int machine);

/* The layout a raw-stack event's registers most likely follow, judged
   from the event alone (its ABI and which registers it has: only
   aarch64's perf registers go up to 32), for when no module of the
   process tells the architecture.  NULL when the event has no
   registers.  */
const StRegisterLayout *st_register_layout_guess (const StEvent *ev);

/* perf register number PERF_REG of a raw-stack event, from its compacted
   array.  FALSE when the event did not sample it.  (The unwinders read a
   sample's registers through its context, sample-context.h.)  */
gboolean st_event_register (const StEvent *ev, int perf_reg, uint64_t *value);

#endif /* ST_REGISTERS_H */
