/* A CFA program -- a CIE's initial instructions or an FDE's -- run as
   libdw 0.188 runs it (execute_cfi in dwarf_cfi_addrframe), its rows
   given as libdw would describe them (StCfiRow).  The facts it follows,
   each checked against libdw by tests/unit/unwind/test-eh-frame.c:

   - the initial state is the architecture's ABI CFI (fast-arch.h; for
     x86_64 registers 0, 6, 12-16 same_value, rsp the CFA itself, the
     CFA undefined; any other register undefined), then the CIE's
     initial instructions (which may not advance or restore);
   - def_cfa_register and def_cfa_offset make a CFA that is not
     register + offset invalid (libdw then gives no CFA);
   - remember_state saves the whole row, CFA included, and
     restore_state brings it all back;
   - restore gives a register back its rule from the initial state;
   - offsets are computed modulo 2^64, as libdw's Dwarf_Word;
   - a row ends where the location moves; libdw runs a program no
     further than the end of the row it was asked for.

   What else a program holds it leaves to libdw (the run fails): DWARF
   expressions, DW_CFA_GNU_window_save, unknown opcodes, register
   numbers beyond 127, states remembered more than 16 deep, locations
   going backwards, truncated operands.  */
#ifndef ST_CFA_PROGRAM_H
#define ST_CFA_PROGRAM_H

#include <glib.h>
#include <stdint.h>

#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"

/* The rules while a program runs: what libdw's Dwarf_Frame holds, for
   the registers the fast engine tracks (the others cannot change its
   rules).  */
typedef struct
{
  uint8_t cfa;          /* undefined, register + offset, or invalid */
  uint64_t cfa_reg;
  uint64_t cfa_offset;
  StCfiReg regs[ST_FRAME_MAX_REGS];
} StCfaState;

/* What a program needs of its CIE.  */
typedef struct
{
  uint64_t code_align;
  uint64_t data_align;  /* signed, as libdw multiplies it */
  uint8_t fde_encoding; /* DW_EH_PE_* of set_loc's operand */
  gboolean signal;      /* 'S' */
  int ra;               /* return address column */
  unsigned n_regs;      /* the architecture's tracked registers: rows
                           give the rules of these only */
  StCfaState initial;   /* after the CIE's instructions: FDEs start
                           from it, restore goes back to it */
} StCfaCie;

/* Runs ARCH's ABI defaults, then the CIE's initial instructions
   [P, END) into CIE->INITIAL; FALSE when left to libdw.  */
gboolean st_cfa_run_cie (StCfaCie *cie, const StFastArch *arch,
                         const uint8_t *p, const uint8_t *end);

/* Called for a row of an FDE: [START, END) and its rules.  */
typedef void (*StCfiRowFunc) (uint64_t start, uint64_t end,
                              const StCfiRow *row, void *user);

/* Runs the program [P, END) (at address P_VADDR) of an FDE of CIE
   covering [START, FDE_END), calling FUNC for each of its non-empty
   rows in address order (ALL), or only for the one holding FIND (and
   only as far as its end).  FALSE when that part holds what is left to
   libdw; FUNC may have been called for rows before it.  */
gboolean st_cfa_run_fde (const StCfaCie *cie, const uint8_t *p,
                         const uint8_t *end, uint64_t p_vaddr,
                         uint64_t start, uint64_t fde_end, gboolean all,
                         uint64_t find, StCfiRowFunc func, void *user);

#endif /* ST_CFA_PROGRAM_H */
