/* The filter as a whole, through its public interface (pipeline.h), on
   the committed fixture capture (tests/data/fixture: st-fixture's
   main -> st_run -> st_recurse x N -> st_leaf_work, 299 raw-stack
   samples, 12 of them with their kernel part in a SAMPLE frame before).

   Input and output are walked here frame by frame at the offsets of the
   capture format (formats.md: the 256-byte header; each frame's u16 len
   @0, i32 pid @4, i64 time @8, type @16; SAMPLE's n_addrs @24, tid @28,
   addresses @32; STACK_USER type 18), not with the library's reader.
   Checked: passed through, every frame comes out byte for byte and in
   order; unwound, every other frame still does, each raw-stack frame is
   replaced where it stood by a SAMPLE of the same pid, tid and time,
   its kernel part (when it had one) joined in front, and none is lost;
   the counters agree with the frames (samples, complete + truncated +
   failed, events in and out) and with the --chains lines; the known
   call path; a mode that writes nothing; a stop asked by the check
   function (the output a prefix of the whole); a damaged frame reported
   through the report function, the frames around it kept; a stack
   copy cut short by the options; counters in the output only when
   asked; the call graph collected only when asked.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/reader.h"
#include "format/writer.h"
#include "pipeline-run.h"
#include "summary-text.h"
#include "text-sink.h"

#define FIXTURE ST_FIXTURE_DIR "/fixture.syscap"

#define SAMPLE 2
#define MAP 3
#define CTRDEF 8
#define CTRSET 9
#define LOG 12
#define STACK_USER 18

/* --- the capture format, by hand ------------------------------------------ */

typedef struct
{
  const uint8_t *bytes;
  uint16_t len;
  uint8_t type;
  int32_t pid;
  int32_t tid;          /* SAMPLE and STACK_USER */
  int64_t time;
} Frame;

static uint16_t
get16 (const uint8_t *p)
{
  uint16_t v;
  memcpy (&v, p, 2);
  return v;
}

static int32_t
get32 (const uint8_t *p)
{
  int32_t v;
  memcpy (&v, p, 4);
  return v;
}

static int64_t
get64 (const uint8_t *p)
{
  int64_t v;
  memcpy (&v, p, 8);
  return v;
}

/* The frames of a capture: every one, up to the end (asserted whole).  */
static GArray *
frames_of (const uint8_t *data, size_t len)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (Frame));
  size_t at = 256;

  g_assert_cmpuint (len, >=, 256);
  g_assert_cmphex (get32 (data), ==, (int32_t) 0xFDCA975E);
  while (at < len)
    {
      Frame f = { .bytes = data + at };
      g_assert_cmpuint (len - at, >=, 24);
      f.len = get16 (data + at);
      g_assert_cmpuint (f.len, >=, 24);
      g_assert_cmpuint (f.len % 8, ==, 0);
      g_assert_cmpuint (f.len, <=, len - at);
      f.pid = get32 (data + at + 4);
      f.time = get64 (data + at + 8);
      f.type = data[at + 16];
      if (f.type == SAMPLE)
        f.tid = get32 (data + at + 28);
      else if (f.type == STACK_USER)
        f.tid = get32 (data + at + 32);
      g_array_append_val (list, f);
      at += f.len;
    }
  return list;
}

static const Frame *
frame (GArray *list, guint i)
{
  g_assert_cmpuint (i, <, list->len);
  return &g_array_index (list, Frame, i);
}

static guint
n_addrs (const Frame *f)
{
  return get16 (f->bytes + 24);
}

static uint64_t
addr (const Frame *f, guint i)
{
  return (uint64_t) get64 (f->bytes + 32 + 8 * i);
}

static gboolean
same_frame (const Frame *a, const Frame *b)
{
  return a->len == b->len && memcmp (a->bytes, b->bytes, a->len) == 0;
}

/* Whether frame I of a capture is a kernel part: a SAMPLE of the same
   pid, tid and time as the raw-stack frame right after it.  */
