/* Sysprof capture reader, writer and capture output: round trips through
   pipes and files, byte-identical passthrough, perf conversion, limits and
   every malformed-input case.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "format/capture-output.h"
#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/capture-writer.h"
#include "format/damage.h"
#include "util/domain.h"
#include "format/input.h"
#include "format/output.h"
#include "format/perf-recording.h"
#include "format/perf-types.h"
#include "format/reader.h"

#include "damage-log.h"
#include "test-io.h"

/* ---- hand-made captures ------------------------------------------------ */

static void
append_file_header (GByteArray *a, int64_t start, int64_t end)
{
  StCaptureFileHeader h;

  memset (&h, 0, sizeof h);
  h.magic = ST_CAPTURE_MAGIC;
  h.version = ST_CAPTURE_VERSION;
  h.little_endian = 1;
  g_strlcpy (h.capture_time, "2024-01-02T03:04:05Z", sizeof h.capture_time);
  h.time = start;
  h.end_time = end;
  g_byte_array_append (a, (const uint8_t *) &h, sizeof h);
}

/* A frame header claiming LEN bytes, followed by PAYLOAD.  */
static void
append_frame (GByteArray *a, unsigned type, size_t len, int32_t pid,
              int64_t time, const void *payload, size_t payload_len)
{
  StCaptureFrame f;

  memset (&f, 0, sizeof f);
  f.len = (uint16_t) len;
  f.cpu = 3;
  f.pid = pid;
  f.time = time;
  f.type = (uint8_t) type;
  g_byte_array_append (a, (const uint8_t *) &f, sizeof f);
  if (payload_len > 0)
    g_byte_array_append (a, payload, payload_len);
}

static void
append_u32 (GByteArray *a, uint32_t v)
{
  g_byte_array_append (a, (const uint8_t *) &v, 4);
}

static void
append_u64 (GByteArray *a, uint64_t v)
{
  g_byte_array_append (a, (const uint8_t *) &v, 8);
}

/* ---- reading helpers ---------------------------------------------------- */

static void
next_ok (StCaptureReader *r, StEvent *ev)
{
  GError *error = NULL;
  int rc = st_capture_reader_next (r, ev, &error);

  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 1);
  g_assert_cmpint (ev->source, ==, ST_FORMAT_SYSPROF);
  g_assert_nonnull (ev->raw);
  g_assert_cmpuint (ev->raw_len % 8, ==, 0);
  g_assert_cmpuint (ev->raw_len, >=, 24);
  g_assert_cmpuint ((uintptr_t) ev->raw % 8, ==, 0);
}

static void
next_eof (StCaptureReader *r)
{
  GError *error = NULL;
  StEvent ev;

  g_assert_cmpint (st_capture_reader_next (r, &ev, &error), ==, 0);
  g_assert_no_error (error);
}

static void
check_header (const uint8_t *p, int64_t start, int64_t end)
{
  StCaptureFileHeader h;

  memcpy (&h, p, sizeof h);
  g_assert_cmphex (h.magic, ==, ST_CAPTURE_MAGIC);
  g_assert_cmpuint (h.version, ==, 1);
  g_assert_cmpuint (h.little_endian, ==, 1);
  g_assert_cmpint (h.time, ==, start);
  g_assert_cmpint (h.end_time, ==, end);
  g_assert_cmpuint (strlen (h.capture_time), ==, 20);
  g_assert_true (g_regex_match_simple
                 ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                  h.capture_time, 0, 0));
}

/* ---- the round trip of every frame type --------------------------------- */

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
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_STACK_USER;
  ev.source = ST_FORMAT_PERF;
  ev.pid = pid;
  ev.tid = tid;
  ev.cpu = cpu;
  ev.time = time;
  ev.stack.abi = abi;
  ev.stack.regs_mask = mask;
  ev.stack.regs = regs;
  ev.stack.n_regs = (uint32_t) __builtin_popcountll (mask);
  ev.stack.stack = size > 0 ? stack_bytes : NULL;
  ev.stack.stack_size = size;
  return ev;
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
  g_assert_cmpint (ev->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpint (ev->pid, ==, pid);
  g_assert_cmpint (ev->tid, ==, tid);
  g_assert_cmpint (ev->cpu, ==, cpu);
  g_assert_cmpint (ev->time, ==, time);
  g_assert_cmpuint (ev->stack.abi, ==, abi);
  g_assert_cmphex (ev->stack.regs_mask, ==, mask);
  g_assert_cmpuint (ev->stack.n_regs, ==, __builtin_popcountll (mask));
  g_assert_cmpuint ((uintptr_t) ev->stack.regs % 8, ==, 0);
  g_assert_null (ev->stack.callchain);
  g_assert_cmpuint (ev->stack.n_callchain, ==, 0);
  g_assert_cmpuint (ev->stack.stack_size, ==, size);
  g_assert_cmpmem (ev->stack.stack, size, stack_bytes, size);
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

  check_header (all, 900, end_time);

  source_open (&src, bytes, via_pipe);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (st_capture_reader_header (r), 256, all, 256);

#define NEXT()                                                  \
  do                                                            \
    {                                                           \
      next_ok (r, &ev);                                         \
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
  {
    StCaptureLog lg;
    memcpy (&lg, ev.raw, sizeof lg);
    g_assert_cmpuint (lg.frame.type, ==, ST_CAPTURE_LOG);
    g_assert_cmpuint (lg.severity, ==, G_LOG_LEVEL_WARNING);
    g_assert_cmpstr (lg.domain, ==, "stacktrace");
    g_assert_cmpstr ((const char *) ev.raw + 64, ==, "hello log");
    g_assert_cmpuint (ev.raw_len, ==, 80);
  }

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 24);
  g_assert_cmpint (ev.time, ==, END_TIME);

  NEXT ();
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 40);
  g_assert_cmpuint (ev.raw[39], ==, 39);
#undef NEXT

  next_eof (r);
  next_eof (r);
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

