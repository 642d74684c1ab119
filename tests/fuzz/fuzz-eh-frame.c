/* The .eh_frame reader (lib/unwind/eh-frame.c) on hostile section data:
   the module files a capture names are not to be trusted.  The input is
   one mode byte, then the section contents, put into an in-memory
   x86_64 ELF: mode bit 0 clear, .eh_frame alone (the reader then walks
   every FDE to build its own table, as for static programs); set, the
   next byte times 4 bytes are an .eh_frame_hdr (its search table) and
   the rest is .eh_frame.  Every FDE the reader accepts is then run whole
   and row by row, and looked up at its ends and middle.  Nothing may
   crash, leak or read outside the data (AddressSanitizer, UBSan).
   Agreement with libdw is test-eh-frame's job.  */
#include "config.h"

#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "unwind/eh-frame.h"
#include "unwind/fast-arch.h"

#define HDR_VADDR 0x1000
#define FRAME_VADDR 0x2000

/* An ELF image of the two sections (HDR may be empty: no section).  */
static uint8_t *
make_image (const uint8_t *hdr, size_t hdr_len, const uint8_t *frame,
            size_t frame_len, size_t *size)
{
  static const char names[] = "\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
  Elf64_Ehdr eh = { 0 };
  Elf64_Shdr sh[4] = { { 0 } };
  size_t hdr_off = sizeof eh, frame_off = hdr_off + hdr_len;
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
  uint8_t *image = calloc (1, *size);
  memcpy (image, &eh, sizeof eh);
  if (hdr_len > 0)
    memcpy (image + hdr_off, hdr, hdr_len);
  if (frame_len > 0)
    memcpy (image + frame_off, frame, frame_len);
  memcpy (image + names_off, names, sizeof names);
  memcpy (image + sh_off, sh, (n + 1) * sizeof sh[0]);
  return image;
}

static void
count_row (uint64_t start, uint64_t end, const StCfiRow *row, void *user)
{
  (*(guint *) user) += start < end && row != NULL;
}

static void
probe (StEhFrame *f, int index, uint64_t addr)
{
  uint64_t start, end;
  StCfiRow row;

  if (st_eh_frame_find (f, addr, &start, &end) == index)
    st_eh_frame_row (f, index, addr, &start, &end, &row);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  size_t hdr_len = (data[0] & 1) ? MIN ((size_t) data[1] * 4, size - 2) : 0;
  const uint8_t *hdr = data + 2, *frame = hdr + hdr_len;
  size_t frame_len = size - 2 - hdr_len, image_size;
  uint8_t *image = make_image (hdr, hdr_len, frame, frame_len, &image_size);

  elf_version (EV_CURRENT);
  Elf *elf = elf_memory ((char *) image, image_size);
  StEhFrame *f = st_eh_frame_new (elf, st_fast_arch (EM_X86_64));
  guint rows = 0;
  for (guint i = 0; f != NULL && i < st_eh_frame_n_fdes (f) && i < 256; i++)
    {
      uint64_t start, end;
      st_eh_frame_range (f, (int) i, &start, &end);
      st_eh_frame_rows (f, (int) i, count_row, &rows);
      probe (f, (int) i, start);
      probe (f, (int) i, start + (end - start) / 2);
      probe (f, (int) i, end - 1);
    }
  st_eh_frame_free (f);
  elf_end (elf);
  free (image);
  return 0;
}
