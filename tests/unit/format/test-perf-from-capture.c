/* Sysprof captures converted to perf.data
   (lib/format/perf-from-capture.c), through the pipeline with and
   without unwinding, to a file and a pipe: one cpu-clock attribute,
   processes, mappings (build-ids into the table), raw stacks with their
   kernel parts joined (x86_64 and i386 registers) or, unwinding failed,
   their kernel part and the USER marker, threads named as their
   process, forks, exits, lost events; the
   frames with no counterpart counted by name.  The capture is built byte
   by byte (tests/lib/capture-bytes), the output read back with our own
   perf reader (tests/lib/perf-stream).  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "format/capture-types.h"
#include "format/perf-attr.h"
#include "pipeline.h"

#include "capture-bytes.h"
#include "perf-stream.h"
#include "pipeline-run.h"
#include "test-io.h"

#define CPID 99999901           /* no such process here */

static const uint8_t bid_lib[20] = {
  0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  16,
};
static uint64_t cregs[17];
static uint8_t cstack[100];

/* A capture of a process with raw stacks (x86_64 with its kernel part,
   i386), kernel-only and mixed samples, mappings with and without a
   build-id, a fork and exit, a lost-events LOG, and frames perf.data has
   no counterpart for (TIMESTAMP, MARK, another LOG), built byte by byte
   (tests/lib/capture-bytes).  */
static GBytes *
make_capture (void)
{
  static const uint64_t kernel[] = { ST_CONTEXT_KERNEL,
                                     0xffffffff81000100ull,
                                     0xffffffff81000200ull };
  static const uint64_t mixed[] = { ST_CONTEXT_KERNEL, 0xffffffff81000300ull,
                                    ST_CONTEXT_USER, 0x401010, 0x401020 };
  GByteArray *b = g_byte_array_new ();

  for (int i = 0; i < 17; i++)
    cregs[i] = 0x3000 + i;
  for (size_t i = 0; i < sizeof cstack; i++)
    cstack[i] = (uint8_t) i;
  capture_put_file_header (b, 1000, 1800);
  capture_put_process (b, 0, CPID, 1000, "/usr/bin/prog --arg");
  capture_put_map (b, 0, CPID, 1010, 0x400000, 0x402000, 0x1000, 42,
                   "/usr/bin/prog", NULL, 0);
  capture_put_map (b, 0, CPID, 1020, 0x7f0000000000ull, 0x7f0000010000ull, 0,
                   43, "/usr/lib/libfoo.so", bid_lib, 20);
  capture_put_timestamp (b, 0, CPID, 1030);
  /* A raw stack with its kernel part.  */
  capture_put_sample (b, 1, CPID, CPID + 1, 1100, kernel, 3);
  capture_put_stack_user (b, 1, CPID, CPID + 1, 1100, cstack, 44,
                          ST_REGS_ABI_64, cregs, 17);
  /* A user-only raw stack of a 32-bit process.  */
  capture_put_stack_user (b, 1, CPID, CPID, 1200, cstack, 44, ST_REGS_ABI_32,
                          cregs, 9);
  /* A kernel-only sample that is not a raw stack's.  */
  capture_put_sample (b, 1, CPID, CPID, 1300, kernel, 3);
  capture_put_sample (b, 0, CPID, CPID, 1400, mixed, 5);
  capture_put_mark (b, 0, CPID, 1450, 0, "", "", "");
  capture_put_fork (b, 0, CPID, 1500, CPID + 5);
  capture_put_exit (b, 0, CPID + 5, 1600);
  /* Sysprof's words for lost records, stacktrace's earlier ones, and
     near misses that are other LOG frames.  */
  capture_put_log (b, 0, CPID, 1700, G_LOG_LEVEL_CRITICAL, "Sampler",
                   "Lost 3 samples");
  capture_put_log (b, 0, CPID, 1710, G_LOG_LEVEL_WARNING, "stacktrace",
                   "4 events lost by the recorder");
  capture_put_log (b, 0, CPID, 1720, G_LOG_LEVEL_CRITICAL, "Sampler",
                   "Lost many samples");
  capture_put_log (b, 0, CPID, 1730, G_LOG_LEVEL_CRITICAL, "app",
                   "Lost 5 samples");
  capture_put_log (b, 0, CPID, 1800, G_LOG_LEVEL_MESSAGE, "app", "hello");
  return g_byte_array_free_to_bytes (b);
}

/* The capture through the pipeline (MODE) into perf.data; *STATS gets the
   statistics text.  */
static GByteArray *
capture_to_perf (GBytes *capture, gboolean output_file, StMode mode,
                 char **stats)
{
  Source src;
  Sink sink;
  StPipelineOptions opts = { .mode = mode, .output_format = ST_FORMAT_PERF };

  source_open (&src, capture, TRUE);
  sink_open (&sink, output_file);
  *stats = run_pipeline (src.fd, sink.fd, &opts);
  source_close (&src);
  return g_bytes_unref_to_array (sink_close (&sink));
}