/* ---- passthrough --------------------------------------------------------- */

/* Reads BYTES with StReader and copies every event with the capture
   output, as the pipeline does in passthru mode.  */
static GBytes *
passthrough (GBytes *bytes, gboolean to_file)
{
  GError *error = NULL;
  Source src;
  Sink sink;
  StEvent ev;
  int rc;

  source_open (&src, bytes, TRUE);
  StReader *reader = st_reader_new (src.fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  g_assert_cmpint (st_reader_format (reader), ==, ST_FORMAT_SYSPROF);

  sink_open (&sink, to_file);
  StOutput *out = st_output_new (sink.fd);
  void *impl = st_capture_output_new (out, reader);

  while ((rc = st_reader_next (reader, &ev, &error)) > 0)
    g_assert_true (st_capture_output_ops.event (impl, &ev));
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  g_assert_true (st_capture_output_ops.finish (impl, &error));
  g_assert_no_error (error);
  st_capture_output_ops.free (impl);
  st_output_free (out);
  st_reader_free (reader);
  source_close (&src);
  return sink_close (&sink);
}

static void
test_passthrough (void)
{
  GBytes *file = write_all_kinds_to (TRUE);
  GBytes *piped = write_all_kinds_to (FALSE);
  GBytes *copy;

  /* Byte-identical, to a pipe and to a file.  */
  copy = passthrough (file, FALSE);
  g_assert_true (g_bytes_equal (copy, file));
  g_bytes_unref (copy);
  copy = passthrough (file, TRUE);
  g_assert_true (g_bytes_equal (copy, file));
  g_bytes_unref (copy);

  /* A capture recorded to a pipe (end_time 0) gets its end time when
     copied to a file; nothing else changes.  */
  {
    gsize len = g_bytes_get_size (piped);
    uint8_t *expect = g_memdup2 (g_bytes_get_data (piped, NULL), len);
    int64_t end = END_TIME;
    memcpy (expect + 80, &end, 8);
    copy = passthrough (piped, TRUE);
    g_assert_cmpmem (g_bytes_get_data (copy, NULL), g_bytes_get_size (copy),
                     expect, len);
    g_bytes_unref (copy);
    g_free (expect);
  }

  g_bytes_unref (file);
  g_bytes_unref (piped);
}

static void
test_passthrough_empty (void)
{
  GByteArray *a = g_byte_array_new ();
  GBytes *in, *copy;

  append_file_header (a, 42, 0);
  in = g_byte_array_free_to_bytes (a);
  copy = passthrough (in, FALSE);
  g_assert_true (g_bytes_equal (copy, in));
  g_bytes_unref (copy);
  g_bytes_unref (in);
}

/* ---- conversion of perf events ------------------------------------------- */

static StEvent
perf_event (StEventKind kind, int32_t pid, int32_t tid, int64_t time)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.source = ST_FORMAT_PERF;
  ev.pid = pid;
  ev.tid = tid;
  ev.cpu = 1;
  ev.time = time;
  return ev;
}

static void
expect_sample (StCaptureReader *r, int32_t pid, int32_t tid, int64_t time,
               const uint64_t *ips, uint32_t n)
{
  StEvent ev;

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev.pid, ==, pid);
  g_assert_cmpint (ev.tid, ==, tid);
  g_assert_cmpint (ev.cpu, ==, 1);
  g_assert_cmpint (ev.time, ==, time);
  g_assert_cmpmem (ev.sample.ips, ev.sample.n_ips * 8, ips, n * 8);
}

/* Finishes and frees capture output IMPL on OUT; what SINK received.  */
static GBytes *
finish_output (void *impl, StOutput *out, Sink *sink)
{
  GError *error = NULL;

  g_assert_true (st_capture_output_ops.finish (impl, &error));
  g_assert_no_error (error);
  st_capture_output_ops.free (impl);
  st_output_free (out);
  return sink_close (sink);
}

