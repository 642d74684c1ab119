/* The Sysprof capture writer (lib/format/capture-writer.c): every frame
   type written to a pipe and to a file (where end_time is patched in)
   and read back; its frames equal, byte for byte, those built from the
   format facts (tests/lib/capture-bytes); and its limits: frames cut to
   the 16-bit length (addresses, stack, file names, messages), a fresh
   file header before a first frame.  */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/capture-writer.h"
#include "format/input.h"
#include "format/output.h"

#include "capture-bytes.h"
#include "test-io.h"

static const uint64_t sample_ips[] = {
  ST_CONTEXT_KERNEL, 0xffffffff81000010ull, ST_CONTEXT_USER, 0x401000, 0x401100,
};

static const uint8_t build_id20[20] = {
  0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
  0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xff,
};

static const uint8_t build_id4[4] = { 0x12, 0x34, 0xab, 0xcd };

static uint8_t stack_bytes[64];

static StEvent
stack_event (int32_t pid, int32_t tid, int cpu, int64_t time, uint32_t abi,
             uint64_t mask, const uint64_t *regs, uint64_t size)
{
  return capture_stack_event (pid, tid, cpu, time, abi, mask, regs,
                              stack_bytes, size);
}

static uint64_t regs_x86_64[17];

static uint64_t regs_perf[20];   /* perf's 0xff0fff: AX..GS, R8..R15 */
static uint64_t regs_i386[9];

static void
init_data (void)
{
  unsigned i = 0;

  for (i = 0; i < sizeof stack_bytes; i++)
    stack_bytes[i] = (uint8_t) (i * 3 + 1);
  for (i = 0; i < 17; i++)
    regs_x86_64[i] = 0x1000 + i;
  i = 0;
  for (unsigned r = 0; r < 24; r++)
    if (0xff0fffull & (1ull << r))
      regs_perf[i++] = 0x2000 + r;
  for (i = 0; i < 9; i++)
    regs_i386[i] = 0x3000 + i;
}

#define END_TIME 5000

static void
write_all_kinds (StCaptureWriter *w)
{
  StEvent su;
  uint8_t raw[40];
  StCaptureFrame f;

  g_assert_false (st_capture_writer_has_header (w));
  st_capture_writer_file_header (w, NULL, 900);
  g_assert_true (st_capture_writer_has_header (w));

  g_assert_true (st_capture_writer_sample (w, 1, 100, 101, 1000, sample_ips,
                                           G_N_ELEMENTS (sample_ips)));
  su = stack_event (100, 102, 2, 2000, ST_REGS_ABI_64,
                    ST_CAPTURE_REGS_X86_64_MASK, regs_x86_64, 13);
  g_assert_true (st_capture_writer_stack_user (w, &su));
  su = stack_event (100, 103, 0, 3000, ST_REGS_ABI_64, 0xff0fff, regs_perf, 8);
  g_assert_true (st_capture_writer_stack_user (w, &su));
  su = stack_event (300, 301, 1, 2500, ST_REGS_ABI_32,
                    ST_CAPTURE_REGS_I386_MASK, regs_i386, 5);
  g_assert_true (st_capture_writer_stack_user (w, &su));
  su = stack_event (300, 302, 1, 3100, ST_REGS_ABI_32, 0xff0fff, regs_perf, 0);
  g_assert_true (st_capture_writer_stack_user (w, &su));

  st_capture_writer_map (w, 1, 100, 3200, 0x400000, 0x401000, 0x1000, 77,
                         "/usr/bin/foo", build_id20, sizeof build_id20);
  st_capture_writer_map (w, -1, 100, 3300, 0x7f0000000000ull,
                         0x7f0000002000ull, 0, 0, "[vdso]", NULL, 0);
  st_capture_writer_map (w, 0, 100, 3400, 0x500000, 0x501000, 0x2000, 78,
                         "/lib/libx.so.1", build_id4, sizeof build_id4);
  st_capture_writer_process (w, 0, 100, 4000, "/usr/bin/foo --bar");
  st_capture_writer_fork (w, 0, 100, 4100, 200);
  st_capture_writer_exit (w, 1, 200, 4200);
  st_capture_writer_log (w, 1, 100, 4300, G_LOG_LEVEL_WARNING, "stacktrace",
                         "hello log");

  /* Frames we do not interpret: a TIMESTAMP and an unknown type.  */
  memset (&f, 0, sizeof f);
  f.len = 24;
  f.cpu = 1;
  f.pid = 100;
  f.time = END_TIME;
  f.type = ST_CAPTURE_TIMESTAMP;
  st_capture_writer_raw (w, (const uint8_t *) &f, sizeof f, f.time);
  f.len = 40;
  f.time = 4900;
  f.type = 99;
  memcpy (raw, &f, sizeof f);
  for (unsigned i = 24; i < 40; i++)
    raw[i] = (uint8_t) i;
  st_capture_writer_raw (w, raw, sizeof raw, f.time);
}

