/* The capture output behind --output-format=sysprof
   (lib/format/capture-output.c): a capture of every frame type (built
   byte by byte, tests/lib/capture-bytes) copied byte-identical to a pipe
   and to a file, end time patched in when it was 0; perf events
   converted frame by frame (kernel parts, unwound chains, dropped
   anonymous mappings, threads without a counterpart, lost events as a
   LOG); the file header of a converted perf recording (first timed
   event, CLOCK_DATA's wall clock, the command from CMDLINE, perf
   records built with tests/lib/perf-stream); and an empty output.  All
   read back with the capture reader.  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include <glib.h>

#include "format/capture-output.h"
#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/input.h"
#include "format/output.h"
#include "format/perf-types.h"
#include "format/reader.h"

#include "capture-bytes.h"
#include "perf-stream.h"
#include "test-io.h"

static const uint8_t build_id20[20] = {
  0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
  0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xff,
};

static uint8_t stack_bytes[64];
static uint64_t regs_perf[20];   /* perf's 0xff0fff: AX..GS, R8..R15 */

static void
init_data (void)
{
  unsigned i = 0;

  for (i = 0; i < sizeof stack_bytes; i++)
    stack_bytes[i] = (uint8_t) (i * 3 + 1);
  i = 0;
  for (unsigned r = 0; r < 24; r++)
    if (0xff0fffull & (1ull << r))
      regs_perf[i++] = 0x2000 + r;
}

static StEvent
stack_event (int32_t pid, int32_t tid, int cpu, int64_t time, uint32_t abi,
             uint64_t mask, const uint64_t *regs, uint64_t size)
{
  return capture_stack_event (pid, tid, cpu, time, abi, mask, regs,
                              stack_bytes, size);
}

static void
check_stack (const StEvent *ev, int32_t pid, int32_t tid, int cpu,
             int64_t time, uint32_t abi, uint64_t mask, uint64_t size)
{
  capture_check_stack (ev, pid, tid, cpu, time, abi, mask, stack_bytes, size);
}

/* ---- passthrough --------------------------------------------------------- */

#define END_TIME 5000

/* A capture with a frame of every type the format facts describe (and
   one of a type they do not), the last one at END_TIME; END_TIME_FIELD
   in its header.  */
static GBytes *
every_frame_type (int64_t end_time_field)
{
  static const uint64_t ips[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                                  ST_CONTEXT_USER, 0x401000, 0x401100 };
  static const CaptureCounter counters[] = {
    { "cpu", "load", "percent busy", 1, 1, 0x4059000000000000 },
    { "mem", "rss", "bytes", 2, 0, 12345 },
  };
  static const uint32_t ids[] = { 1, 2 };
  static const int64_t values[] = { 0x4049000000000000, 4096 };
  static const char mountinfo[] = "36 35 98:0 / / rw - ext4 /dev/sda1 rw\n";
  uint64_t regs[17];
  GByteArray *b = g_byte_array_new ();

  for (unsigned i = 0; i < 17; i++)
    regs[i] = 0x1000 + i;
  capture_put_file_header (b, 900, end_time_field);
  capture_put_sample (b, 1, 100, 101, 1000, ips, G_N_ELEMENTS (ips));
  capture_put_stack_user (b, 2, 100, 102, 2000, stack_bytes, 13, 2, regs,
                          17);
  capture_put_stack_user (b, 1, 300, 301, 2500, stack_bytes, 5, 1, regs, 9);
  capture_put_map (b, 1, 100, 3200, 0x400000, 0x401000, 0x1000, 77,
                   "/usr/bin/foo", build_id20, sizeof build_id20);
  capture_put_map (b, -1, 100, 3300, 0x7f0000000000ull, 0x7f0000002000ull, 0,
                   0, "[vdso]", NULL, 0);
  capture_put_process (b, 0, 100, 4000, "/usr/bin/foo --bar");
  capture_put_fork (b, 0, 100, 4100, 200);
  capture_put_exit (b, 1, 200, 4200);
  capture_put_log (b, 1, 100, 4300, G_LOG_LEVEL_WARNING, "stacktrace",
                   "hello log");
  capture_put_mark (b, 1, 100, 4400, 50, "group", "name", "a mark");
  capture_put_ctrdef (b, -1, 100, 4500, counters, G_N_ELEMENTS (counters));
  capture_put_ctrset (b, -1, 100, 4600, ids, values, G_N_ELEMENTS (ids));
  capture_put_file_chunk (b, -1, 100, 4700, TRUE, "/proc/100/mountinfo",
                          mountinfo, strlen (mountinfo));
  capture_put_overlay (b, -1, 100, 4800, 0, "/var/lib/layer0", "/");
  capture_put_zero_frame (b, 99, 1, 100, 4900, 16);
  capture_put_timestamp (b, 1, 100, END_TIME);
  return g_byte_array_free_to_bytes (b);
}

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
  void *impl = st_capture_output_new (out, reader, FALSE);

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
  GBytes *file = every_frame_type (END_TIME);
  GBytes *piped = every_frame_type (0);
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
    memcpy (expect + CAPTURE_HEADER_END_TIME_AT, &end, 8);
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

  capture_put_file_header (a, 42, 0);
  in = g_byte_array_free_to_bytes (a);
  copy = passthrough (in, FALSE);
  g_assert_true (g_bytes_equal (copy, in));
  g_bytes_unref (copy);
  g_bytes_unref (in);
}

