/* A module's .eh_frame read directly: the FDE covering an address found
   through .eh_frame_hdr's binary search table, and an FDE's CFA program
   run once to give all its rows, each as libdw would describe it
   (StCfiRow), instead of one libdw query per row.

   It answers as libdw 0.188 does (dwarf_cfi_addrframe on the ELF's
   .eh_frame): the same FDE for an address, the same rules in each row,
   starting from the same initial state (the x86_64 ABI's defaults, then
   the CIE's initial instructions).  What it does not read itself it
   leaves to libdw rather than guess:

   - a whole module, when its .eh_frame_hdr has no search table of the
     usual encoding, or any FDE in it is out of order, overlaps the next,
     covers nothing, starts elsewhere than its table entry says, or has a
     CIE this reader does not understand (libdw's own lookup would then
     depend on the order of earlier lookups);
   - one FDE, when its program (or its CIE's) holds something other than
     the plain rules (a DWARF expression, e.g. the PLT's CFA, an unknown
     opcode, a register number beyond 127, an advance going backwards,
     states remembered too deep): st_eh_frame_rows then fails and the
     caller asks libdw, address by address, as before.

   Addresses are the ELF file's virtual addresses.  The reader holds
   pointers into the ELF's section data: the Elf must outlive it.  */
#ifndef ST_EH_FRAME_H
#define ST_EH_FRAME_H

#include <gelf.h>
#include <glib.h>
#include <stdint.h>

#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"

typedef struct StEhFrame StEhFrame;

/* The .eh_frame of ELF for ARCH, or NULL when this reader leaves the
   module to libdw (see above).  Reads every FDE header once to check
   the table.  */
StEhFrame *st_eh_frame_new (Elf *elf, const StFastArch *arch);
void st_eh_frame_free (StEhFrame *f);

/* The number of FDEs: their indexes are 0 .. n - 1, in address
   order.  */
guint st_eh_frame_n_fdes (const StEhFrame *f);

/* The range of FDE INDEX.  */
void st_eh_frame_range (const StEhFrame *f, int index, uint64_t *start,
                        uint64_t *end);

/* Bytes the reader holds.  */
gsize st_eh_frame_size (const StEhFrame *f);

/* The index of the FDE covering ADDR, with its range in *START, *END;
   -1 when .eh_frame does not cover ADDR.  */
int st_eh_frame_find (const StEhFrame *f, uint64_t addr, uint64_t *start,
                      uint64_t *end);

/* Called for each row of an FDE in address order: [START, END) and its
   rules.  */
typedef void (*StEhRowFunc) (uint64_t start, uint64_t end,
                             const StCfiRow *row, void *user);

/* Runs FDE INDEX's program and calls FUNC for each of its non-empty
   rows, which together cover the FDE.  FALSE when the FDE holds what
   this reader leaves to libdw; FUNC may then have been called for some
   rows already, which the caller discards.  */
gboolean st_eh_frame_rows (const StEhFrame *f, int index, StEhRowFunc func,
                           void *user);

#endif /* ST_EH_FRAME_H */
