/* One CIE, one FDE, in an in-memory ELF (one-fde-image.h).  */
#include "config.h"

#include <dwarf.h>
#include <string.h>

#include "eh-frame-image.h"
#include "one-fde-image.h"

static void
put_u8 (GByteArray *b, uint8_t v)
{
  g_byte_array_append (b, &v, 1);
}

static void
put_u32 (GByteArray *b, uint32_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

void
one_fde_open (OneFde *o, const OneFdeSpec *s)
{
  GByteArray *b = g_byte_array_new ();
  size_t cie_insn, cie_end, fde_insn, fde_end;

  memset (o, 0, sizeof *o);
  /* The CIE: version 1, augmentation, alignments, return column, the
     augmentation data (the FDE pointer encoding, pcrel sdata4).  */
  put_u32 (b, 0);
  put_u32 (b, 0);
  put_u8 (b, 1);
  g_byte_array_append (b, (const guint8 *) s->augmentation,
                       strlen (s->augmentation) + 1);
  eh_frame_put_uleb (b, s->code_align);
  eh_frame_put_sleb (b, s->data_align);
  put_u8 (b, s->ra);
  eh_frame_put_uleb (b, 1);
  put_u8 (b, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
  cie_insn = b->len;
  g_byte_array_append (b, s->cie_insn, s->n_cie_insn);
  eh_frame_end_entry (b, 0, 8);
  cie_end = b->len;

  /* The FDE.  */
  size_t at = b->len;
  put_u32 (b, 0);
  put_u32 (b, at + 4);                  /* back to the CIE */
  put_u32 (b, (uint32_t) (s->start - (FRAME_VADDR + b->len)));
  put_u32 (b, s->len);
  eh_frame_put_uleb (b, 0);              /* augmentation data */
  fde_insn = b->len;
  g_byte_array_append (b, s->fde_insn, s->n_fde_insn);
  eh_frame_end_entry (b, at, 8);
  fde_end = b->len;
  put_u32 (b, 0);                       /* the terminator */

  o->image = eh_frame_image (NULL, 0, b->data, b->len, &o->size);
  /* Where eh_frame_image put the section: after the ELF header,
     8-aligned.  */
  const uint8_t *frame = o->image + ((sizeof (Elf64_Ehdr) + 7) & ~(size_t) 7);
  g_assert (memcmp (frame, b->data, b->len) == 0);
  o->cie_insn = frame + cie_insn;
  o->cie_insn_end = frame + cie_end;
  o->fde_insn = frame + fde_insn;
  o->fde_insn_end = frame + fde_end;
  o->fde_insn_vaddr = FRAME_VADDR + fde_insn;
  g_byte_array_free (b, TRUE);

  elf_version (EV_CURRENT);
  o->elf = elf_memory ((char *) o->image, o->size);
  g_assert_nonnull (o->elf);
  o->cfi = dwarf_getcfi_elf (o->elf);
  g_assert_nonnull (o->cfi);
}

void
one_fde_close (OneFde *o)
{
  dwarf_cfi_end (o->cfi);
  elf_end (o->elf);
  g_free (o->image);
  memset (o, 0, sizeof *o);
}