static void
check_stack (const StEvent *ev, int32_t pid, int32_t tid, int cpu,
             int64_t time, uint32_t abi, uint64_t mask, uint64_t size)
{
  capture_check_stack (ev, pid, tid, cpu, time, abi, mask, stack_bytes, size);
}

static void
check_map (const StEvent *ev, int cpu, int64_t time, uint64_t start,
           uint64_t end, uint64_t pgoff, uint64_t inode, const char *name,
           const uint8_t *bid, size_t bid_len)
{
  g_assert_cmpint (ev->kind, ==, ST_EVENT_MAP);
  g_assert_cmpint (ev->pid, ==, 100);
  g_assert_cmpint (ev->tid, ==, 100);
  g_assert_cmpint (ev->cpu, ==, cpu);
  g_assert_cmpint (ev->time, ==, time);
  g_assert_cmphex (ev->map.start, ==, start);
  g_assert_cmphex (ev->map.end, ==, end);
  g_assert_cmphex (ev->map.pgoff, ==, pgoff);
  g_assert_cmpuint (ev->map.inode, ==, inode);
  g_assert_false (ev->map.exec_known);
  g_assert_cmpstr (ev->map.filename, ==, name);
  g_assert_cmpmem (ev->map.build_id, ev->map.build_id_len, bid, bid_len);
}

