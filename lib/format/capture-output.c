/* Sysprof capture output.  A capture input is copied frame by frame; a
   perf.data input is converted.  Convention: the kernel part of a
   raw-stack sample travels as a kernel-only SAMPLE frame immediately
   before its STACK_USER frame (same cpu/pid/tid/time).  */
#include "config.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "format/capture-output.h"
#include "format/capture-types.h"
#include "format/capture-writer.h"
#include "format/perf-recording.h"

/* Frames a pipe output holds back while its header waits for the first
   timed event (perf's synthesized records, time 0, come first).  */
#define HEADER_HOLD_MAX (64u << 20)

/* The COMM perf gives the child it forks for `perf record -- prog`
   before the child execs the program.  */
#define PERF_EXEC_COMM "perf-exec"

/* Sysprof shows LOG severities as GLogLevelFlags.  */
#define LOST_SEVERITY G_LOG_LEVEL_CRITICAL
/* The unwinding summary's LOG frames: Sysprof 48 shows the counters in
   no view of its window, but lists LOG frames under Logs.  */
#define SUMMARY_SEVERITY G_LOG_LEVEL_MESSAGE
#define SUMMARY_DOMAIN "stacktrace"

/* Our counters' ids: far above the small sequential ids Sysprof's writer
   hands out (from 1), so a capture that has counters of its own keeps
   them distinct.  24 bits.  */
#define COUNTER_ID_BASE 0xF00000u

typedef enum
{
  COUNTER_SAMPLES,
  COUNTER_COMPLETE,
  COUNTER_RATE,
  COUNTER_TRUNCATED,
  COUNTER_FAILED,
  COUNTER_STITCHED,
  COUNTER_UNPRIMED,
  N_COUNTERS
} CounterIndex;

static const struct
{
  const char *name;
  const char *description;
  gboolean is_double;
} counter_defs[N_COUNTERS] = {
  { "Samples", "Raw-stack samples received", FALSE },
  { "Unwound to root", "Samples unwound to the outermost frame", FALSE },
  { "Success rate", "Share of samples unwound to the root, in %", TRUE },
  { "Truncated", "Samples unwound part of the way", FALSE },
  { "Failed", "Samples whose sampled frame was unusable", FALSE },
  { "Stitched", "Samples completed from an earlier stack", FALSE },
  { "Unprimed", "Samples written before their modules were ready", FALSE },
};

typedef struct
{
  StCaptureWriter *writer;
  gboolean has_template;
  uint8_t template_header[ST_CAPTURE_HEADER_SIZE];
  uint64_t *chain;      /* scratch for unwound samples */
  size_t chain_cap;
  gboolean counters_defined;

  /* A fresh header (perf.data input) describes the recording.  */
  StPerfRecording recording;
  int64_t input_mtime_ns;   /* the input file's, 0 if not a file */
  gboolean start_pending;   /* the header waits for a timed event */
  int32_t workload_pid;     /* the pid perf named "perf-exec", or 0 */
  gboolean unwinding;       /* not a plain copy (-m passthru) */
} CaptureOutput;

void *
st_capture_output_new (StOutput *out, StReader *reader, gboolean unwinding)
{
  CaptureOutput *o = g_new0 (CaptureOutput, 1);

  o->unwinding = unwinding;
  const uint8_t *header = reader != NULL ? st_reader_capture_header (reader)
                                         : NULL;
  StPerfReader *perf = reader != NULL ? st_reader_perf (reader) : NULL;
  struct stat st;

  o->writer = st_capture_writer_new (out);
  if (header != NULL)
    {
      memcpy (o->template_header, header, ST_CAPTURE_HEADER_SIZE);
      o->has_template = TRUE;
    }
  if (perf != NULL)
    st_perf_recording_from_reader (&o->recording, perf);
  if (reader != NULL && fstat (st_reader_fd (reader), &st) == 0
      && S_ISREG (st.st_mode))
    o->input_mtime_ns = (int64_t) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000)
                        + st.st_mtim.tv_nsec;
  return o;
}

/* "Recorded At" for a recording that started at START (ns of the
   samples' clock): from perf's CLOCK_DATA, else from the input file's
   modification time (when perf finished writing it) less the span of
   the samples; NULL when neither is known (the conversion time stays).  */
