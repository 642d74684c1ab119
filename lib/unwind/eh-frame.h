/* A module's .eh_frame read directly: the FDE covering an address found
   through .eh_frame_hdr's binary search table (or, without one, a table
   of all FDEs), and an FDE's CFA program run (cfa-program.h) to give its
   rows, each as libdw would describe it (StCfiRow), without libdw.

   It answers as libdw 0.188 does (dwarf_cfi_addrframe on the ELF's
   .eh_frame): the same FDE for an address, the same rules in each row,
   starting from the same initial state (the x86_64 ABI's defaults, then
   the CIE's initial instructions), and the true start of each row (which
   libdw misreports after DW_CFA_restore_state).  What it does not read
   itself it leaves to libdw rather than guess:

   - a whole module, when its .eh_frame_hdr has a search table of an
     unusual encoding, or any FDE in it is out of order, overlaps
     another, covers nothing (with a table), starts elsewhere than its
     table entry says, or has a CIE this reader does not understand
     (libdw's own lookup would then depend on the order of earlier
     lookups);
   - a row, when the FDE's program up to its end (or its CIE's) holds
     something other than the plain rules (a DWARF expression, e.g. the
     PLT's CFA, an unknown opcode, a register number beyond 127, an
     advance going backwards, states remembered too deep): the caller
     then asks libdw, as before.

   Addresses are the ELF file's virtual addresses.  The reader holds
   pointers into the ELF's section data: the Elf must outlive it.  It
   caches as it goes (the CIEs): one thread at a time.  */
#ifndef ST_EH_FRAME_H
#define ST_EH_FRAME_H

#include <gelf.h>
#include <glib.h>
#include <stdint.h>

#include "unwind/cfa-program.h"
#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"

typedef struct StEhFrame StEhFrame;

/* The .eh_frame of ELF for ARCH, or NULL when this reader leaves the
   module to libdw (see above).  Reads every FDE header once, to check
   them all.  */
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

/* Runs FDE INDEX's whole program and calls FUNC for each of its
   non-empty rows, which together cover the FDE (what the tests compare
   with libdw).  FALSE when the FDE holds what this reader leaves to
   libdw; FUNC may then have been called for some rows already.  */
gboolean st_eh_frame_rows (StEhFrame *f, int index, StCfiRowFunc func,
                           void *user);

/* The row of FDE INDEX holding ADDR: [*START, *END) and its rules in
   *ROW, from the FDE's program run only as far as that row's end (as
   libdw runs it).  FALSE when that part holds what this reader leaves
   to libdw.  */
gboolean st_eh_frame_row (StEhFrame *f, int index, uint64_t addr,
                          uint64_t *start, uint64_t *end, StCfiRow *row);

#endif /* ST_EH_FRAME_H */