/* Reads what write_all_kinds wrote.  */
static void
check_all_kinds (GBytes *bytes, gboolean via_pipe, int64_t end_time)
{
  GError *error = NULL;
  Source src;
  StEvent ev;
  gsize total;
  const uint8_t *all = g_bytes_get_data (bytes, &total);
  uint64_t offset = ST_CAPTURE_HEADER_SIZE;
  uint64_t expect[17];

  capture_check_file_header (all, 900, end_time);

  source_open (&src, bytes, via_pipe);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (st_capture_reader_header (r), 256, all, 256);

#define NEXT()                                                  \
  do                                                            \
    {                                                           \
      capture_next_ok (r, &ev);                                         \
      g_assert_cmpuint (ev.offset, ==, offset);                 \
      g_assert_cmpmem (ev.raw, ev.raw_len, all + offset, ev.raw_len); \
      offset += ev.raw_len;                                     \
    }                                                           \
  while (0)

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev.pid, ==, 100);
  g_assert_cmpint (ev.tid, ==, 101);
  g_assert_cmpint (ev.cpu, ==, 1);
  g_assert_cmpint (ev.time, ==, 1000);
  g_assert_cmpmem (ev.sample.ips, ev.sample.n_ips * 8, sample_ips,
                   sizeof sample_ips);

  NEXT ();
  g_assert_cmpuint (ev.raw_len, ==, 200);   /* 40 + 13 + 8 + 136, padded */
  check_stack (&ev, 100, 102, 2, 2000, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 13);
  g_assert_cmpmem (ev.stack.regs, 17 * 8, regs_x86_64, sizeof regs_x86_64);

  NEXT ();
  check_stack (&ev, 100, 103, 0, 3000, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 8);
  /* Picked out of perf's larger set by perf register number.  */
  unsigned i = 0;
  for (unsigned reg = 0; reg < 24; reg++)
    if (ST_CAPTURE_REGS_X86_64_MASK & (1ull << reg))
      expect[i++] = 0x2000 + reg;
  g_assert_cmpmem (ev.stack.regs, 17 * 8, expect, 17 * 8);

  NEXT ();
  check_stack (&ev, 300, 301, 1, 2500, ST_REGS_ABI_32,
               ST_CAPTURE_REGS_I386_MASK, 5);
  g_assert_cmpmem (ev.stack.regs, 9 * 8, regs_i386, sizeof regs_i386);

  NEXT ();
  check_stack (&ev, 300, 302, 1, 3100, ST_REGS_ABI_32,
               ST_CAPTURE_REGS_I386_MASK, 0);
  for (i = 0; i < 9; i++)
    expect[i] = 0x2000 + i;
  g_assert_cmpmem (ev.stack.regs, 9 * 8, expect, 9 * 8);

  NEXT ();
  check_map (&ev, 1, 3200, 0x400000, 0x401000, 0x1000, 77, "/usr/bin/foo",
             build_id20, sizeof build_id20);
  NEXT ();
  check_map (&ev, -1, 3300, 0x7f0000000000ull, 0x7f0000002000ull, 0, 0,
             "[vdso]", NULL, 0);
  NEXT ();
  check_map (&ev, 0, 3400, 0x500000, 0x501000, 0x2000, 78, "/lib/libx.so.1",
             build_id4, sizeof build_id4);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpint (ev.pid, ==, 100);
  g_assert_cmpint (ev.tid, ==, 100);
  g_assert_cmpint (ev.time, ==, 4000);
  g_assert_cmpstr (ev.process.comm, ==, "/usr/bin/foo --bar");
  g_assert_false (ev.process.exec);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (ev.pid, ==, 200);
  g_assert_cmpint (ev.tid, ==, 200);
  g_assert_cmpint (ev.fork.parent_pid, ==, 100);
  g_assert_cmpint (ev.fork.parent_tid, ==, 100);
  g_assert_cmpint (ev.time, ==, 4100);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (ev.pid, ==, 200);
  g_assert_cmpint (ev.tid, ==, 200);
  g_assert_cmpint (ev.cpu, ==, 1);
  g_assert_cmpint (ev.time, ==, 4200);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  capture_check_log (&ev, G_LOG_LEVEL_WARNING, "stacktrace", "hello log");
  g_assert_cmpuint (ev.raw_len, ==, 80);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 24);
  g_assert_cmpint (ev.time, ==, END_TIME);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 40);
  g_assert_cmpuint (ev.raw[39], ==, 39);
#undef NEXT

  capture_next_eof (r);
  capture_next_eof (r);
  g_assert_cmpuint (offset, ==, total);
  g_assert_cmpuint (st_input_offset (in), ==, total);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
}

static GBytes *
write_all_kinds_to (gboolean to_file)
{
  GError *error = NULL;
  Sink sink;

  sink_open (&sink, to_file);
  StOutput *out = st_output_new (sink.fd);
  StCaptureWriter *w = st_capture_writer_new (out);
  write_all_kinds (w);
  g_assert_true (st_capture_writer_finish (w, &error));
  g_assert_no_error (error);
  st_capture_writer_free (w);
  st_output_free (out);
  return sink_close (&sink);
}

