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

#include <gelf.h>

#include "eh-frame-image.h"
#include "fuzz-common.h"
#include "unwind/eh-frame.h"
#include "unwind/fast-arch.h"

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
  uint8_t *image = eh_frame_image (hdr, hdr_len, frame, frame_len, &image_size);

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
  g_free (image);
  return 0;
}
