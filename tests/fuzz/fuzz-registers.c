/* Register and stack parsing: a raw-stack event built from the bytes
   (ABI, register mask, registers, stack copy) is looked up register by
   register, written as a STACK_USER frame and read back, which must give
   the same registers and stack, with no damage.  */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/capture-writer.h"
#include "format/input.h"
#include "format/output.h"
#include "fuzz-common.h"
#include "unwind/registers.h"

static uint64_t
take_u64 (const uint8_t **p, size_t *left)
{
  uint64_t v = 0;
  size_t n = MIN (*left, sizeof v);

  memcpy (&v, *p, n);
  *p += n;
  *left -= n;
  return v;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t *p = data;
  size_t left = size;
  uint64_t head = take_u64 (&p, &left);
  uint64_t regs[64];
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_STACK_USER;
  ev.source = ST_FORMAT_PERF;
  ev.pid = (int32_t) (head >> 32);
  ev.tid = ev.pid;
  ev.stack.abi = head & 3;
  ev.stack.regs_mask = take_u64 (&p, &left);
  ev.stack.n_regs = (head >> 8) & 63;
  for (uint32_t i = 0; i < ev.stack.n_regs; i++)
    regs[i] = take_u64 (&p, &left);
  ev.stack.regs = regs;
  ev.stack.stack = p;
  ev.stack.stack_size = left;

  /* Every perf register, and each layout's view of them.  */
  static const int machines[] = { 62 /* EM_X86_64 */, 3 /* EM_386 */,
                                  183 /* EM_AARCH64 */, 0 };
  uint64_t v;
  for (int r = -1; r <= 64; r++)
    if (st_event_register (&ev, r, &v) && r >= 0)
      {
        guint idx = __builtin_popcountll (ev.stack.regs_mask
                                          & ((1ull << r) - 1));
        if (idx >= ev.stack.n_regs || v != regs[idx])
          abort ();
      }
  for (unsigned m = 0; m < G_N_ELEMENTS (machines); m++)
    {
      const StRegisterLayout *l = st_register_layout (machines[m]);
      if (l == NULL)
        continue;
      for (guint i = 0; i < l->n_dwarf; i++)
        st_event_register (&ev, l->perf_of_dwarf[i], &v);
      st_event_register (&ev, l->perf_ip, &v);
      st_event_register (&ev, l->perf_sp, &v);
    }
  if (ev.stack.abi > ST_REGS_ABI_64)
    return 0;   /* the writer is never given an unknown ABI */

  /* Written and read back: the same stack prefix and registers.  */
  int fd = memfd_create ("fuzz-registers", MFD_CLOEXEC);
  StOutput *out = st_output_new (fd);
  StCaptureWriter *w = st_capture_writer_new (out);
  st_capture_writer_file_header (w, NULL, 1);
  gboolean whole = st_capture_writer_stack_user (w, &ev);
  if (!st_capture_writer_finish (w, NULL))
    abort ();
  st_capture_writer_free (w);
  st_output_free (out);
  lseek (fd, 0, SEEK_SET);

  StInput *in = st_input_new (fd);
  GError *error = NULL;
  StCaptureReader *r = st_capture_reader_new (in, &error);
  StEvent back;
  if (r == NULL || st_capture_reader_next (r, &back, &error) != 1
      || back.kind != ST_EVENT_STACK_USER || back.stack.abi != ev.stack.abi)
    abort ();
  if (whole != (back.stack.stack_size == ev.stack.stack_size)
      || back.stack.stack_size > ev.stack.stack_size
      || memcmp (back.stack.stack, ev.stack.stack, back.stack.stack_size) != 0)
    abort ();
  /* The capture keeps the x86_64 or i386 set of registers.  */
  for (int reg = 0; reg < 64; reg++)
    if (back.stack.regs_mask & (1ull << reg))
      {
        uint64_t want = 0, got = 0;
        st_event_register (&ev, reg, &want);
        if (!st_event_register (&back, reg, &got) || got != want)
          abort ();
      }
  if (st_capture_reader_next (r, &back, &error) != 0)
    abort ();
  st_capture_reader_free (r);
  st_input_free (in);
  close (fd);
  return 0;
}