static void
test_roundtrip (void)
{
  /* Written to a file: end_time is patched in; to a pipe: it stays 0.  */
  GBytes *file = write_all_kinds_to (TRUE);
  GBytes *piped = write_all_kinds_to (FALSE);

  check_all_kinds (file, TRUE, END_TIME);
  check_all_kinds (file, FALSE, END_TIME);
  check_all_kinds (piped, TRUE, 0);

  /* Apart from the header, the same bytes.  */
  gsize a_len, b_len;
  const uint8_t *a = g_bytes_get_data (file, &a_len);
  const uint8_t *b = g_bytes_get_data (piped, &b_len);
  g_assert_cmpmem (a + 256, a_len - 256, b + 256, b_len - 256);

  g_bytes_unref (file);
  g_bytes_unref (piped);
}

/* The frames of write_all_kinds built from the format facts: the
   registers of perf's larger sets picked by perf register number.  */
static GByteArray *
all_kinds_frames (void)
{
  GByteArray *b = g_byte_array_new ();
  uint64_t picked[17];
  unsigned i = 0;

  capture_put_sample (b, 1, 100, 101, 1000, sample_ips,
                      G_N_ELEMENTS (sample_ips));
  capture_put_stack_user (b, 2, 100, 102, 2000, stack_bytes, 13, 2,
                          regs_x86_64, 17);
  for (unsigned reg = 0; reg < 24; reg++)
    if (0xff01ffull & (1ull << reg))
      picked[i++] = 0x2000 + reg;
  capture_put_stack_user (b, 0, 100, 103, 3000, stack_bytes, 8, 2, picked,
                          17);
  capture_put_stack_user (b, 1, 300, 301, 2500, stack_bytes, 5, 1, regs_i386,
                          9);
  capture_put_stack_user (b, 1, 300, 302, 3100, NULL, 0, 1, picked, 9);
  capture_put_map (b, 1, 100, 3200, 0x400000, 0x401000, 0x1000, 77,
                   "/usr/bin/foo", build_id20, sizeof build_id20);
  capture_put_map (b, -1, 100, 3300, 0x7f0000000000ull, 0x7f0000002000ull, 0,
                   0, "[vdso]", NULL, 0);
  capture_put_map (b, 0, 100, 3400, 0x500000, 0x501000, 0x2000, 78,
                   "/lib/libx.so.1", build_id4, sizeof build_id4);
  capture_put_process (b, 0, 100, 4000, "/usr/bin/foo --bar");
  capture_put_fork (b, 0, 100, 4100, 200);
  capture_put_exit (b, 1, 200, 4200);
  capture_put_log (b, 1, 100, 4300, G_LOG_LEVEL_WARNING, "stacktrace",
                   "hello log");
  capture_put_timestamp (b, 1, 100, END_TIME);
  guint at = capture_begin_frame (b, 99, 1, 100, 4900);
  for (uint8_t k = 24; k < 40; k++)
    capture_put (b, &k, 1);
  capture_end_frame (b, at);
  return b;
}

/* What the writer writes after the file header is what the format
   facts say, byte for byte, to a pipe and to a file.  */
static void
test_frame_bytes (void)
{
  GByteArray *expect = all_kinds_frames ();

  for (int to_file = 0; to_file <= 1; to_file++)
    {
      GBytes *bytes = write_all_kinds_to (to_file);
      gsize len;
      const uint8_t *all = g_bytes_get_data (bytes, &len);

      capture_check_file_header (all, 900, to_file ? END_TIME : 0);
      g_assert_cmpmem (all + CAPTURE_HEADER_BYTES, len - CAPTURE_HEADER_BYTES,
                       expect->data, expect->len);
      g_bytes_unref (bytes);
    }
  g_byte_array_unref (expect);
}