/* ---- conversion of perf events ------------------------------------------ */

static void
expect_sample (StCaptureReader *r, int32_t pid, int32_t tid, int64_t time,
               const uint64_t *ips, uint32_t n)
{
  StEvent ev;

  capture_next_ok (r, &ev);
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
  void *impl = st_capture_output_new (out, NULL, TRUE);
  const StWriterOps *ops = &st_capture_output_ops;

  /* SAMPLE as-is; the first event's time starts a fresh header.  */
  ev = capture_perf_event (ST_EVENT_SAMPLE, 10, 11, 1, 7000);
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
  ev = capture_perf_event (ST_EVENT_MAP, 10, 10, 1, 7400);
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
  /* perf's kernel mapping: no counterpart (Sysprof 48 crashes on a
     MAP frame of pid -1), nothing written.  */
  ev = capture_perf_event (ST_EVENT_MAP, -1, -1, 1, 7450);
  ev.map.start = 0xffffffff81000000ull;
  ev.map.end = 0xffffffff82209988ull;
  ev.map.filename = "[kernel.kallsyms]_text";
  ev.map.exec_known = true;
  ev.map.prot = PROT_READ | PROT_EXEC;
  g_assert_false (ops->event (impl, &ev));

  ev = capture_perf_event (ST_EVENT_PROCESS, 10, 10, 1, 7500);
  ev.process.comm = "worker";
  ev.process.exec = true;
  g_assert_true (ops->event (impl, &ev));

  /* A new thread has no counterpart; a new process has.  */
  ev = capture_perf_event (ST_EVENT_FORK, 10, 13, 1, 7600);
  ev.fork.parent_pid = 10;
  ev.fork.parent_tid = 10;
  g_assert_false (ops->event (impl, &ev));
  ev = capture_perf_event (ST_EVENT_FORK, 20, 20, 1, 7700);
  ev.fork.parent_pid = 10;
  ev.fork.parent_tid = 12;
  g_assert_true (ops->event (impl, &ev));

  ev = capture_perf_event (ST_EVENT_EXIT, 10, 13, 1, 7800);
  g_assert_false (ops->event (impl, &ev));
  ev = capture_perf_event (ST_EVENT_EXIT, 20, 20, 1, 7900);
  g_assert_true (ops->event (impl, &ev));

  ev = capture_perf_event (ST_EVENT_LOST, 10, 10, 1, 8000);
  ev.lost.count = 5;
  g_assert_true (ops->event (impl, &ev));

  ev = capture_perf_event (ST_EVENT_OTHER, 10, 10, 1, 8100);
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
  capture_check_file_header (all, 7000, 8300);
  source_open (&src, bytes, TRUE);
  StInput *in = st_input_new (src.fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);

  expect_sample (r, 10, 11, 7000, mixed, G_N_ELEMENTS (mixed));

  expect_sample (r, 10, 12, 7100, kchain, G_N_ELEMENTS (kchain));
  capture_next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7100, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);
  expect_sample (r, 10, 12, 7200, mixed, 2);
  capture_next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7200, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);
  capture_next_ok (r, &ev);
  check_stack (&ev, 10, 12, 1, 7300, ST_REGS_ABI_64,
               ST_CAPTURE_REGS_X86_64_MASK, 21);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/data");
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/code");
  g_assert_cmphex (ev.map.pgoff, ==, 0x3000);
  g_assert_cmpuint (ev.map.inode, ==, 5);
  g_assert_cmpmem (ev.map.build_id, ev.map.build_id_len, build_id20, 20);
  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (ev.map.filename, ==, "/unknown-prot");
  g_assert_cmpuint (ev.map.build_id_len, ==, 0);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (ev.process.comm, ==, "worker");

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (ev.fork.parent_pid, ==, 10);
  g_assert_cmpint (ev.pid, ==, 20);
  g_assert_cmpint (ev.time, ==, 7700);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (ev.pid, ==, 20);

  capture_next_ok (r, &ev);
  g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
  capture_check_log (&ev, G_LOG_LEVEL_CRITICAL, "Sampler", "Lost 5 samples");
  g_assert_cmpint (ev.time, ==, 8000);

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
  capture_next_eof (r);

  st_capture_reader_free (r);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (bytes);
}

/* A pipe-mode HEADER_FEATURE record with perf's CMDLINE: ARGS.  */
static GByteArray *
cmdline_feature (const char *const *args)
{
  GByteArray *b = g_byte_array_new ();
  guint n = g_strv_length ((char **) args);
  guint at = begin_record (b, ST_PERF_RECORD_HEADER_FEATURE, 0);

  put_u64 (b, ST_PERF_FEAT_CMDLINE);
  put_u32 (b, n);
  for (guint i = 0; i < n; i++)
    {
      /* Padded to 64 with NULs, as perf writes them.  */
      put_u32 (b, 64);
      put (b, args[i], strlen (args[i]));
      put_zeros (b, 64 - strlen (args[i]));
    }
  end_record (b, at);
  return b;
}