static void
test_convert_perf (void)
{
  GError *error = NULL;
  Sink sink;
  StEvent ev;
  static const uint64_t kchain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000001ull,
                                     0xffffffff81000002ull };
  static const uint64_t mixed[] = { ST_CONTEXT_KERNEL, 0xffffffff81000003ull,
                                    ST_CONTEXT_USER, 0x401234 };
  static const uint64_t user_ips[] = { 0x401000, 0x401fff, 0x402fff };

  sink_open (&sink, TRUE);
  StOutput *out = st_output_new (sink.fd);
  void *impl = st_capture_output_new (out, NULL);
  const StWriterOps *ops = &st_capture_output_ops;

  /* SAMPLE as-is; the first event's time starts a fresh header.  */
  ev = perf_event (ST_EVENT_SAMPLE, 10, 11, 7000);
  ev.sample.ips = mixed;
  ev.sample.n_ips = G_N_ELEMENTS (mixed);
  g_assert_true (ops->event (impl, &ev));

  /* Raw stacks: kernel part first as a kernel-only SAMPLE.  */
  ev = stack_event (10, 12, 1, 7100, ST_REGS_ABI_64, 0xff0fff, regs_perf, 21);
  ev.stack.callchain = kchain;
  ev.stack.n_callchain = G_N_ELEMENTS (kchain);
  g_assert_true (ops->event (impl, &ev));
  ev.time = 7200;
  ev.stack.callchain = mixed;
  ev.stack.n_callchain = G_N_ELEMENTS (mixed);
  g_assert_true (ops->event (impl, &ev));
  ev.time = 7300;
  ev.stack.callchain = NULL;
  ev.stack.n_callchain = 0;
  g_assert_true (ops->event (impl, &ev));

  /* Mappings: anonymous data ones are dropped (written nothing, still
     TRUE), those of files kept.  */
  ev = perf_event (ST_EVENT_MAP, 10, 10, 7400);
  ev.map.start = 0x1000;
  ev.map.end = 0x2000;
  ev.map.filename = "//anon";
  ev.map.exec_known = true;
  ev.map.prot = PROT_READ | PROT_WRITE;
  g_assert_true (ops->event (impl, &ev));
  ev.map.filename = "/data";
  g_assert_true (ops->event (impl, &ev));
  ev.map.filename = "/code";
  ev.map.prot = PROT_READ | PROT_EXEC;
  ev.map.pgoff = 0x3000;
  ev.map.inode = 5;
  memcpy (ev.map.build_id, build_id20, 20);
  ev.map.build_id_len = 20;
  g_assert_true (ops->event (impl, &ev));
  ev.map.filename = "/unknown-prot";
  ev.map.exec_known = false;
  ev.map.prot = 0;
  ev.map.build_id_len = 0;
  g_assert_true (ops->event (impl, &ev));

  ev = perf_event (ST_EVENT_PROCESS, 10, 10, 7500);
  ev.process.comm = "worker";
  ev.process.exec = true;
  g_assert_true (ops->event (impl, &ev));

  /* A new thread has no counterpart; a new process has.  */
  ev = perf_event (ST_EVENT_FORK, 10, 13, 7600);
  ev.fork.parent_pid = 10;
  ev.fork.parent_tid = 10;
  g_assert_false (ops->event (impl, &ev));
  ev = perf_event (ST_EVENT_FORK, 20, 20, 7700);
  ev.fork.parent_pid = 10;
  ev.fork.parent_tid = 12;
  g_assert_true (ops->event (impl, &ev));

  ev = perf_event (ST_EVENT_EXIT, 10, 13, 7800);
  g_assert_false (ops->event (impl, &ev));
  ev = perf_event (ST_EVENT_EXIT, 20, 20, 7900);
  g_assert_true (ops->event (impl, &ev));

  ev = perf_event (ST_EVENT_LOST, 10, 10, 8000);
  ev.lost.count = 5;
  g_assert_true (ops->event (impl, &ev));

  ev = perf_event (ST_EVENT_OTHER, 10, 10, 8100);
  g_assert_false (ops->event (impl, &ev));

  /* Unwound samples: kernel part, USER marker, user addresses.  */
  ev = stack_event (10, 12, 1, 8200, ST_REGS_ABI_64, 0xff0fff, regs_perf, 8);
  ev.stack.callchain = mixed;
  ev.stack.n_callchain = G_N_ELEMENTS (mixed);
  ops->unwound (impl, &ev, user_ips, G_N_ELEMENTS (user_ips));
  ev.stack.callchain = NULL;
  ev.stack.n_callchain = 0;
  ev.time = 8300;
  ops->unwound (impl, &ev, user_ips, G_N_ELEMENTS (user_ips));
  ev.time = 8250;
  ops->unwound (impl, &ev, NULL, 0);

  GBytes *bytes = finish_output (impl, out, &sink);

  /* Read it back.  */
  const uint8_t *all = g_bytes_get_data (bytes, NULL);
  Source src;
  check_header (all, 7000, 8300);
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  expect_sample (r, 10, 11, 7000, mixed, G_N_ELEMENTS (mixed));

  expect_sample (r, 10, 12, 7100, kchain, G_N_ELEMENTS (kchain));
  next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7100, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);
  expect_sample (r, 10, 12, 7200, mixed, 2);
  next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7200, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);
  next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7300, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/data");
  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/code");
  g_assert_cmphex (ev.map.pgoff, ==, 0x3000);
  g_assert_cmpuint (ev.map.inode, ==, 5);
  g_assert_cmpmem (ev.map.build_id, ev.map.build_id_len, build_id20, 20);
  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/unknown-prot");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "worker");

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (ev.fork.parent_pid, ==, 10);
  g_assert_cmpint (ev.pid, ==, 20);
  g_assert_cmpint (ev.time, ==, 7700);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (ev.pid, ==, 20);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  {
    StCaptureLog lg;
    memcpy (&lg, ev.raw, sizeof lg);
    g_assert_cmpuint (lg.frame.type, ==, ST_CAPTURE_LOG);
    g_assert_cmpuint (lg.severity, ==, G_LOG_LEVEL_WARNING);
    g_assert_cmpstr (lg.domain, ==, "stacktrace");
    g_assert_cmpstr ((const char *) ev.raw + 64, ==,
                     "5 events lost by the recorder");
    g_assert_cmpint (ev.time, ==, 8000);
  }

  {
    const uint64_t full[] = { ST_CONTEXT_KERNEL, 0xffffffff81000003ull,
                              ST_CONTEXT_USER, 0x401000, 0x401fff, 0x402fff };
    const uint64_t user_only[] = { ST_CONTEXT_USER, 0x401000, 0x401fff,
                                   0x402fff };
    const uint64_t none[] = { ST_CONTEXT_USER };
    expect_sample (r, 10, 12, 8200, full, G_N_ELEMENTS (full));
    expect_sample (r, 10, 12, 8300, user_only, G_N_ELEMENTS (user_only));
    expect_sample (r, 10, 12, 8250, none, G_N_ELEMENTS (none));
  }
  next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

/* A pipe-mode HEADER_FEATURE record with perf's CMDLINE: ARGS.  */
static GByteArray *
cmdline_feature (const char *const *args)
{
  static const uint8_t zeros[64];
  GByteArray *b = g_byte_array_new ();
  uint32_t u32;
  uint64_t u64;
  guint n = g_strv_length ((char **) args);

  g_byte_array_append (b, zeros, 8);
  u64 = ST_PERF_FEAT_CMDLINE;
  g_byte_array_append (b, (const guint8 *) &u64, 8);
  u32 = n;
  g_byte_array_append (b, (const guint8 *) &u32, 4);
  for (guint i = 0; i < n; i++)
    {
      /* Padded to 64 with NULs, as perf writes them.  */
      u32 = 64;
      g_byte_array_append (b, (const guint8 *) &u32, 4);
      g_byte_array_append (b, (const guint8 *) args[i], strlen (args[i]));
      g_byte_array_append (b, zeros, 64 - strlen (args[i]));
    }

  StPerfEventHeader h = { ST_PERF_RECORD_HEADER_FEATURE, 0, (uint16_t) b->len };
  memcpy (b->data, &h, sizeof h);
  return b;
}