static void
test_writer_limits (void)
{
  GError *error = NULL;
  Sink sink;
  StEvent ev;
  const size_t n_ips = 9000;
  uint64_t *ips = g_new (uint64_t, n_ips);
  uint8_t *big_stack = g_malloc (65528);
  char *long_name = g_malloc (70001);

  for (size_t i = 0; i < n_ips; i++)
    ips[i] = 0x400000 + i;
  for (size_t i = 0; i < 65528; i++)
    big_stack[i] = (uint8_t) (i ^ (i >> 8));
  memset (long_name, 'n', 70000);
  long_name[70000] = '\0';

  sink_open (&sink, TRUE);
  StOutput *out = st_output_new (sink.fd);
  StCaptureWriter *w = st_capture_writer_new (out);

  /* No file header yet: the first frame makes a fresh one.  */
  g_assert_false (st_capture_writer_sample (w, 0, 1, 1, 100, ips, n_ips));
  g_assert_true (st_capture_writer_has_header (w));
  g_assert_true (st_capture_writer_sample (w, 0, 1, 1, 101, ips, 8187));

  ev = stack_event (1, 2, 0, 200, ST_REGS_ABI_64, ST_CAPTURE_REGS_X86_64_MASK,
                    regs_x86_64, 65528);
  ev.stack.stack = big_stack;
  g_assert_false (st_capture_writer_stack_user (w, &ev));
  ev.stack.stack_size = 65528 - 40 - 8 - 136;
  g_assert_true (st_capture_writer_stack_user (w, &ev));
  ev.stack.stack_size = 65528 - 40 - 8 - 136 - 3;
  g_assert_true (st_capture_writer_stack_user (w, &ev));

  st_capture_writer_map (w, 0, 1, 300, 1, 2, 3, 4, long_name, build_id4, 4);
  st_capture_writer_process (w, 0, 1, 400, long_name);
  st_capture_writer_log (w, 0, 1, 500, G_LOG_LEVEL_MESSAGE,
                         "a-domain-name-that-is-far-too-long-for-32",
                         long_name);

  g_assert_true (st_capture_writer_finish (w, &error));
  g_assert_no_error (error);
  st_capture_writer_free (w);
  st_output_free (out);
  GBytes *bytes = sink_close (&sink);

  const uint8_t *all = g_bytes_get_data (bytes, NULL);
  Source src;
  capture_check_file_header (all, 100, 500);
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  for (int k = 0; k < 2; k++)
    {
      capture_next_ok (r, &ev);
      g_assert_cmpuint (ev.raw_len, ==, 65528);
      g_assert_cmpuint (ev.sample.n_ips, ==, 8187);
      g_assert_cmpmem (ev.sample.ips, 8187 * 8, ips, 8187 * 8);
    }
  for (int k = 0; k < 3; k++)
    {
      uint64_t size = k < 2 ? 65344 : 65341;
      capture_next_ok (r, &ev);
      g_assert_cmpuint (ev.raw_len, ==, 65528);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpuint (ev.stack.stack_size, ==, size);
      g_assert_cmpmem (ev.stack.stack, size, big_stack, size);
      g_assert_cmpmem (ev.stack.regs, 17 * 8, regs_x86_64, 17 * 8);
    }

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  g_assert_cmpuint (strlen (ev.map.filename), ==, 65528 - 56 - 1 - 10);
  g_assert_cmpmem (ev.map.build_id, ev.map.build_id_len, build_id4, 4);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  g_assert_cmpuint (strlen (ev.process.comm), ==, 65528 - 24 - 1);

  capture_next_ok (r, &ev);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  {
    StCaptureLog lg;
    memcpy (&lg, ev.raw, sizeof lg);
    g_assert_cmpuint (lg.severity, ==, G_LOG_LEVEL_MESSAGE);
    g_assert_cmpstr (lg.domain, ==, "a-domain-name-that-is-far-too-l");
    g_assert_cmpuint (strlen ((const char *) ev.raw + 64), ==,
                      65528 - 64 - 1);
  }
  capture_next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
  g_free (ips);
  g_free (big_stack);
  g_free (long_name);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  init_data ();
  g_test_add_func ("/capture-writer/roundtrip", test_roundtrip);
  g_test_add_func ("/capture-writer/frame-bytes", test_frame_bytes);
  g_test_add_func ("/capture-writer/limits", test_writer_limits);
  return g_test_run ();
}