static gboolean
is_kernel_part (GArray *list, guint i)
{
  if (i + 1 >= list->len)
    return FALSE;
  const Frame *f = frame (list, i), *next = frame (list, i + 1);
  return f->type == SAMPLE && next->type == STACK_USER && f->pid == next->pid
         && f->tid == next->tid && f->time == next->time;
}

/* --- running ---------------------------------------------------------------- */

typedef struct
{
  char *output;
  gsize output_len;
  GArray *frames;
  char *chains;
  char *stats;
  StUnwindCounters total;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->output);
  g_array_unref (r->frames);
  g_free (r->chains);
  g_free (r->stats);
}

static Run
run_capture (const char *path, StPipelineOptions *opts)
{
  Run r = { 0 };
  TextSink chains;
  g_autofree char *out_path = NULL;
  int in_fd = open (path, O_RDONLY | O_CLOEXEC);
  int out_fd = g_file_open_tmp ("st-pipeline-XXXXXX", &out_path, NULL);

  g_assert_cmpint (in_fd, >=, 0);
  g_assert_cmpint (out_fd, >=, 0);
  opts->chains = text_sink_open (&chains);
  opts->output_format = ST_FORMAT_SYSPROF;
  if (opts->symfs == NULL)
    opts->symfs = ST_FIXTURE_DIR;
  r.stats = run_pipeline_full (in_fd, out_fd, opts, &r.total, NULL);
  opts->chains = NULL;
  r.chains = text_sink_close (&chains);
  close (in_fd);
  close (out_fd);
  g_assert_true (g_file_get_contents (out_path, &r.output, &r.output_len,
                                      NULL));
  g_unlink (out_path);
  r.frames = frames_of ((const uint8_t *) r.output, r.output_len);
  return r;
}

static Run
run_fixture (StPipelineOptions *opts)
{
  return run_capture (FIXTURE, opts);
}

static GArray *
fixture_frames (char **bytes)
{
  gsize len;

  g_assert_true (g_file_get_contents (FIXTURE, bytes, &len, NULL));
  return frames_of ((const uint8_t *) *bytes, len);
}

/* --- the cases ---------------------------------------------------------------- */

/* The fixture with every frame of its process followed by a copy as of
   process PID + 1 (and thread TID + 1): two processes whose samples
   alternate; after the 100th sample, one more copy as of a process the
   stream never mapped.  Written to a temporary file, whose path is
   returned.  */
static char *
fixture_twice (void)
{
  g_autofree char *in_bytes = NULL;
  GArray *in = fixture_frames (&in_bytes);
  GByteArray *out = g_byte_array_new ();
  int32_t pid = 0;
  guint samples = 0;
  char *path = NULL;

  for (guint i = 0; i < in->len && pid == 0; i++)
    if (frame (in, i)->type == STACK_USER)
      pid = frame (in, i)->pid;
  g_byte_array_append (out, (const uint8_t *) in_bytes, 256);
  for (guint i = 0; i < in->len; i++)
    {
      const Frame *f = frame (in, i);
      g_byte_array_append (out, f->bytes, f->len);
      if (f->pid != pid)
        continue;
      for (int copy = 1; copy <= 2; copy++)
        {
          if (copy == 2 && !(f->type == STACK_USER && ++samples == 100))
            break;
          guint at = out->len;
          g_byte_array_append (out, f->bytes, f->len);
          int32_t other = copy == 1 ? pid + 1 : pid + 2;
          memcpy (out->data + at + 4, &other, 4);
          guint tid_at = f->type == SAMPLE ? 28
                         : f->type == STACK_USER ? 32 : 0;
          if (tid_at != 0)
            {
              int32_t tid = get32 (out->data + at + tid_at) + copy;
              memcpy (out->data + at + tid_at, &tid, 4);
            }
        }
    }
  int fd = g_file_open_tmp ("st-pipeline-twice-XXXXXX", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, out->data, out->len), ==, (gssize) out->len);
  close (fd);
  g_byte_array_unref (out);
  g_array_unref (in);
  return path;
}

