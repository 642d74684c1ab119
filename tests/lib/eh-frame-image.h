/* An in-memory x86_64 ELF image holding an .eh_frame at FRAME_VADDR and,
   when HDR_LEN > 0, an .eh_frame_hdr at HDR_VADDR: what the .eh_frame
   reader is tested (test-eh-frame.c) and fuzzed (fuzz-eh-frame.c) on.
   Header-only, so that the fuzz build (tests/fuzz/run-fuzz.sh) needs no
   extra source.  Free the image with g_free.  */
#ifndef ST_EH_FRAME_IMAGE_H
#define ST_EH_FRAME_IMAGE_H

#include <elf.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#define HDR_VADDR 0x1000u
#define FRAME_VADDR 0x2000u

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