/* A pipe-mode HEADER_FEATURE record with perf's CLOCK_DATA: the samples'
   clock read CLOCK_NS when the wall clock read WALL_NS.  */
static GByteArray *
clock_feature (uint64_t wall_ns, uint64_t clock_ns)
{
  GByteArray *b = g_byte_array_new ();
  StPerfEventHeader h = { ST_PERF_RECORD_HEADER_FEATURE, 0, 16 + 24 };
  uint64_t u64 = ST_PERF_FEAT_CLOCK_DATA;
  uint32_t version = 1, clockid = 1;

  g_byte_array_append (b, (const guint8 *) &h, sizeof h);
  g_byte_array_append (b, (const guint8 *) &u64, 8);
  g_byte_array_append (b, (const guint8 *) &version, 4);
  g_byte_array_append (b, (const guint8 *) &clockid, 4);
  g_byte_array_append (b, (const guint8 *) &wall_ns, 8);
  g_byte_array_append (b, (const guint8 *) &clock_ns, 8);
  return b;
}

/* A capture converted from `perf record -k 1 -- /bin/prog arg`: the
   header starts at the first timed event (not at perf's time-0
   synthesized records), its capture time is CLOCK_DATA's wall-clock
   time at that event, the program's one PROCESS frame names it by its
   command line (perf's "perf-exec" placeholder is not written); on a
   file the header ends at the last frame, on a pipe the frames wait for
   the header.  */
static void
test_recording_header (void)
{
  static const char *const args[] = { "/usr/bin/perf", "record", "-g", "--",
                                      "/bin/prog", "arg", NULL };
  static const uint64_t ips[] = { ST_CONTEXT_USER, 0x401000 };

  for (int to_file = 0; to_file <= 1; to_file++)
    {
      GError *error = NULL;
      GByteArray *feature = cmdline_feature (args);
      /* 2023-11-14T22:13:20Z at clock time 4000.  */
      GByteArray *clock = clock_feature (G_GUINT64_CONSTANT (1700000000)
                                         * 1000000000u, 4000);
      Sink sink;
      StEvent ev;

      sink_open (&sink, to_file);
      StOutput *out = st_output_new (sink.fd);
      void *impl = st_capture_output_new (out, NULL);
      const StWriterOps *ops = &st_capture_output_ops;

      ev = perf_event (ST_EVENT_OTHER, -1, -1, 0);
      ev.raw = feature->data;
      ev.raw_len = feature->len;
      g_assert_false (ops->event (impl, &ev));
      ev.raw = clock->data;
      ev.raw_len = clock->len;
      g_assert_false (ops->event (impl, &ev));
      ev = perf_event (ST_EVENT_PROCESS, 30, 30, 0);
      ev.process.comm = "perf-exec";
      g_assert_true (ops->event (impl, &ev));
      ev = perf_event (ST_EVENT_PROCESS, 40, 40, 0);
      ev.process.comm = "bash";
      g_assert_true (ops->event (impl, &ev));
      /* The handover to the fd while the header waits writes nothing.  */
      g_assert_true (st_output_flush (out, NULL));
      ev = perf_event (ST_EVENT_PROCESS, 30, 30, 5000);
      ev.process.comm = "prog";
      ev.process.exec = true;
      g_assert_true (ops->event (impl, &ev));
      ev = perf_event (ST_EVENT_SAMPLE, 30, 30, 6000);
      ev.sample.ips = ips;
      ev.sample.n_ips = G_N_ELEMENTS (ips);
      g_assert_true (ops->event (impl, &ev));
      GBytes *bytes = finish_output (impl, out, &sink);
      const uint8_t *all = g_bytes_get_data (bytes, NULL);
      Source src;

      check_header (all, 5000, to_file ? 6000 : 0);
      g_assert_cmpstr ((const char *) all
                       + G_STRUCT_OFFSET (StCaptureFileHeader, capture_time),
                       ==, "2023-11-14T22:13:20Z");
      source_open (&src, bytes, TRUE);
      StInput *in = st_input_new (src.fd);
      StCaptureReader *r = st_capture_reader_new (in, &error);
      g_assert_no_error (error);
      next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
      g_assert_cmpint (ev.pid, ==, 40);
      g_assert_cmpstr (ev.process.comm, ==, "bash");
      next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
      g_assert_cmpint (ev.pid, ==, 30);
      g_assert_cmpstr (ev.process.comm, ==, "/bin/prog arg");
      expect_sample (r, 30, 30, 6000, ips, G_N_ELEMENTS (ips));
      next_eof (r);
      st_capture_reader_free (r);
      st_input_free (in);
      source_close (&src);
      g_bytes_unref (bytes);
      g_byte_array_free (feature, TRUE);
      g_byte_array_free (clock, TRUE);
    }
}

/* perf's CMDLINE names the recorded program by the arguments after
   "--", else by the first argument that is the program (as the kernel
   cuts its name to 15 characters).  */