/* --jobs with a process table that forgets (its bound at two processes,
   two whose samples alternate and a third that comes in between): the
   workers' copies forget what the pipeline's forgets, when it does, so
   the output is that of one thread.  */
static void
test_jobs_forgetting (void)
{
  g_autofree char *twice = fixture_twice ();
  StPipelineOptions one = {
    .mode = ST_MODE_UNWIND, .engine = ST_ENGINE_FAST, .stitch = TRUE,
    .given_files_only = TRUE, .max_processes = 2, .jobs = 1,
  };
  StPipelineOptions three = one;
  three.jobs = 3;
  Run a = run_capture (twice, &one);
  Run b = run_capture (twice, &three);

  g_assert_cmpuint (a.output_len, ==, b.output_len);
  g_assert_true (memcmp (a.output, b.output, a.output_len) == 0);
  g_assert_cmpstr (a.chains, ==, b.chains);
  g_assert_cmpstr (a.stats, ==, b.stats);
  g_assert_cmpuint (a.total.samples, ==, 2 * 299 + 1);
  run_clear (&a);
  run_clear (&b);
  g_unlink (twice);
}

static void
test_passthru (void)
{
  g_autofree char *in_bytes = NULL;
  GArray *in = fixture_frames (&in_bytes);
  StPipelineOptions opts = { .mode = ST_MODE_PASSTHRU };
  Run r = run_fixture (&opts);

  g_assert_cmpuint (r.frames->len, ==, in->len);
  for (guint i = 0; i < in->len; i++)
    g_assert_true (same_frame (frame (in, i), frame (r.frames, i)));
  g_assert_cmpuint (r.total.samples, ==, 0);
  g_assert_cmpstr (r.chains, ==, "");
  g_autofree char *events = g_strdup_printf ("stacktrace: %u events read, %u "
                                             "written\n", in->len, in->len);
  g_assert_nonnull (strstr (r.stats, events));
  g_assert_nonnull (strstr (r.stats, "299 raw-stack samples passed through"));
  run_clear (&r);
  g_array_unref (in);
}

/* Unwound: the output frame by frame against the input's.  */
static void
check_unwound (GArray *in, const Run *r)
{
  guint o = 0, raw = 0, joined = 0, addrs = 0, dropped = 0;

  for (guint i = 0; i < in->len; i++)
    {
      const Frame *f = frame (in, i);
      /* perf's kernel map, as an older converter wrote it: not passed
         on (Sysprof 48 crashes on a MAP frame of a negative pid).  */
      if (f->type == MAP && f->pid < 0)
        {
          dropped++;
          continue;
        }
      if (is_kernel_part (in, i))
        {
          /* Written with its raw stack: as the kernel part of the
             SAMPLE that replaces it.  */
          const Frame *out = frame (r->frames, o);
          g_assert_cmpuint (out->type, ==, SAMPLE);
          g_assert_cmpuint (n_addrs (out), >=, n_addrs (f));
          for (guint k = 0; k < n_addrs (f); k++)
            g_assert_cmphex (addr (out, k), ==, addr (f, k));
          joined++;
          continue;
        }
      const Frame *out = frame (r->frames, o++);
      if (f->type != STACK_USER)
        {
          g_assert_true (same_frame (f, out));
          continue;
        }
      raw++;
      g_assert_cmpuint (out->type, ==, SAMPLE);
      g_assert_cmpint (out->pid, ==, f->pid);
      g_assert_cmpint (out->tid, ==, f->tid);
      g_assert_cmpint (out->time, ==, f->time);
      addrs += n_addrs (out);
    }
  g_assert_cmpuint (o, ==, r->frames->len);
  g_assert_cmpuint (raw, ==, 299);
  g_assert_cmpuint (joined, ==, 12);
  g_assert_cmpuint (dropped, ==, 1);
  for (guint i = 0; i < r->frames->len; i++)
    g_assert_cmpuint (frame (r->frames, i)->type, !=, STACK_USER);

  /* The counters: every raw stack once.  */
  g_assert_cmpuint (r->total.samples, ==, raw);
  g_assert_cmpuint (r->total.complete + r->total.truncated
                    + r->total.failed, ==, raw);
  g_assert_cmpuint (r->total.frames, <=, addrs);
  g_autofree char *events = g_strdup_printf ("stacktrace: %u events read, %u "
                                             "written (%u kernel part(s) "
                                             "written with their raw stack as "
                                             "one sample)\n", in->len,
                                             in->len - joined - dropped,
                                             joined);
  g_assert_nonnull (strstr (r->stats, events));

  /* One --chains line per raw stack, in order, with its pid, tid and
     time; the user frames the counters count.  */
  g_auto (GStrv) lines = g_strsplit (r->chains, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, raw + 1);
  guint line = 0;
  uint64_t chain_frames = 0;
  for (guint i = 0; i < in->len; i++)
    {
      const Frame *f = frame (in, i);
      if (f->type != STACK_USER)
        continue;
      g_auto (GStrv) fields = g_strsplit (lines[line++], "\t", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, 5);
      g_assert_cmpint (g_ascii_strtoll (fields[0], NULL, 10), ==, f->pid);
      g_assert_cmpint (g_ascii_strtoll (fields[1], NULL, 10), ==, f->tid);
      g_assert_cmpint (g_ascii_strtoll (fields[2], NULL, 10), ==, f->time);
      g_auto (GStrv) chain = g_strsplit (fields[3], ",", -1);
      if (fields[3][0] != '\0')
        chain_frames += g_strv_length (chain);
    }
  g_assert_cmpuint (chain_frames, ==, r->total.frames);
}

