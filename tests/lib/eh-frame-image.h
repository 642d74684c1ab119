/* An in-memory x86_64 ELF image holding an .eh_frame at FRAME_VADDR and,
   when HDR_LEN > 0, an .eh_frame_hdr at HDR_VADDR: what the .eh_frame
   reader is tested (test-eh-frame.c) and fuzzed (fuzz-eh-frame.c) on;
   and the writers of the entries' bytes (LEB128 numbers, the padded
   entry), shared with one-fde-image.c.  Header-only, so that the fuzz
   build (tests/fuzz/run-fuzz.sh) needs no extra source.  Free the image
   with g_free.  */
#ifndef ST_EH_FRAME_IMAGE_H
#define ST_EH_FRAME_IMAGE_H

#include <dwarf.h>
#include <elf.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#define HDR_VADDR 0x1000u
#define FRAME_VADDR 0x2000u

/* Appends V as ULEB128 / SLEB128 to B.  */
static inline void
eh_frame_put_uleb (GByteArray *b, uint64_t v)
{
  do
    {
      guint8 c = v & 0x7f;
      v >>= 7;
      c |= v != 0 ? 0x80 : 0;
      g_byte_array_append (b, &c, 1);
    }
  while (v != 0);
}

static inline void
eh_frame_put_sleb (GByteArray *b, int64_t v)
{
  for (;;)
    {
      guint8 c = v & 0x7f;
      v >>= 7;
      gboolean last = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
      c |= last ? 0 : 0x80;
      g_byte_array_append (b, &c, 1);
      if (last)
        return;
    }
}

/* Ends the CIE or FDE that starts at AT: pads it with DW_CFA_nop to a
   multiple of ALIGN bytes and writes its length (that of what follows
   the length field).  */
static inline void
eh_frame_end_entry (GByteArray *b, size_t at, size_t align)
{
  static const guint8 nop = DW_CFA_nop;

  while ((b->len - at) % align != 0)
    g_byte_array_append (b, &nop, 1);
  uint32_t len = b->len - at - 4;
  memcpy (b->data + at, &len, 4);
}

static inline uint8_t *
eh_frame_image (const uint8_t *hdr, size_t hdr_len, const uint8_t *frame,
                size_t frame_len, size_t *size)
{
  static const char names[] = "\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
  Elf64_Ehdr eh = { 0 };
  Elf64_Shdr sh[4] = { { 0 } };
  size_t hdr_off = sizeof eh;
  size_t frame_off = (hdr_off + hdr_len + 7) & ~(size_t) 7;
  size_t names_off = frame_off + frame_len;
  size_t sh_off = (names_off + sizeof names + 7) & ~(size_t) 7;
  guint n = 1;

  memcpy (eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = sh_off;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof sh[0];
  if (hdr_len > 0)
    sh[n++] = (Elf64_Shdr) { 1, SHT_PROGBITS, SHF_ALLOC, HDR_VADDR, hdr_off,
                             hdr_len, 0, 0, 4, 0 };
  sh[n++] = (Elf64_Shdr) { 15, SHT_PROGBITS, SHF_ALLOC, FRAME_VADDR,
                           frame_off, frame_len, 0, 0, 8, 0 };
  sh[n] = (Elf64_Shdr) { 25, SHT_STRTAB, 0, 0, names_off, sizeof names, 0,
                         0, 1, 0 };
  eh.e_shnum = n + 1;
  eh.e_shstrndx = n;

  *size = sh_off + (n + 1) * sizeof sh[0];
  uint8_t *image = g_malloc0 (*size);
  memcpy (image, &eh, sizeof eh);
  if (hdr_len > 0)
    memcpy (image + hdr_off, hdr, hdr_len);
  if (frame_len > 0)
    memcpy (image + frame_off, frame, frame_len);
  memcpy (image + names_off, names, sizeof names);
  memcpy (image + sh_off, sh, (n + 1) * sizeof sh[0]);
  return image;
}

#endif /* ST_EH_FRAME_IMAGE_H */