static void
test_recording_command (void)
{
  static const char *const dashes[] = { "perf", "record", "-o", "prog.data",
                                        "--", "./prog", "-x", NULL };
  static const char *const plain[] = { "perf", "record", "-g",
                                       "/opt/a-very-long-program-name", "1",
                                       NULL };
  StPerfRecording rec = { 0 };
  char *cmd;

  rec.argv = g_strdupv ((char **) dashes);
  cmd = st_perf_recording_command (&rec, "prog");
  g_assert_cmpstr (cmd, ==, "./prog -x");
  g_free (cmd);
  g_assert_null (st_perf_recording_command (&rec, "sh"));
  st_perf_recording_clear (&rec);

  rec.argv = g_strdupv ((char **) plain);
  cmd = st_perf_recording_command (&rec, "a-very-long-pro");
  g_assert_cmpstr (cmd, ==, "/opt/a-very-long-program-name 1");
  g_free (cmd);
  g_assert_null (st_perf_recording_command (&rec, "a-very-long"));
  st_perf_recording_clear (&rec);

  /* Damaged: a string longer than the section.  */
  static const uint8_t bad[] = { 1, 0, 0, 0, 200, 0, 0, 0, 'p', 0 };
  st_perf_recording_feature (&rec, ST_PERF_FEAT_CMDLINE, bad, sizeof bad);
  g_assert_null (rec.argv);
  /* SAMPLE_TIME of a pipe (zeros) is unknown.  */
  static const uint64_t zeros[2] = { 0, 0 };
  st_perf_recording_feature (&rec, ST_PERF_FEAT_SAMPLE_TIME,
                             (const uint8_t *) zeros, sizeof zeros);
  g_assert_cmpint (rec.first_sample, ==, 0);
  st_perf_recording_clear (&rec);
}

/* Finishing without any event still gives a valid (empty) capture.  */
static void
test_output_empty (void)
{
  GError *error = NULL;
  Sink sink;

  sink_open (&sink, FALSE);
  StOutput *out = st_output_new (sink.fd);
  void *impl = st_capture_output_new (out, NULL);
  g_assert_true (st_capture_output_ops.finish (impl, &error));
  g_assert_no_error (error);
  st_capture_output_ops.free (impl);
  st_output_free (out);

  GBytes *bytes = sink_close (&sink);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 256);
  check_header (g_bytes_get_data (bytes, NULL), 0, 0);
  g_bytes_unref (bytes);
}

/* ---- writer limits -------------------------------------------------------- */

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
  check_header (all, 100, 500);
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  for (int k = 0; k < 2; k++)
    {
      next_ok (r, &ev);
      g_assert_cmpuint (ev.raw_len, ==, 65528);
      g_assert_cmpuint (ev.sample.n_ips, ==, 8187);
      g_assert_cmpmem (ev.sample.ips, 8187 * 8, ips, 8187 * 8);
    }
  for (int k = 0; k < 3; k++)
    {
      uint64_t size = k < 2 ? 65344 : 65341;
      next_ok (r, &ev);
      g_assert_cmpuint (ev.raw_len, ==, 65528);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpuint (ev.stack.stack_size, ==, size);
      g_assert_cmpmem (ev.stack.stack, size, big_stack, size);
      g_assert_cmpmem (ev.stack.regs, 17 * 8, regs_x86_64, 17 * 8);
    }

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  g_assert_cmpuint (strlen (ev.map.filename), ==, 65528 - 56 - 1 - 10);
  g_assert_cmpmem (ev.map.build_id, ev.map.build_id_len, build_id4, 4);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  g_assert_cmpuint (strlen (ev.process.comm), ==, 65528 - 24 - 1);

  next_ok (r, &ev);
  g_assert_cmpuint (ev.raw_len, ==, 65528);
  {
    StCaptureLog lg;
    memcpy (&lg, ev.raw, sizeof lg);
    g_assert_cmpuint (lg.severity, ==, G_LOG_LEVEL_MESSAGE);
    g_assert_cmpstr (lg.domain, ==, "a-domain-name-that-is-far-too-l");
    g_assert_cmpuint (strlen ((const char *) ev.raw + 64), ==,
                      65528 - 64 - 1);
  }
  next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
  g_free (ips);
  g_free (big_stack);
  g_free (long_name);
}

/* ---- lenient cases ---------------------------------------------------------- */

static void
test_reader_lenient (void)
{
  GByteArray *a = g_byte_array_new ();
  GError *error = NULL;
  StEvent ev;

  append_file_header (a, 0, 0);
  /* PROCESS whose cmdline fills the frame without a NUL.  */
  append_frame (a, ST_CAPTURE_PROCESS, 32, 5, 1, "abcdefgh", 8);
  /* PROCESS with no cmdline at all.  */
  append_frame (a, ST_CAPTURE_PROCESS, 24, 6, 2, NULL, 0);
  /* MAP whose build-id suffix is not hex: no build-id.  */
  {
    uint64_t m[4] = { 1, 2, 3, 4 };
    char name[16] = "/p\0@zz11";
    GByteArray *p = g_byte_array_new ();
    g_byte_array_append (p, (const uint8_t *) m, sizeof m);
    g_byte_array_append (p, (const uint8_t *) name, sizeof name);
    append_frame (a, ST_CAPTURE_MAP, 24 + p->len, 7, 3, p->data, p->len);
    g_byte_array_unref (p);
  }
  /* A build-id longer than 20 bytes is ignored too.  */
  {
    uint64_t m[4] = { 1, 2, 3, 4 };
    char name[56];
    memset (name, 0, sizeof name);
    memcpy (name, "/q\0@", 4);
    memset (name + 4, 'a', 42);
    GByteArray *p = g_byte_array_new ();
    g_byte_array_append (p, (const uint8_t *) m, sizeof m);
    g_byte_array_append (p, (const uint8_t *) name, sizeof name);
    append_frame (a, ST_CAPTURE_MAP, 24 + p->len, 7, 3, p->data, p->len);
    g_byte_array_unref (p);
  }
  /* SAMPLE with spare room after its addresses.  */
  {
    uint64_t body[3] = { 1 | (0ull << 32), 0x1234, 0 };
    ((int32_t *) body)[1] = 77;
    append_frame (a, ST_CAPTURE_SAMPLE, 48, 8, 4, body, sizeof body);
  }

  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Source src;
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "abcdefgh");
  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "");
  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/p");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);
  next_ok (r, &ev);
  g_assert_cmpstr (ev.map.filename, ==, "/q");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);
  next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev.tid, ==, 77);
  g_assert_cmpuint (ev.sample.n_ips, ==, 1);
  g_assert_cmphex (ev.sample.ips[0], ==, 0x1234);
  next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

