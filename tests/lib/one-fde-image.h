/* An in-memory x86_64 ELF whose .eh_frame holds one CIE and one FDE,
   built from their instructions, with libdw's CFI of it open: for
   running the same CFA program through libdw (dwarf_cfi_addrframe) and
   through the library's own interpreter (test-cfa-program.c,
   test-arch.c).  FDE pointers are pc-relative sdata4 ("zR"), the
   layout every linker writes.  */
#ifndef ST_ONE_FDE_IMAGE_H
#define ST_ONE_FDE_IMAGE_H

#include <elfutils/libdw.h>
#include <glib.h>
#include <stdint.h>

typedef struct
{
  const char *augmentation;     /* "zR" or "zRS" (a signal frame) */
  uint64_t code_align;
  int64_t data_align;
  unsigned ra;                  /* return address column */
  const uint8_t *cie_insn;      /* the CIE's initial instructions */
  size_t n_cie_insn;
  uint64_t start, len;          /* the FDE's range */
  const uint8_t *fde_insn;
  size_t n_fde_insn;
} OneFdeSpec;

typedef struct
{
  uint8_t *image;
  size_t size;
  Elf *elf;
  Dwarf_CFI *cfi;               /* libdw's, of the image's .eh_frame */
  /* The instructions as they lie in the image (padded with nops to the
     entry's alignment), and the address of the FDE's.  */
  const uint8_t *cie_insn, *cie_insn_end;
  const uint8_t *fde_insn, *fde_insn_end;
  uint64_t fde_insn_vaddr;
} OneFde;

void one_fde_open (OneFde *o, const OneFdeSpec *spec);
void one_fde_close (OneFde *o);

#endif /* ST_ONE_FDE_IMAGE_H */