static char *
recorded_at (const CaptureOutput *o, int64_t start)
{
  const StPerfRecording *rec = &o->recording;
  int64_t wall_ns;

  if (rec->has_clock)
    wall_ns = (int64_t) rec->wall_clock_ns
              + (start > 0 ? start - (int64_t) rec->clock_ns : 0);
  else if (o->input_mtime_ns > 0)
    wall_ns = o->input_mtime_ns - (rec->last_sample - rec->first_sample);
  else
    return NULL;

  GDateTime *t = g_date_time_new_from_unix_utc (wall_ns / 1000000000);
  if (t == NULL)
    return NULL;
  char *iso = g_date_time_format (t, "%Y-%m-%dT%H:%M:%SZ");
  g_date_time_unref (t);
  return iso;
}

static void
set_start (CaptureOutput *o, int64_t start)
{
  g_autofree char *iso = recorded_at (o, start);

  st_capture_writer_set_start (o->writer, start, iso);
  o->start_pending = FALSE;
}

/* A fresh header starts where the recording does: at perf's first
   sample time when the input says, else at the first event with a time
   (perf's synthesized records have none); until then it is held.  */
static void
ensure_header (CaptureOutput *o, int64_t time)
{
  if (!st_capture_writer_has_header (o->writer))
    {
      if (o->has_template)
        {
          st_capture_writer_file_header (o->writer, o->template_header, 0);
          return;
        }
      st_capture_writer_file_header (o->writer, NULL, 0);
      if (o->recording.first_sample > 0)
        {
          set_start (o, o->recording.first_sample);
          st_capture_writer_set_end (o->writer, o->recording.last_sample);
          return;
        }
      o->start_pending = TRUE;
      st_capture_writer_hold_header (o->writer, HEADER_HOLD_MAX);
    }
  if (o->start_pending && time > 0)
    set_start (o, time);
}

/* Length of the kernel part of a callchain: everything before a
   PERF_CONTEXT_USER marker.  */
static uint32_t
kernel_part (const uint64_t *chain, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    if (chain[i] == ST_CONTEXT_USER)
      return i;
  return n;
}

/* A mapping of a file (perf names anonymous ones "//anon").  */
static gboolean
file_backed (const char *filename)
{
  return filename != NULL && filename[0] == '/' && filename[1] != '/';
}

/* Sysprof names a process by its first PROCESS frame: perf's placeholder
   for the child of `perf record -- prog` must not be it.  The name is
   the kernel's comm, as Sysprof's own unwinder writes it: a command
   line (perf's CMDLINE) would name the workload apart from its other
   processes, and may hold secrets.  */
static gboolean
convert_comm (CaptureOutput *o, const StEvent *ev)
{
  const char *comm = ev->process.comm;

  if (!ev->process.exec && g_strcmp0 (comm, PERF_EXEC_COMM) == 0)
    {
      /* Stands in for the exec COMM that follows: not lost.  */
      o->workload_pid = ev->pid;
      return TRUE;
    }
  if (ev->process.exec && ev->pid == o->workload_pid)
    o->workload_pid = 0;
  st_capture_writer_process (o->writer, ev->cpu, ev->pid, ev->time, comm);
  return TRUE;
}