static void
unwind_engine (gconstpointer data)
{
  g_autofree char *in_bytes = NULL;
  GArray *in = fixture_frames (&in_bytes);
  StPipelineOptions opts = { .mode = ST_MODE_UNWIND,
                             .engine = GPOINTER_TO_INT (data) };
  Run r = run_fixture (&opts);

  check_unwound (in, &r);
  /* The fixture's call paths, to main (through st_recurse, or through
     st_read_clock from the vDSO), in nearly every sample.  */
  g_assert_cmpuint (r.total.complete, >=, 290);
  g_auto (GStrv) lines = g_strsplit (r.chains, "\n", -1);
  guint known = 0;
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    if ((strstr (lines[i], "st_recurse;") != NULL
         || strstr (lines[i], "clock_gettime;st_read_clock;") != NULL)
        && strstr (lines[i], ";st_run;main") != NULL)
      known++;
  g_assert_cmpuint (known, >=, 290);
  run_clear (&r);
  g_array_unref (in);
}

/* Only 64 bytes of each stack: nothing reaches main any more, and the
   causes say why.  */
static void
test_truncate_stack (void)
{
  StPipelineOptions opts = { .mode = ST_MODE_UNWIND, .engine = ST_ENGINE_FAST,
                             .truncate_stack = 64 };
  Run r = run_fixture (&opts);

  g_assert_cmpuint (r.total.samples, ==, 299);
  g_assert_cmpuint (r.total.complete, ==, 0);
  g_assert_cmpuint (r.total.by_cause[ST_CAUSE_STACK_END], >=, 290);
  g_assert_null (strstr (r.chains, ";main"));
  run_clear (&r);
}

/* Counter frames (CTRDEF, CTRSET, each with its LOG line) only when
   asked, and only then.  */