/* A pipe-mode HEADER_FEATURE record with perf's CLOCK_DATA: the samples'
   clock read CLOCK_NS when the wall clock read WALL_NS.  */
static GByteArray *
clock_feature (uint64_t wall_ns, uint64_t clock_ns)
{
  GByteArray *b = g_byte_array_new ();
  guint at = begin_record (b, ST_PERF_RECORD_HEADER_FEATURE, 0);

  put_u64 (b, ST_PERF_FEAT_CLOCK_DATA);
  put_u32 (b, 1);               /* version */
  put_u32 (b, 1);               /* clockid */
  put_u64 (b, wall_ns);
  put_u64 (b, clock_ns);
  end_record (b, at);
  return b;
}

/* A capture converted from `perf record -k 1 -- /bin/prog arg`: the
   header starts at the first timed event (not at perf's time-0
   synthesized records), its capture time is CLOCK_DATA's wall-clock
   time at that event, the program's one PROCESS frame names it by its
   comm, not its command line (perf's "perf-exec" placeholder is not
   written); on a
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
      void *impl = st_capture_output_new (out, NULL, TRUE);
      const StWriterOps *ops = &st_capture_output_ops;

      ev = capture_perf_event (ST_EVENT_OTHER, -1, -1, 1, 0);
      ev.raw = feature->data;
      ev.raw_len = feature->len;
      g_assert_false (ops->event (impl, &ev));
      ev.raw = clock->data;
      ev.raw_len = clock->len;
      g_assert_false (ops->event (impl, &ev));
      ev = capture_perf_event (ST_EVENT_PROCESS, 30, 30, 1, 0);
      ev.process.comm = "perf-exec";
      g_assert_true (ops->event (impl, &ev));
      ev = capture_perf_event (ST_EVENT_PROCESS, 40, 40, 1, 0);
      ev.process.comm = "bash";
      g_assert_true (ops->event (impl, &ev));
      /* The handover to the fd while the header waits writes nothing.  */
      g_assert_true (st_output_flush (out, NULL));
      ev = capture_perf_event (ST_EVENT_PROCESS, 30, 30, 1, 5000);
      ev.process.comm = "prog";
      ev.process.exec = true;
      g_assert_true (ops->event (impl, &ev));
      ev = capture_perf_event (ST_EVENT_SAMPLE, 30, 30, 1, 6000);
      ev.sample.ips = ips;
      ev.sample.n_ips = G_N_ELEMENTS (ips);
      g_assert_true (ops->event (impl, &ev));
      GBytes *bytes = finish_output (impl, out, &sink);
      const uint8_t *all = g_bytes_get_data (bytes, NULL);
      Source src;

      capture_check_file_header (all, 5000, to_file ? 6000 : 0);
      g_assert_cmpstr ((const char *) all
                       + G_STRUCT_OFFSET (StCaptureFileHeader, capture_time),
                       ==, "2023-11-14T22:13:20Z");
      source_open (&src, bytes, TRUE);
      StInput *in = st_input_new (src.fd);
      StCaptureReader *r = st_capture_reader_new (in, &error);
      g_assert_no_error (error);
      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
      g_assert_cmpint (ev.pid, ==, 40);
      g_assert_cmpstr (ev.process.comm, ==, "bash");
      capture_next_ok (r, &ev);
      g_assert_cmpint (ev.kind, ==, ST_EVENT_PROCESS);
      g_assert_cmpint (ev.pid, ==, 30);
      g_assert_cmpstr (ev.process.comm, ==, "prog");
      expect_sample (r, 30, 30, 6000, ips, G_N_ELEMENTS (ips));
      capture_next_eof (r);
      st_capture_reader_free (r);
      st_input_free (in);
      source_close (&src);
      g_bytes_unref (bytes);
      g_byte_array_free (feature, TRUE);
      g_byte_array_free (clock, TRUE);
    }
}

/* Finishing without any event still gives a valid (empty) capture.  */
static void
test_output_empty (void)
{
  GError *error = NULL;
  Sink sink;

  sink_open (&sink, FALSE);
  StOutput *out = st_output_new (sink.fd);
  void *impl = st_capture_output_new (out, NULL, TRUE);
  g_assert_true (st_capture_output_ops.finish (impl, &error));
  g_assert_no_error (error);
  st_capture_output_ops.free (impl);
  st_output_free (out);

  GBytes *bytes = sink_close (&sink);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 256);
  capture_check_file_header (g_bytes_get_data (bytes, NULL), 0, 0);
  g_bytes_unref (bytes);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  init_data ();
  g_test_add_func ("/capture-output/passthrough", test_passthrough);
  g_test_add_func ("/capture-output/passthrough-empty",
                   test_passthrough_empty);
  g_test_add_func ("/capture-output/convert-perf", test_convert_perf);
  g_test_add_func ("/capture-output/empty", test_output_empty);
  g_test_add_func ("/capture-output/recording-header",
                   test_recording_header);
  return g_test_run ();
}