static gboolean
convert (CaptureOutput *o, const StEvent *ev)
{
  StCaptureWriter *w = o->writer;

  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      st_capture_writer_sample (w, ev->cpu, ev->pid, ev->tid, ev->time,
                                ev->sample.ips, ev->sample.n_ips);
      return TRUE;

    case ST_EVENT_STACK_USER:
      {
        uint32_t n = ev->stack.callchain != NULL
                     ? kernel_part (ev->stack.callchain, ev->stack.n_callchain)
                     : 0;
        if (n > 0)
          st_capture_writer_sample (w, ev->cpu, ev->pid, ev->tid, ev->time,
                                    ev->stack.callchain, n);
        /* A stack cut to fit the frame is still written.  */
        st_capture_writer_stack_user (w, ev);
        return TRUE;
      }

    case ST_EVENT_MAP:
      /* perf's kernel mapping (pid -1, [kernel.kallsyms]_text) has no
         counterpart: Sysprof names kernel addresses by kallsyms, and
         Sysprof 48 crashes on a MAP frame whose pid is negative (its
         sysprof-cat and window, on the first such frame).  */
      if (ev->pid < 0)
        return FALSE;
      /* Anonymous data mappings do not matter; those of files do, to a
         converter back to perf.data: perf's own unwinding reads the
         .eh_frame_hdr of a library through its read-only mapping.  */
      if (ev->map.exec_known && (ev->map.prot & PROT_EXEC) == 0
          && !file_backed (ev->map.filename))
        return TRUE;
      st_capture_writer_map (w, ev->cpu, ev->pid, ev->time, ev->map.start,
                             ev->map.end, ev->map.pgoff, ev->map.inode,
                             ev->map.filename, ev->map.build_id,
                             ev->map.build_id_len);
      return TRUE;

    case ST_EVENT_PROCESS:
      return convert_comm (o, ev);

    case ST_EVENT_FORK:
      /* A capture only knows new processes, not new threads.  */
      if (ev->pid == ev->fork.parent_pid)
        return FALSE;
      st_capture_writer_fork (w, ev->cpu, ev->fork.parent_pid, ev->time,
                              ev->pid);
      return TRUE;

    case ST_EVENT_EXIT:
      if (ev->pid != ev->tid)
        return FALSE;
      st_capture_writer_exit (w, ev->cpu, ev->pid, ev->time);
      return TRUE;

    case ST_EVENT_LOST:
      {
        char *msg = g_strdup_printf (ST_CAPTURE_LOST_PREFIX "%"
                                     G_GUINT64_FORMAT ST_CAPTURE_LOST_SUFFIX,
                                     ev->lost.count);
        st_capture_writer_log (w, ev->cpu, ev->pid, ev->time, LOST_SEVERITY,
                               ST_CAPTURE_LOST_DOMAIN, msg);
        g_free (msg);
        return TRUE;
      }

    case ST_EVENT_OTHER:
      break;
    }
  return FALSE;
}

static gboolean
capture_event (void *impl, const StEvent *ev)
{
  CaptureOutput *o = impl;

  ensure_header (o, ev->time);
  if (ev->source == ST_FORMAT_PERF && ev->kind == ST_EVENT_OTHER)
    st_perf_recording_feature_record (&o->recording, ev->raw, ev->raw_len);
  if (ev->source == ST_FORMAT_SYSPROF)
    {
      /* The capture of an older converter may hold one (see convert):
         not passed on, but by a plain copy.  */
      if (o->unwinding && ev->kind == ST_EVENT_MAP && ev->pid < 0)
        return FALSE;
      st_capture_writer_raw (o->writer, ev->raw, ev->raw_len, ev->time);
      return TRUE;
    }
  return convert (o, ev);
}

static void
capture_unwound (void *impl, const StEvent *ev, const uint64_t *user_ips,
                 uint32_t n_user_ips)
{
  CaptureOutput *o = impl;
  uint32_t n_kernel = ev->stack.callchain != NULL
                      ? kernel_part (ev->stack.callchain, ev->stack.n_callchain)
                      : 0;
  size_t n = (size_t) n_kernel + 1 + n_user_ips;

  if (n > o->chain_cap)
    {
      o->chain_cap = MAX (n, 2 * o->chain_cap);
      o->chain = g_renew (uint64_t, o->chain, o->chain_cap);
    }
  if (n_kernel > 0)
    memcpy (o->chain, ev->stack.callchain, n_kernel * sizeof (uint64_t));
  o->chain[n_kernel] = ST_CONTEXT_USER;
  if (n_user_ips > 0)
    memcpy (o->chain + n_kernel + 1, user_ips, n_user_ips * sizeof (uint64_t));

  ensure_header (o, ev->time);
  st_capture_writer_sample (o->writer, ev->cpu, ev->pid, ev->tid, ev->time,
                            o->chain, (uint32_t) MIN (n, (size_t) G_MAXUINT32));
}