static void
test_counters (void)
{
  StPipelineOptions opts = { .mode = ST_MODE_UNWIND, .engine = ST_ENGINE_FAST };
  Run plain = run_fixture (&opts);
  opts.counters = TRUE;
  Run counted = run_fixture (&opts);
  guint defs = 0, sets = 0, samples = 0, logs = 0;

  for (guint i = 0; i < plain.frames->len; i++)
    {
      g_assert_cmpuint (frame (plain.frames, i)->type, !=, CTRDEF);
      g_assert_cmpuint (frame (plain.frames, i)->type, !=, CTRSET);
      g_assert_cmpuint (frame (plain.frames, i)->type, !=, LOG);
    }
  for (guint i = 0; i < counted.frames->len; i++)
    {
      const Frame *f = frame (counted.frames, i);
      defs += f->type == CTRDEF;
      sets += f->type == CTRSET;
      samples += f->type == SAMPLE;
      logs += f->type == LOG;
      /* Defined before they are set.  */
      if (f->type == CTRSET)
        g_assert_cmpuint (defs, >, 0);
    }
  g_assert_cmpuint (defs, >=, 1);
  g_assert_cmpuint (sets, >=, 1);
  /* Sysprof 48 shows LOG frames (its Logs), not counters: one per set.  */
  g_assert_cmpuint (logs, ==, defs + sets);
  /* Added, nothing else changed: the same samples.  */
  g_assert_cmpuint (counted.frames->len, ==,
                    plain.frames->len + defs + sets + logs);
  g_assert_cmpuint (samples, ==, 299);
  run_clear (&plain);
  run_clear (&counted);
}

/* --- through the pipeline object ------------------------------------------ */

typedef struct
{
  guint events;
  guint stop_after;         /* 0: never */
  gboolean abandon;         /* ... as the output's reader is gone */
  StPipeline *pipeline;
  GPtrArray *reports;       /* "KIND message" */
} Watch;

static gboolean
check (void *user)
{
  Watch *w = user;

  if (w->stop_after == 0 || ++w->events < w->stop_after)
    return TRUE;
  if (w->abandon)
    st_pipeline_abandon_output (w->pipeline);
  return FALSE;
}

static void
report (StReportKind kind, const char *message, void *user)
{
  Watch *w = user;

  g_ptr_array_add (w->reports, g_strdup_printf ("%d %s", kind, message));
}

/* Runs IN (LEN bytes) to a capture; returns the pipeline after its run
   (the caller frees it, the reader and the writer are freed here).  */