static void
check_from_capture (const Result *res, gboolean raw_stacks)
{
  uint64_t st = result_attr_u64 (res, 0, ST_PERF_ATTR_SAMPLE_TYPE);
  guint i = result_first_data (res);
  const Ev *e;

  g_assert_no_error (res->error);
  g_assert_cmpuint (res->n_attrs, ==, 1);
  /* cpu-clock, software.  */
  g_assert_cmphex (result_attr_u64 (res, 0, 0), ==,
                   ((uint64_t) 128 << 32) | ST_PERF_TYPE_SOFTWARE);
  g_assert_cmpuint (result_attr_u64 (res, 0, ST_PERF_ATTR_CONFIG), ==,
                    ST_PERF_COUNT_SW_CPU_CLOCK);
  g_assert_cmpint (st_perf_attr_has_raw_stacks (st), ==, raw_stacks);
  g_assert_true (st & ST_PERF_SAMPLE_CALLCHAIN);

  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (e->str, ==, "prog");
  g_assert_cmpint (e->pid, ==, CPID);
  g_assert_cmpint (e->time, ==, 1000);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "/usr/bin/prog");
  g_assert_cmpuint (e->inode, ==, 42);
  g_assert_cmpuint (e->prot, ==, PROT_READ | PROT_EXEC);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpmem (e->build_id, e->build_id_len, bid_lib, 20);
  g_assert_cmpint (e->time, ==, 1020);

  /* A thread other than the main one is named as its process before
     its first sample (perf shows ":TID" for a thread without COMM).  */
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (e->str, ==, "prog");
  g_assert_cmpint (e->pid, ==, CPID);
  g_assert_cmpint (e->tid, ==, CPID + 1);
  g_assert_cmpint (e->time, ==, 1100);

  e = ev_at (res, i++);
  if (raw_stacks)
    {
      g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpint (e->tid, ==, CPID + 1);
      g_assert_cmpuint (e->n_ips, ==, 3);          /* kernel part joined */
      g_assert_cmphex (e->u64s[2], ==, 0xffffffff81000200ull);
      g_assert_cmpuint (e->n_regs, ==, 17);
      g_assert_cmpuint (e->stack_size, ==, 44);
      g_assert_cmpuint (e->stack_last, ==, 43);
      e = ev_at (res, i++);
      g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_32);
      g_assert_cmpuint (e->n_ips, ==, 0);
      /* i386 registers first, zeros after.  */
      g_assert_cmphex (e->u64s[8], ==, 0x3008);
      g_assert_cmphex (e->u64s[9], ==, 0);
    }
  else
    {
      /* Unwinding failed (no such files): kernel part, marker and the
         sampled IP.  */
      g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpuint (e->n_ips, ==, 5);
      g_assert_cmphex (e->u64s[3], ==, ST_CONTEXT_USER);
      g_assert_cmphex (e->u64s[4], ==, 0x3008);
      e = ev_at (res, i++);
      g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpuint (e->n_ips, ==, 2);
      g_assert_cmphex (e->u64s[0], ==, ST_CONTEXT_USER);
      g_assert_cmphex (e->u64s[1], ==, 0x3008);
    }
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpuint (e->n_ips, ==, 3);
  g_assert_cmpint (e->time, ==, 1300);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpuint (e->n_ips, ==, 5);
  g_assert_cmphex (e->u64s[4], ==, 0x401020);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (e->pid, ==, CPID + 5);
  g_assert_cmpint (e->parent_pid, ==, CPID);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (e->pid, ==, CPID + 5);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
  g_assert_cmpuint (e->lost, ==, 3);
  e = ev_at (res, i++);
  g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
  g_assert_cmpuint (e->lost, ==, 4);
  g_assert_cmpuint (i, ==, res->evs->len);

  if (!res->pipe_mode)
    {
      gsize len;
      const char *arch;

      /* The build-id table, and the arch of the registers.  */
      g_assert_cmpuint (res->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                        36 + ST_PERF_NAME_ALIGN);
      g_assert_cmpint (res->features[ST_PERF_FEAT_ARCH] != NULL, ==,
                       raw_stacks);
      if (raw_stacks)
        {
          arch = g_bytes_get_data (res->features[ST_PERF_FEAT_ARCH], &len);
          g_assert_cmpstr (arch + 4, ==, "x86_64");
        }
    }
}

static void
test_from_capture (void)
{
  GBytes *capture = make_capture ();

  for (int unwind = 0; unwind <= 1; unwind++)
    for (int out_file = 0; out_file <= 1; out_file++)
      {
        char *stats = NULL;
        GByteArray *out = capture_to_perf (capture, out_file,
                                           unwind ? ST_MODE_UNWIND
                                                  : ST_MODE_PASSTHRU, &stats);
        Result *res = read_bytes (out, !out_file);

        check_from_capture (res, !unwind);
        g_assert_nonnull (strstr (stats, "5 event(s) have no counterpart in "
                                         "the output format and were not "
                                         "written: LOG=3, MARK=1, "
                                         "TIMESTAMP=1\n"));
        g_free (stats);
        result_free (res);
        g_byte_array_free (out, TRUE);
      }
  g_bytes_unref (capture);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-from-capture/convert", test_from_capture);
  return g_test_run ();
}