static uint64_t
counter_bits (const StProgressCounters *c, CounterIndex i)
{
  int64_t v = 0;
  double d;
  uint64_t bits;

  switch (i)
    {
    case COUNTER_SAMPLES: v = (int64_t) c->samples; break;
    case COUNTER_COMPLETE: v = (int64_t) c->complete; break;
    case COUNTER_TRUNCATED: v = (int64_t) c->truncated; break;
    case COUNTER_FAILED: v = (int64_t) c->failed; break;
    case COUNTER_STITCHED: v = (int64_t) c->stitched; break;
    case COUNTER_UNPRIMED: v = (int64_t) c->unprimed; break;
    case COUNTER_RATE:
      d = c->samples ? 100.0 * (double) c->complete / (double) c->samples
                     : 100.0;
      memcpy (&bits, &d, sizeof bits);
      return bits;
    case N_COUNTERS:
      break;
    }
  memcpy (&bits, &v, sizeof bits);
  return bits;
}

/* The success rate as printed with one decimal: 99.96 % must not read
   100.0 % while a sample failed (as the statistics print it).  */
static double
success_shown (const StProgressCounters *c)
{
  double rate = c->samples ? 100.0 * (double) c->complete
                             / (double) c->samples
                           : 100.0;

  return c->complete < c->samples && rate >= 99.95 ? 99.9 : rate;
}

/* The counters as one line in a LOG frame, which Sysprof 48's Logs
   section lists (its window graphs no counters of ours).  */
static void
log_summary (CaptureOutput *o, int64_t time, const StProgressCounters *c)
{
  g_autofree char *msg = g_strdup_printf (
    "Unwinding: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " samples "
    "unwound to the root (%.1f%% success), %" G_GUINT64_FORMAT
    " truncated, %" G_GUINT64_FORMAT " failed", c->complete, c->samples,
    success_shown (c), c->truncated, c->failed);

  st_capture_writer_log (o->writer, -1, -1, time, SUMMARY_SEVERITY,
                         SUMMARY_DOMAIN, msg);
}

/* Sysprof shows counters as graphs over time, grouped by category: one
   CTRDEF with the first values, then a CTRSET per call; each also as a
   LOG line.  */
static void
capture_counters (void *impl, int64_t time, const StProgressCounters *c)
{
  CaptureOutput *o = impl;
  uint32_t ids[N_COUNTERS];
  uint64_t values[N_COUNTERS];

  ensure_header (o, time);
  for (guint i = 0; i < N_COUNTERS; i++)
    {
      ids[i] = COUNTER_ID_BASE + 1 + i;
      values[i] = counter_bits (c, i);
    }
  if (!o->counters_defined)
    {
      StCaptureCounter defs[N_COUNTERS];

      memset (defs, 0, sizeof defs);
      for (guint i = 0; i < N_COUNTERS; i++)
        {
          g_strlcpy (defs[i].category, "Unwinding", sizeof defs[i].category);
          g_strlcpy (defs[i].name, counter_defs[i].name, sizeof defs[i].name);
          g_strlcpy (defs[i].description, counter_defs[i].description,
                     sizeof defs[i].description);
          defs[i].id_and_type = ids[i]
            | (uint32_t) (counter_defs[i].is_double ? ST_CAPTURE_COUNTER_DOUBLE
                                                    : ST_CAPTURE_COUNTER_INT64)
              << 24;
          memcpy (&defs[i].value, &values[i], sizeof values[i]);
        }
      st_capture_writer_define_counters (o->writer, -1, -1, time, defs,
                                         N_COUNTERS);
      o->counters_defined = TRUE;
    }
  else
    st_capture_writer_set_counters (o->writer, -1, -1, time, ids, values,
                                    N_COUNTERS);
  log_summary (o, time, c);
}

static gboolean
capture_finish (void *impl, GError **error)
{
  CaptureOutput *o = impl;

  /* Even an empty capture gets its file header.  */
  ensure_header (o, 0);
  return st_capture_writer_finish (o->writer, error);
}

static void
capture_free (void *impl)
{
  CaptureOutput *o = impl;

  if (o == NULL)
    return;
  st_capture_writer_free (o->writer);
  st_perf_recording_clear (&o->recording);
  g_free (o->chain);
  g_free (o);
}

const StWriterOps st_capture_output_ops = {
  capture_event,
  capture_unwound,
  capture_finish,
  capture_free,
  capture_counters,
};