static StPipeline *
run_bytes (const char *in, gsize len, StPipelineOptions *opts, Watch *w,
           char **out, gsize *out_len)
{
  g_autofree char *in_path = NULL, *out_path = NULL;
  int in_fd = g_file_open_tmp ("st-pipeline-in-XXXXXX", &in_path, NULL);
  int out_fd = g_file_open_tmp ("st-pipeline-XXXXXX", &out_path, NULL);
  GError *error = NULL;

  g_assert_cmpint (write (in_fd, in, len), ==, (gssize) len);
  g_assert_cmpint (lseek (in_fd, 0, SEEK_SET), ==, 0);
  opts->symfs = ST_FIXTURE_DIR;
  opts->check = check;
  opts->check_data = w;
  opts->report = report;
  opts->report_data = w;
  StReader *reader = st_reader_new (in_fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  StWriter *writer = opts->mode == ST_MODE_NONE ? NULL
                     : st_writer_new (out_fd, ST_FORMAT_SYSPROF, reader,
                                      opts->mode == ST_MODE_UNWIND, &error);
  g_assert_no_error (error);
  StPipeline *p = st_pipeline_new (reader, writer, opts);
  w->pipeline = p;
  g_assert_true (st_pipeline_run (p, &error));
  g_assert_no_error (error);
  st_writer_free (writer);
  st_reader_free (reader);
  close (in_fd);
  close (out_fd);
  g_assert_true (g_file_get_contents (out_path, out, out_len, NULL));
  g_unlink (in_path);
  g_unlink (out_path);
  return p;
}

/* Nothing written, everything read and counted.  */
static void
test_mode_none (void)
{
  g_autofree char *in = NULL, *out = NULL;
  gsize len, out_len;
  Watch w = { .reports = g_ptr_array_new_with_free_func (g_free) };
  StPipelineOptions opts = { .mode = ST_MODE_NONE };

  g_assert_true (g_file_get_contents (FIXTURE, &in, &len, NULL));
  GArray *frames = frames_of ((const uint8_t *) in, len);
  StPipeline *p = run_bytes (in, len, &opts, &w, &out, &out_len);
  g_assert_cmpuint (out_len, ==, 0);
  g_assert_false (st_pipeline_stopped (p));
  g_assert_cmpuint (st_stats_events_in (st_pipeline_stats (p)), ==,
                    frames->len);
  g_assert_cmpuint (st_stats_events_out (st_pipeline_stats (p)), ==, 0);
  g_assert_null (st_pipeline_callgraph (p));
  g_assert_null (st_pipeline_debuginfod (p));
  g_assert_cmpuint (w.reports->len, ==, 0);
  st_pipeline_free (p);
  g_array_unref (frames);
  g_ptr_array_unref (w.reports);
}

/* The check function stops the run after 40 events: the output is the
   first frames of the whole run's, whole.  */
static void
test_stop (void)
{
  g_autofree char *in = NULL, *out = NULL;
  gsize len, out_len;
  Watch w = { .stop_after = 40,
              .reports = g_ptr_array_new_with_free_func (g_free) };
  StPipelineOptions opts = { .mode = ST_MODE_PASSTHRU };

  g_assert_true (g_file_get_contents (FIXTURE, &in, &len, NULL));
  GArray *all = frames_of ((const uint8_t *) in, len);
  StPipeline *p = run_bytes (in, len, &opts, &w, &out, &out_len);
  g_assert_true (st_pipeline_stopped (p));
  GArray *got = frames_of ((const uint8_t *) out, out_len);
  g_assert_cmpuint (got->len, >=, 39);
  g_assert_cmpuint (got->len, <=, 40);
  g_assert_cmpuint (st_stats_events_in (st_pipeline_stats (p)), ==, got->len);
  for (guint i = 0; i < got->len; i++)
    g_assert_true (same_frame (frame (all, i), frame (got, i)));
  st_pipeline_free (p);
  g_array_unref (got);
  g_array_unref (all);
  g_ptr_array_unref (w.reports);
}

/* perf.data input stopped after 60 events: what the reorder window still
   holds is unwound and written at a stop, dropped (not unwound) when the
   output's reader is gone.  */
static void
test_abandon (void)
{
  g_autofree char *in = NULL, *out_stop = NULL, *out_gone = NULL;
  gsize len, stop_len, gone_len;
  Watch stop = { .stop_after = 60,
                 .reports = g_ptr_array_new_with_free_func (g_free) };
  Watch gone = { .stop_after = 60, .abandon = TRUE,
                 .reports = g_ptr_array_new_with_free_func (g_free) };
  StPipelineOptions opts = { .mode = ST_MODE_UNWIND };

  g_assert_true (g_file_get_contents (ST_FIXTURE_DIR "/fixture.data", &in,
                                      &len, NULL));
  StPipeline *p = run_bytes (in, len, &opts, &stop, &out_stop, &stop_len);
  g_assert_true (st_pipeline_stopped (p));
  g_assert_false (st_pipeline_output_abandoned (p));
  uint64_t written = st_stats_events_out (st_pipeline_stats (p));
  g_assert_cmpuint (written, >, 0);
  st_pipeline_free (p);

  StPipelineOptions opts2 = { .mode = ST_MODE_UNWIND };
  p = run_bytes (in, len, &opts2, &gone, &out_gone, &gone_len);
  g_assert_true (st_pipeline_stopped (p));
  g_assert_true (st_pipeline_output_abandoned (p));
  g_assert_cmpuint (st_stats_events_out (st_pipeline_stats (p)), <, written);
  g_assert_cmpuint (gone_len, <, stop_len);
  st_pipeline_free (p);
  g_ptr_array_unref (stop.reports);
  g_ptr_array_unref (gone.reports);
}

/* A frame in the middle damaged (its length field says 12, less than a
   frame header): reported once, by offset, through the report function;
   every other frame written, in order.  */
static void
test_damage (void)
{
  g_autofree char *in = NULL, *out = NULL;
  gsize len, out_len;
  Watch w = { .reports = g_ptr_array_new_with_free_func (g_free) };
  StPipelineOptions opts = { .mode = ST_MODE_PASSTHRU };

  g_assert_true (g_file_get_contents (FIXTURE, &in, &len, NULL));
  GArray *all = frames_of ((const uint8_t *) in, len);
  guint bad = all->len / 2;
  size_t bad_offset = frame (all, bad)->bytes - (const uint8_t *) in;
  g_autofree char *damaged = g_memdup2 (in, len);
  uint16_t twelve = 12;
  memcpy (damaged + bad_offset, &twelve, 2);

  StPipeline *p = run_bytes (damaged, len, &opts, &w, &out, &out_len);
  g_assert_false (st_pipeline_stopped (p));
  g_assert_cmpuint (st_stats_damaged (st_pipeline_stats (p)), ==, 1);
  g_assert_cmpuint (st_stats_first_damage (st_pipeline_stats (p)), ==,
                    bad_offset);
  g_assert_cmpuint (w.reports->len, ==, 1);
  g_autofree char *where = g_strdup_printf ("%d offset %zu", ST_REPORT_DAMAGE,
                                            bad_offset);
  if (!g_str_has_prefix (w.reports->pdata[0], where))
    g_error ("report '%s' does not start with '%s'",
             (char *) w.reports->pdata[0], where);

  GArray *got = frames_of ((const uint8_t *) out, out_len);
  g_assert_cmpuint (got->len, ==, all->len - 1);
  for (guint i = 0, o = 0; i < all->len; i++)
    if (i != bad)
      g_assert_true (same_frame (frame (all, i), frame (got, o++)));
  st_pipeline_free (p);
  g_array_unref (got);
  g_array_unref (all);
  g_ptr_array_unref (w.reports);
}

/* The call graph: collected when asked, of every unwound sample.  */
static void
test_callgraph (void)
{
  g_autofree char *in = NULL, *out = NULL;
  gsize len, out_len;
  Watch w = { .reports = g_ptr_array_new_with_free_func (g_free) };
  StPipelineOptions opts = { .mode = ST_MODE_UNWIND, .engine = ST_ENGINE_FAST,
                             .callgraph = TRUE };

  g_assert_true (g_file_get_contents (FIXTURE, &in, &len, NULL));
  StPipeline *p = run_bytes (in, len, &opts, &w, &out, &out_len);
  const StCallgraph *g = st_pipeline_callgraph (p);
  g_assert_nonnull (g);
  g_autofree char *text = summary_text_call_graph (g, 0.0);
  g_assert_true (g_str_has_prefix (text, "Call graph of 299 unwound "
                                   "samples"));
  g_assert_nonnull (strstr (text, "  st_run\n"));
  g_assert_nonnull (strstr (text, "  st_leaf_work\n"));
  st_pipeline_free (p);
  g_ptr_array_unref (w.reports);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pipeline/passthru", test_passthru);
  g_test_add_data_func ("/pipeline/unwind/fast",
                        GINT_TO_POINTER (ST_ENGINE_FAST), unwind_engine);
  g_test_add_data_func ("/pipeline/unwind/dwfl",
                        GINT_TO_POINTER (ST_ENGINE_DWFL), unwind_engine);
  g_test_add_func ("/pipeline/truncate-stack", test_truncate_stack);
  g_test_add_func ("/pipeline/counters", test_counters);
  g_test_add_func ("/pipeline/mode-none", test_mode_none);
  g_test_add_func ("/pipeline/stop", test_stop);
  g_test_add_func ("/pipeline/abandon", test_abandon);
  g_test_add_func ("/pipeline/damage", test_damage);
  g_test_add_func ("/pipeline/callgraph", test_callgraph);
  g_test_add_func ("/pipeline/jobs/forgetting", test_jobs_forgetting);
  return g_test_run ();
}