/* ---- malformed input -------------------------------------------------------- */

static gboolean
has_offset (const char *message, uint64_t offset)
{
  char *needle = g_strdup_printf ("offset %" G_GUINT64_FORMAT, offset);
  gboolean found = strstr (message, needle) != NULL;
  g_free (needle);
  return found;
}

static void
expect_bad_header (GBytes *bytes, gint code)
{
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      GError *error = NULL;
      Source src;
      source_open (&src, bytes, via_pipe);
      StInput *in = st_input_new (src.fd);
      g_assert_null (st_capture_reader_new (in, &error));
      g_assert_error (error, ST_ERROR, code);
      g_assert_true (has_offset (error->message, 0));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
      st_input_free (in);
      source_close (&src);
    }
}

static void
test_bad_headers (void)
{
  GByteArray *a;
  GBytes *b;

  a = g_byte_array_new ();
  append_file_header (a, 0, 0);
  a->data[0] ^= 0xff;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_FORMAT);
  g_bytes_unref (b);

  /* Byte-swapped magic (a big-endian capture).  */
  a = g_byte_array_new ();
  append_file_header (a, 0, 0);
  {
    uint32_t swapped = GUINT32_SWAP_LE_BE (ST_CAPTURE_MAGIC);
    memcpy (a->data, &swapped, 4);
  }
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  /* Right magic, little_endian bit clear.  */
  a = g_byte_array_new ();
  append_file_header (a, 0, 0);
  a->data[5] &= ~1;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  a = g_byte_array_new ();
  append_file_header (a, 0, 0);
  a->data[4] = 2;
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_UNSUPPORTED);
  g_bytes_unref (b);

  /* Shorter than the header.  */
  a = g_byte_array_new ();
  append_file_header (a, 0, 0);
  g_byte_array_set_size (a, 100);
  b = g_byte_array_free_to_bytes (a);
  expect_bad_header (b, ST_ERROR_TRUNCATED);
  g_bytes_unref (b);

  b = g_bytes_new (NULL, 0);
  expect_bad_header (b, ST_ERROR_TRUNCATED);
  g_bytes_unref (b);
}

/* Two good frames (at 256 and 296), then the bad one at 320.  */
#define BAD_OFFSET 320

static GByteArray *
good_prefix (void)
{
  GByteArray *a = g_byte_array_new ();
  uint64_t body[2] = { 1 | (5ull << 32), 0xabc };

  append_file_header (a, 0, 0);
  append_frame (a, ST_CAPTURE_SAMPLE, 40, 1, 10, body, sizeof body);
  append_frame (a, ST_CAPTURE_EXIT, 24, 1, 11, NULL, 0);
  g_assert_cmpuint (a->len, ==, BAD_OFFSET);
  return a;
}

/* A capture reader over BYTES that recovers from damage, logging it.  */
typedef struct
{
  Source src;
  StInput *in;
  StCaptureReader *r;
  DamageLog log;
} Recovering;

static void
recovering_open (Recovering *rec, GBytes *bytes, gboolean via_pipe)
{
  GError *error = NULL;

  memset (rec, 0, sizeof *rec);
  source_open (&rec->src, bytes, via_pipe);
  rec->in = st_input_new (rec->src.fd);
  rec->r = st_capture_reader_new (rec->in, &error);
  g_assert_no_error (error);
  st_capture_reader_set_damage_handler (rec->r, &(StDamageHandler) {
                                          damage_log_record, &rec->log });
}

static void
recovering_close (Recovering *rec)
{
  g_free (rec->log.message);
  st_capture_reader_free (rec->r);
  st_input_free (rec->in);
  source_close (&rec->src);
}

/* The good frames that follow a damaged one, when input goes on.  */
static void
append_good_suffix (GByteArray *a)
{
  uint64_t body[2] = { 1 | (7ull << 32), 0xdef };

  append_frame (a, ST_CAPTURE_SAMPLE, 40, 1, 12, body, sizeof body);
  append_frame (a, ST_CAPTURE_EXIT, 24, 1, 13, NULL, 0);
}

/* Recovery: with a damage handler, the frames before and after the bad
   one come out, and the damage is reported once, naming its offset.  */
static void
expect_recovery (GBytes *bytes, const char *what, StDamageAction action,
                 gboolean suffix)
{
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      Recovering rec;
      StCaptureReader *r;
      const DamageLog *log = &rec.log;
      StEvent ev;

      recovering_open (&rec, bytes, via_pipe);
      r = rec.r;
      next_ok (r, &ev);
      g_assert_cmpint (ev.tid, ==, 5);
      next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
      if (action == ST_DAMAGE_PASSED || suffix)
        next_ok (r, &ev);
      if (action == ST_DAMAGE_PASSED)
        {
          /* The bad frame itself, not interpreted.  */
          g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
          g_assert_cmpuint (ev.offset, ==, BAD_OFFSET);
          if (suffix)
            next_ok (r, &ev);
        }
      if (suffix)
        {
          g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpint (ev.tid, ==, 7);
          g_assert_cmpuint (ev.sample.ips[0], ==, 0xdef);
          next_ok (r, &ev);
          g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
          g_assert_cmpint (ev.time, ==, 13);
        }
      next_eof (r);

      if (log->n != 1 || log->action != action || log->offset != BAD_OFFSET
          || !has_offset (log->message, BAD_OFFSET))
        g_error ("%s: %u damage report(s), first: action %d offset %"
                 G_GUINT64_FORMAT ": %s", what, log->n, log->action,
                 log->offset, log->message);
      g_test_message ("recovered: %s", log->message);
      if (action == ST_DAMAGE_SKIPPED)
        g_assert_nonnull (strstr (log->message, "skipped"));
      recovering_close (&rec);
    }
}

/* A is the good prefix and a damaged frame.  Strictly, reading stops at
   it with error CODE naming BAD_OFFSET; with a damage handler, reading
   recovers (ACTION) and the frames after it still come out (unless the
   damage is a truncated end).  */
static void
expect_bad_frame (GByteArray *a, gint code, const char *what,
                  StDamageAction action)
{
  gboolean suffix = action != ST_DAMAGE_TRUNCATED;
  GBytes *bytes = g_byte_array_free_to_bytes (a);

  g_test_message ("case: %s", what);
  for (int via_pipe = 0; via_pipe < 2; via_pipe++)
    {
      GError *error = NULL;
      Source src;
      StEvent ev;

      source_open (&src, bytes, via_pipe);
      StInput *in = st_input_new (src.fd);
      StCaptureReader *r = st_capture_reader_new (in, &error);
      g_assert_no_error (error);

      next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpint (ev.tid, ==, 5);
      next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);

      g_assert_cmpint (st_capture_reader_next (r, &ev, &error), ==, -1);
      g_assert_error (error, ST_ERROR, code);
      g_test_message ("%s", error->message);
      if (!has_offset (error->message, BAD_OFFSET))
        g_error ("%s: message lacks the offset: %s", what, error->message);
      g_clear_error (&error);

      st_capture_reader_free (r);
      st_input_free (in);
      source_close (&src);
    }

  if (suffix)
    {
      gsize len;
      const uint8_t *p = g_bytes_get_data (bytes, &len);
      GByteArray *more = g_byte_array_new ();

      g_byte_array_append (more, p, len);
      append_good_suffix (more);
      g_bytes_unref (bytes);
      bytes = g_byte_array_free_to_bytes (more);
    }
  expect_recovery (bytes, what, action, suffix);
  g_bytes_unref (bytes);
}

static void
test_bad_frames (void)
{
  GByteArray *a;
  uint8_t zeros[200] = { 0 };

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_EXIT, 16, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len < 24",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_EXIT, 0, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len 0",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_EXIT, 28, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "len % 8",
                    ST_DAMAGE_SKIPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_SAMPLE, 64, 1, 12, zeros, 16);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "len > remaining",
                    ST_DAMAGE_TRUNCATED);

  a = good_prefix ();
  g_byte_array_append (a, zeros, 10);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "EOF inside the frame header",
                    ST_DAMAGE_TRUNCATED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_SAMPLE, 24, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "SAMPLE shorter than its header",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  {
    uint64_t body[2] = { 2, 0x1 };
    append_frame (a, ST_CAPTURE_SAMPLE, 40, 1, 12, body, sizeof body);
  }
  expect_bad_frame (a, ST_ERROR_FORMAT, "SAMPLE n_addrs overflows",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 40, 1, 12, zeros, 16);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER without register block",
                    ST_DAMAGE_PASSED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 32, 1, 12, zeros, 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER shorter than its header",
                    ST_DAMAGE_PASSED);

  /* Stack size overflowing the frame, also with wrap-around values.  */
  static const uint64_t sizes[] = { 1000, 49, G_MAXUINT64 - 10,
                                    G_MAXUINT64 - 39 };
  for (unsigned i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      a = good_prefix ();
      append_frame (a, ST_CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
      append_u64 (a, sizes[i]);
      append_u32 (a, 9);
      append_u32 (a, 0);
      g_byte_array_append (a, zeros, 56);
      expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER size overflows",
                    ST_DAMAGE_PASSED);
    }

  /* n_regs neither 17 nor 9.  */
  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
  append_u64 (a, 8);
  append_u32 (a, 9);
  append_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  append_u32 (a, 5);
  append_u32 (a, 2);
  g_byte_array_append (a, zeros, 40);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER n_regs 5",
                    ST_DAMAGE_PASSED);

  /* 17 registers announced, room for 4.  */
  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 88, 1, 12, NULL, 0);
  append_u64 (a, 8);
  append_u32 (a, 9);
  append_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  append_u32 (a, 17);
  append_u32 (a, 2);
  g_byte_array_append (a, zeros, 32);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER registers overflow",
                    ST_DAMAGE_PASSED);

  /* Same with an odd stack size (unaligned register block).  */
  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 96, 1, 12, NULL, 0);
  append_u64 (a, 3);
  append_u32 (a, 9);
  append_u32 (a, 0);
  g_byte_array_append (a, zeros, 3);
  append_u32 (a, 9);
  append_u32 (a, 1);
  g_byte_array_append (a, zeros, 45);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER i386 registers overflow",
                    ST_DAMAGE_PASSED);

  /* MAP without a NUL in the frame.  */
  a = good_prefix ();
  append_frame (a, ST_CAPTURE_MAP, 64, 1, 12, zeros, 32);
  g_byte_array_append (a, (const uint8_t *) "abcdefgh", 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP without NUL",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_MAP, 56, 1, 12, zeros, 32);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP with no file name at all",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_MAP, 48, 1, 12, zeros, 24);
  expect_bad_frame (a, ST_ERROR_FORMAT, "MAP shorter than its header",
                    ST_DAMAGE_DROPPED);

  a = good_prefix ();
  append_frame (a, ST_CAPTURE_FORK, 24, 1, 12, NULL, 0);
  expect_bad_frame (a, ST_ERROR_FORMAT, "FORK without child pid",
                    ST_DAMAGE_DROPPED);

  /* An unknown register ABI.  */
  a = good_prefix ();
  append_frame (a, ST_CAPTURE_STACK_USER, 56 + 9 * 8, 1, 12, NULL, 0);
  append_u64 (a, 8);
  append_u32 (a, 9);
  append_u32 (a, 0);
  g_byte_array_append (a, zeros, 8);
  append_u32 (a, 9);
  append_u32 (a, 7);
  g_byte_array_append (a, zeros, 9 * 8);
  expect_bad_frame (a, ST_ERROR_FORMAT, "STACK_USER abi 7",
                    ST_DAMAGE_PASSED);

  /* Garbage between frames: 64 bytes of 0xff read as a length of 65535
     (not a multiple of 8).  */
  a = good_prefix ();
  memset (zeros, 0xff, 64);
  g_byte_array_append (a, zeros, 64);
  memset (zeros, 0, sizeof zeros);
  expect_bad_frame (a, ST_ERROR_FORMAT, "64 bytes of garbage",
                    ST_DAMAGE_SKIPPED);

  /* A frame header whose length swallows the rest (zeroed) cannot be
     told from a truncated end.  */
  a = good_prefix ();
  append_frame (a, 99, 4096, 1, 12, zeros, 100);
  expect_bad_frame (a, ST_ERROR_TRUNCATED, "length past the end",
                    ST_DAMAGE_TRUNCATED);
}

/* Frames of types stacktrace does not know pass through, undamaged.  */
static void
test_unknown_types (void)
{
  GByteArray *a = good_prefix ();
  uint8_t body[16] = { 1, 2, 3 };

  append_frame (a, 99, 40, 1, 12, body, sizeof body);
  append_frame (a, 250, 24, 1, 12, NULL, 0);
  append_good_suffix (a);
  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Recovering rec;
  StEvent ev;

  recovering_open (&rec, bytes, TRUE);
  next_ok (rec.r, &ev);
  next_ok (rec.r, &ev);
  next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev.raw_len, ==, 40);
  g_assert_cmpmem (ev.raw + 24, 16, body, 16);
  next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  next_ok (rec.r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
  next_ok (rec.r, &ev);
  next_eof (rec.r);
  g_assert_cmpuint (rec.log.n, ==, 0);
  recovering_close (&rec);
  g_bytes_unref (bytes);
}

/* Several damaged spots in one stream: each reported once, in order,
   and every good frame comes out.  */
static void
test_many_damaged (void)
{
  GByteArray *a = good_prefix ();
  uint8_t junk[48];
  guint n_good = 2;

  memset (junk, 0x5a, sizeof junk);
  for (int i = 0; i < 50; i++)
    {
      uint64_t body[2] = { 1 | ((uint64_t) i << 32), 0x100 + i };

      g_byte_array_append (a, junk, 8 * (1 + i % 6));   /* framing */
      append_frame (a, ST_CAPTURE_SAMPLE, 40, 1, 20 + i, body, sizeof body);
      append_frame (a, ST_CAPTURE_MAP, 48, 1, 20 + i, junk, 24);   /* content */
      n_good++;
    }
  GBytes *bytes = g_byte_array_free_to_bytes (a);
  GError *error = NULL;
  Recovering rec;
  StEvent ev;
  guint n = 0;
  int rc;

  recovering_open (&rec, bytes, TRUE);
  while ((rc = st_capture_reader_next (rec.r, &ev, &error)) > 0)
    {
      if (n >= 2)
        {
          g_assert_cmpint (ev.kind, ==, ST_EVENT_SAMPLE);
          g_assert_cmpint (ev.tid, ==, (int) n - 2);
        }
      n++;
    }
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  g_assert_cmpuint (n, ==, n_good);
  g_assert_cmpuint (rec.log.n, ==, 100);
  recovering_close (&rec);
  g_bytes_unref (bytes);
}

/* A valid STACK_USER with an odd stack size, hand-made: the registers
   come out aligned and exact.  */
static void
test_reader_unaligned_regs (void)
{
  GByteArray *a = g_byte_array_new ();
  GError *error = NULL;
  StEvent ev;
  uint64_t regs[17];

  for (unsigned i = 0; i < 17; i++)
    regs[i] = 0x0102030405060708ull * (i + 1);
  append_file_header (a, 0, 0);
  append_frame (a, ST_CAPTURE_STACK_USER, 40 + 7 + 8 + 136 + 1, 4, 9, NULL, 0);
  append_u64 (a, 7);
  append_u32 (a, 44);
  append_u32 (a, 0);
  g_byte_array_append (a, stack_bytes, 7);
  append_u32 (a, 17);
  append_u32 (a, 2);
  g_byte_array_append (a, (const uint8_t *) regs, sizeof regs);
  g_byte_array_append (a, (const uint8_t *) "", 1);

  GBytes *bytes = g_byte_array_free_to_bytes (a);
  Source src;
  source_open (&src, bytes, FALSE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);
  next_ok (r, &ev);
  g_assert_cmpint (ev.pid, ==, 4);
  g_assert_cmpint (ev.cpu, ==, 3);
  check_stack (&ev, 4, 44, 3, 9, 2, ST_CAPTURE_REGS_X86_64_MASK, 7);
  for (unsigned i = 0; i < 17; i++)
    g_assert_cmphex (ev.stack.regs[i], ==, regs[i]);
  next_eof (r);
  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  init_data ();
  g_test_add_func ("/capture/roundtrip", test_roundtrip);
  g_test_add_func ("/capture/passthrough", test_passthrough);
  g_test_add_func ("/capture/passthrough-empty", test_passthrough_empty);
  g_test_add_func ("/capture/convert-perf", test_convert_perf);
  g_test_add_func ("/capture/output-empty", test_output_empty);
  g_test_add_func ("/capture/recording-header", test_recording_header);
  g_test_add_func ("/capture/recording-command", test_recording_command);
  g_test_add_func ("/capture/writer-limits", test_writer_limits);
  g_test_add_func ("/capture/reader-lenient", test_reader_lenient);
  g_test_add_func ("/capture/reader-unaligned-regs",
                   test_reader_unaligned_regs);
  g_test_add_func ("/capture/bad-headers", test_bad_headers);
  g_test_add_func ("/capture/bad-frames", test_bad_frames);
  g_test_add_func ("/capture/unknown-types", test_unknown_types);
  g_test_add_func ("/capture/many-damaged", test_many_damaged);
  return g_test_run ();
}
