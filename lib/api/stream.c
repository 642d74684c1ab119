/* Level 1 of the public API: a StStream is the command's run as an
   object -- reader, pipeline and writer wired from its settings.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api-private.h"
#include "format/capture-types.h"
#include "format/reader.h"
#include "format/writer.h"
#include "pipeline.h"
#include "util/domain.h"

/* How often the input's wait looks at a cancel, and how many records go
   between two snapshots of the counters.  */
#define CHECK_MS 100
#define SNAPSHOT_EVERY 4096

struct StStream
{
  int in_fd;                 /* -1: IN_PATH */
  StReadFunc in_read;        /* set: IN_FD only polled, read through it */
  void *in_read_data;
  char *in_path;
  StFileFormat in_format;
  int out_fd;                /* -1: OUT_PATH, or none */
  char *out_path;
  StFileFormat out_format;
  gboolean unwind;
  StUnwindEngine engine;
  char *symfs, *archive_dir, *perf_cache_dir, *debuginfod_urls, *chains;
  gboolean stitch;
  gboolean debug;
  gboolean call_graph;
  StPrimePolicy priming;
  guint jobs;                /* 0: one per processor */
  StMessageFunc message;
  void *message_data;
  gboolean host_files, demangle, counters;
  unsigned counters_interval_ms;
  uint64_t truncate_stack, priming_cap;
  StCheckFunc user_check;
  void *user_check_data;
  unsigned check_ms;
  StIdleFunc idle;
  void *idle_data;
  int chains_fd;             /* -1: CHAINS (a path), or none */
  GByteArray *frames;        /* put first into the output */

  int opened_fd;             /* the input opened by st_stream_open_input */
  StReader *opened;          /* ... and its reader, until the run */
  StFileFormat input_format; /* once known */
  uint64_t final_offset;     /* the input read, after the run */
  StStreamOutcome outcome;   /* after the run */

  gboolean ran;
  gint cancelled;            /* atomic */
  StPipeline *pipeline;      /* while running */
  StReader *reader;          /* while running */
  pthread_t runner;          /* (LOCK) the thread in st_stream_run */
  gboolean running;          /* (LOCK) */
  StStatistics *final;       /* (LOCK) after the run */
  StCallGraph *final_graph;  /* (LOCK) after the run, when collected */
  guint since_snapshot;
  /* pthread rather than GMutex: ThreadSanitizer sees it (GLib's lock
     is futex-based inside libglib).  */
  pthread_mutex_t lock;
  StCounters snapshot;       /* (LOCK) */
  char *error;
};

StStream *
st_stream_new (void)
{
  StStream *s = g_new0 (StStream, 1);

  s->in_fd = s->out_fd = s->chains_fd = s->opened_fd = -1;
  s->unwind = TRUE;
  s->stitch = TRUE;
  s->jobs = 1;
  s->host_files = s->demangle = s->counters = TRUE;
  pthread_mutex_init (&s->lock, NULL);
  st_api_set_error (&s->error, "");
  return s;
}

void
st_stream_free (StStream *s)
{
  if (s == NULL)
    return;
  g_free (s->in_path);
  g_free (s->out_path);
  g_free (s->symfs);
  g_free (s->archive_dir);
  g_free (s->perf_cache_dir);
  g_free (s->debuginfod_urls);
  g_free (s->chains);
  g_free (s->error);
  st_reader_free (s->opened);
  if (s->opened_fd >= 0 && s->opened_fd != s->in_fd)
    close (s->opened_fd);
  if (s->frames != NULL)
    g_byte_array_unref (s->frames);
  st_statistics_free (s->final);
  st_call_graph_free (s->final_graph);
  pthread_mutex_destroy (&s->lock);
  g_free (s);
}

/* Settings only before the run; the input's only before it is
   opened.  */
#define SETTABLE(s) \
  do { if ((s) == NULL || (s)->ran) return ST_E_INVALID; } while (0)
#define INPUT_SETTABLE(s) \
  do { if ((s) == NULL || (s)->ran || (s)->opened != NULL) \
         return ST_E_INVALID; } while (0)

static void
set_string (char **slot, const char *value)
{
  g_free (*slot);
  *slot = g_strdup (value);
}

int
st_stream_set_input_fd (StStream *s, int fd, StFileFormat format)
{
  INPUT_SETTABLE (s);
  if (fd < 0)
    return ST_E_INVALID;
  s->in_fd = fd;
  s->in_read = NULL;
  set_string (&s->in_path, NULL);
  s->in_format = format;
  return ST_OK;
}

int
st_stream_set_input_pull (StStream *s, int poll_fd, StReadFunc func,
                          void *data, StFileFormat format)
{
  INPUT_SETTABLE (s);
  if (poll_fd < 0 || func == NULL)
    return ST_E_INVALID;
  s->in_fd = poll_fd;
  s->in_read = func;
  s->in_read_data = data;
  set_string (&s->in_path, NULL);
  s->in_format = format;
  return ST_OK;
}

int
st_stream_set_input_path (StStream *s, const char *path, StFileFormat format)
{
  INPUT_SETTABLE (s);
  if (path == NULL)
    return ST_E_INVALID;
  s->in_fd = -1;
  s->in_read = NULL;
  set_string (&s->in_path, path);
  s->in_format = format;
  return ST_OK;
}

int
st_stream_set_output_fd (StStream *s, int fd, StFileFormat format)
{
  SETTABLE (s);
  if (fd < 0)
    return ST_E_INVALID;
  s->out_fd = fd;
  set_string (&s->out_path, NULL);
  s->out_format = format;
  return ST_OK;
}

int
st_stream_set_output_path (StStream *s, const char *path, StFileFormat format)
{
  SETTABLE (s);
  if (path == NULL)
    return ST_E_INVALID;
  s->out_fd = -1;
  set_string (&s->out_path, path);
  s->out_format = format;
  return ST_OK;
}

int
st_stream_set_unwind (StStream *s, int unwind)
{
  SETTABLE (s);
  s->unwind = unwind != 0;
  return ST_OK;
}

int
st_stream_set_engine (StStream *s, StUnwindEngine engine)
{
  SETTABLE (s);
  if (engine != ST_ENGINE_FAST_CFI && engine != ST_ENGINE_LIBDWFL)
    return ST_E_INVALID;
  s->engine = engine;
  return ST_OK;
}

int
st_stream_set_symfs (StStream *s, const char *dir)
{
  SETTABLE (s);
  set_string (&s->symfs, dir);
  return ST_OK;
}

int
st_stream_set_buildid_dirs (StStream *s, const char *archive_dir,
                            const char *perf_cache_dir)
{
  SETTABLE (s);
  set_string (&s->archive_dir, archive_dir);
  set_string (&s->perf_cache_dir, perf_cache_dir);
  return ST_OK;
}

int
st_stream_set_debuginfod (StStream *s, const char *urls)
{
  SETTABLE (s);
  set_string (&s->debuginfod_urls, urls);
  return ST_OK;
}

int
st_stream_set_stitching (StStream *s, int stitch)
{
  SETTABLE (s);
  s->stitch = stitch != 0;
  return ST_OK;
}

int
st_stream_set_priming (StStream *s, StPrimePolicy policy)
{
  SETTABLE (s);
  if (policy != ST_PRIME_INLINE && policy != ST_PRIME_DROP
      && policy != ST_PRIME_DEFER)
    return ST_E_INVALID;
  s->priming = policy;
  return ST_OK;
}

G_STATIC_ASSERT (ST_STREAM_MAX_JOBS == ST_PIPELINE_MAX_JOBS);

int
st_stream_set_jobs (StStream *s, int jobs)
{
  SETTABLE (s);
  if (jobs < 0 || jobs > ST_PIPELINE_MAX_JOBS)
    return ST_E_INVALID;
  s->jobs = (guint) jobs;
  return ST_OK;
}

/* One per processor this process may run on.  */
static guint
processors (void)
{
  cpu_set_t set;

  if (sched_getaffinity (0, sizeof set, &set) != 0)
    return 1;
  return CLAMP (CPU_COUNT (&set), 1, ST_PIPELINE_MAX_JOBS);
}

int
st_stream_set_chains_path (StStream *s, const char *path)
{
  SETTABLE (s);
  set_string (&s->chains, path);
  s->chains_fd = -1;
  return ST_OK;
}

int
st_stream_set_chains_fd (StStream *s, int fd)
{
  SETTABLE (s);
  if (fd < 0)
    return ST_E_INVALID;
  set_string (&s->chains, NULL);
  s->chains_fd = fd;
  return ST_OK;
}

int
st_stream_set_host_files (StStream *s, int host_files)
{
  SETTABLE (s);
  s->host_files = host_files != 0;
  return ST_OK;
}

int
st_stream_set_truncate_stack (StStream *s, uint64_t bytes)
{
  SETTABLE (s);
  s->truncate_stack = bytes;
  return ST_OK;
}

int
st_stream_set_demangle (StStream *s, int demangle)
{
  SETTABLE (s);
  s->demangle = demangle != 0;
  return ST_OK;
}

int
st_stream_set_counters (StStream *s, int enabled, unsigned interval_ms)
{
  SETTABLE (s);
  s->counters = enabled != 0;
  s->counters_interval_ms = interval_ms;
  return ST_OK;
}

int
st_stream_set_priming_cap (StStream *s, uint64_t bytes)
{
  SETTABLE (s);
  if (bytes > SIZE_MAX)
    return ST_E_INVALID;
  s->priming_cap = bytes;
  return ST_OK;
}

int
st_stream_set_check_func (StStream *s, StCheckFunc func, void *data,
                          unsigned interval_ms)
{
  SETTABLE (s);
  s->user_check = func;
  s->user_check_data = data;
  s->check_ms = interval_ms;
  return ST_OK;
}

int
st_stream_set_idle_func (StStream *s, StIdleFunc func, void *data)
{
  SETTABLE (s);
  s->idle = func;
  s->idle_data = data;
  return ST_OK;
}

int
st_stream_add_output_frames (StStream *s, const void *frames, size_t len)
{
  const uint8_t *bytes = frames;
  size_t at = 0;

  SETTABLE (s);
  if (frames == NULL && len > 0)
    return ST_E_INVALID;
  /* Whole frames only, each at least its header.  */
  while (at < len)
    {
      StCaptureFrame f;
      if (len - at < sizeof f)
        return ST_E_INVALID;
      memcpy (&f, bytes + at, sizeof f);
      if (f.len < sizeof f || f.len > len - at)
        return ST_E_INVALID;
      at += f.len;
    }
  if (s->frames == NULL)
    s->frames = g_byte_array_new ();
  g_byte_array_append (s->frames, bytes, (guint) len);
  return ST_OK;
}

int
st_stream_abandon_output (StStream *s)
{
  if (s == NULL || s->pipeline == NULL)
    return ST_E_INVALID;
  st_pipeline_abandon_output (s->pipeline);
  return ST_OK;
}

int
st_stream_set_message_func (StStream *s, StMessageFunc func, void *data)
{
  SETTABLE (s);
  s->message = func;
  s->message_data = data;
  return ST_OK;
}

int
st_stream_set_call_graph (StStream *s, int collect)
{
  SETTABLE (s);
  s->call_graph = collect != 0;
  return ST_OK;
}

int
st_stream_set_debug (StStream *s, int debug)
{
  SETTABLE (s);
  s->debug = debug != 0;
  return ST_OK;
}

void
st_stream_cancel (StStream *s)
{
  if (s != NULL)
    g_atomic_int_set (&s->cancelled, 1);
}

static void
snapshot (StStream *s)
{
  StCounters c;

  st_api_counters (st_pipeline_stats (s->pipeline), &c);
  c.input_bytes = st_reader_offset (s->reader);
  pthread_mutex_lock (&s->lock);
  s->snapshot = c;
  pthread_mutex_unlock (&s->lock);
}

/* After every event and while the input stalls: a cancel, and now and
   then the counters for other threads.  */
static gboolean
check (void *user)
{
  StStream *s = user;

  if (s->pipeline != NULL && ++s->since_snapshot >= SNAPSHOT_EVERY)
    {
      s->since_snapshot = 0;
      snapshot (s);
    }
  return !g_atomic_int_get (&s->cancelled)
         && (s->user_check == NULL || s->user_check (s->user_check_data));
}

static gboolean
check_header (void *user)
{
  StStream *s = user;

  return !g_atomic_int_get (&s->cancelled)
         && (s->user_check == NULL || s->user_check (s->user_check_data));
}

static unsigned
check_interval (const StStream *s)
{
  return s->check_ms != 0 ? s->check_ms : CHECK_MS;
}

static void
relay (StReportKind kind, const char *message, void *user)
{
  StStream *s = user;

  if (s->message != NULL)
    s->message (kind == ST_REPORT_DAMAGE ? ST_MESSAGE_DAMAGE
                : kind == ST_REPORT_WARNING ? ST_MESSAGE_WARNING
                : ST_MESSAGE_DEBUG, message, s->message_data);
}

/* The running pipeline's statistics.  */
static StStatistics *
pipeline_statistics (StStream *s)
{
  StDebuginfodStats d;

  st_debuginfod_get_stats (st_pipeline_debuginfod (s->pipeline), &d);
  return st_api_statistics_new (st_pipeline_stats (s->pipeline), &d,
                                st_reader_offset (s->reader));
}

static int
fail (StStream *s, int result, const char *message)
{
  st_api_set_error (&s->error, message);
  return result;
}

/* The input opened and its header read (st_stream_open_input, or the
   run's start).  */
static int
open_input (StStream *s)
{
  g_autoptr (GError) error = NULL;
  int in_fd = s->in_fd;

  if (in_fd < 0 && (in_fd = open (s->in_path, O_RDONLY | O_CLOEXEC)) < 0)
    {
      g_autofree char *m = g_strdup_printf ("cannot open input %s: %s",
                                            s->in_path, g_strerror (errno));
      return fail (s, ST_E_IO, m);
    }
  s->opened_fd = in_fd;
  s->opened = st_reader_new_pulled (in_fd, s->in_read, s->in_read_data,
                                    st_api_format (s->in_format),
                                    check_interval (s), check_header, s,
                                    &error);
  if (s->opened == NULL)
    {
      int rc = g_error_matches (error, ST_ERROR, ST_ERROR_STOPPED)
               ? ST_E_CANCELLED : ST_E_FORMAT;
      s->outcome.stopped = rc == ST_E_CANCELLED;
      return fail (s, rc, error->message);
    }
  s->input_format = st_api_file_format (st_reader_format (s->opened));
  return ST_OK;
}

int
st_stream_open_input (StStream *s)
{
  if (s == NULL || s->ran || s->opened != NULL || s->opened_fd >= 0
      || (s->in_fd < 0 && s->in_path == NULL))
    return ST_E_INVALID;
  return open_input (s);
}

StFileFormat
st_stream_get_input_format (const StStream *s)
{
  return s != NULL ? s->input_format : ST_FILE_FORMAT_AUTO;
}

uint64_t
st_stream_get_input_offset (const StStream *s)
{
  if (s == NULL)
    return 0;
  return s->reader != NULL ? st_reader_offset (s->reader) : s->final_offset;
}

/* Writing over the input destroys the recording: refused before the
   output is opened with O_TRUNC.  Only a regular file is compared (a
   FIFO or a socket holds no recording).  */
static gboolean
output_is_input (StStream *s, int in_fd)
{
  struct stat in_st, out_st;

  if (fstat (in_fd, &in_st) != 0 || !S_ISREG (in_st.st_mode))
    return FALSE;
  if (s->out_fd >= 0 ? fstat (s->out_fd, &out_st) != 0
      : s->out_path == NULL || stat (s->out_path, &out_st) != 0)
    return FALSE;
  if (in_st.st_dev != out_st.st_dev || in_st.st_ino != out_st.st_ino)
    return FALSE;
  g_autofree char *m
    = g_strdup_printf ("refusing to write the output to %s: it is the input "
                       "file (device %ju, inode %ju); nothing was written",
                       s->out_path != NULL ? s->out_path
                       : "the output descriptor",
                       (uintmax_t) in_st.st_dev, (uintmax_t) in_st.st_ino);
  fail (s, ST_E_INVALID, m);
  return TRUE;
}

int
st_stream_run (StStream *s)
{
  g_autoptr (GError) error = NULL;
  int in_fd, out_fd = -1;
  StReader *reader = NULL;
  StWriter *writer = NULL;
  FILE *chains = NULL;
  int rc = ST_OK;

  if (s == NULL || s->ran || (s->in_fd < 0 && s->in_path == NULL))
    return ST_E_INVALID;
  s->ran = TRUE;
  s->outcome.output_whole = s->outcome.chains_whole = 1;
  pthread_mutex_lock (&s->lock);
  s->runner = pthread_self ();
  s->running = TRUE;
  pthread_mutex_unlock (&s->lock);
  if (s->opened == NULL && s->opened_fd < 0 && (rc = open_input (s)) != ST_OK)
    goto out;
  if (s->opened == NULL)
    {
      rc = ST_E_INVALID;   /* st_stream_open_input failed */
      goto out;
    }
  reader = g_steal_pointer (&s->opened);
  in_fd = s->opened_fd;
  if (s->out_fd >= 0 || s->out_path != NULL)
    {
      StFileFormat format = s->out_format != ST_FILE_FORMAT_AUTO
                            ? s->out_format : s->input_format;

      if (output_is_input (s, in_fd))
        {
          rc = ST_E_INVALID;
          goto out;
        }
      out_fd = s->out_fd;
      if (out_fd < 0
          && (out_fd = open (s->out_path, O_WRONLY | O_CREAT | O_TRUNC
                                          | O_CLOEXEC, 0644)) < 0)
        {
          g_autofree char *m = g_strdup_printf ("cannot open output %s: %s",
                                                s->out_path,
                                                g_strerror (errno));
          rc = fail (s, ST_E_IO, m);
          goto out;
        }
      s->out_format = format;
      writer = st_writer_new (out_fd, st_api_format (format), reader,
                              s->unwind, &error);
      if (writer == NULL)
        {
          rc = fail (s, ST_E_IO, error->message);
          goto out;
        }
      /* The frames given to st_stream_add_output_frames, first.  */
      if (s->frames != NULL)
        st_writer_capture_frames (writer, s->frames->data, s->frames->len);
    }
  if (s->chains_fd >= 0)
    {
      int fd = fcntl (s->chains_fd, F_DUPFD_CLOEXEC, 0);
      if (fd < 0 || (chains = fdopen (fd, "w")) == NULL)
        {
          g_autofree char *m = g_strdup_printf ("cannot use the chains "
                                                "descriptor: %s",
                                                g_strerror (errno));
          if (fd >= 0)
            close (fd);
          rc = fail (s, ST_E_IO, m);
          goto out;
        }
    }
  else if (s->chains != NULL && (chains = fopen (s->chains, "we")) == NULL)
    {
      g_autofree char *m = g_strdup_printf ("cannot open %s: %s", s->chains,
                                            g_strerror (errno));
      rc = fail (s, ST_E_IO, m);
      goto out;
    }

  struct stat st;
  gboolean regular = fstat (in_fd, &st) == 0 && S_ISREG (st.st_mode);
  StPipelineOptions o = {
    .mode = s->unwind ? ST_MODE_UNWIND
            : writer != NULL ? ST_MODE_PASSTHRU : ST_MODE_NONE,
    .engine = s->engine == ST_ENGINE_LIBDWFL ? ST_ENGINE_DWFL
                                             : ST_ENGINE_FAST,
    .symfs = s->symfs,
    .buildid_dir = s->archive_dir,
    .given_files_only = !s->host_files,
    .perf_cache_dir = s->perf_cache_dir,
    .chains = chains,
    .report = relay,
    .report_data = s,
    .debug = s->debug,
    .callgraph = s->call_graph,
    .output_format = writer != NULL ? st_api_format (s->out_format)
                                    : ST_FORMAT_AUTO,
    .demangle = s->demangle,
    .stitch = s->stitch,
    .truncate_stack = s->truncate_stack,
    .debuginfod = s->debuginfod_urls != NULL,
    .debuginfod_urls = s->debuginfod_urls,
    .counters = s->counters,
    .counters_interval_ms = s->counters_interval_ms,
    .live = !regular,
    .jobs = s->jobs != 0 ? s->jobs : processors (),
    .priming = s->priming == ST_PRIME_DROP ? ST_PRIMING_DROP
               : s->priming == ST_PRIME_DEFER ? ST_PRIMING_DEFER
               : ST_PRIMING_SYNC,
    .priming_cap = (size_t) s->priming_cap,
    .idle = s->idle,
    .idle_data = s->idle_data,
    .check = check,
    .check_data = s,
    .check_ms = check_interval (s),
  };
  s->reader = reader;
  s->outcome.started = 1;
  s->pipeline = st_pipeline_new (reader, writer, &o);
  gboolean ok = st_pipeline_run (s->pipeline, &error);
  snapshot (s);
  StStatistics *final = pipeline_statistics (s);
  StCallGraph *graph = st_pipeline_callgraph (s->pipeline) != NULL
                       ? st_api_call_graph_new (st_pipeline_callgraph (s->pipeline))
                       : NULL;
  pthread_mutex_lock (&s->lock);
  s->final = final;
  s->final_graph = graph;
  pthread_mutex_unlock (&s->lock);
  s->outcome.output_whole = writer == NULL || !st_writer_failed (writer);
  s->outcome.broken_pipe = !ok && g_error_matches (error, ST_ERROR,
                                                   ST_ERROR_BROKEN_PIPE);
  s->outcome.abandoned = st_pipeline_output_abandoned (s->pipeline);
  s->outcome.stopped = st_pipeline_stopped (s->pipeline);
  s->outcome.failed = !ok;
  if (!ok)
    rc = fail (s, ST_E_IO, error->message);
  else if (st_pipeline_stopped (s->pipeline))
    rc = fail (s, ST_E_CANCELLED, "cancelled");
  st_pipeline_free (s->pipeline);
  s->pipeline = NULL;
  s->final_offset = st_reader_offset (reader);
  s->reader = NULL;

out:
  pthread_mutex_lock (&s->lock);
  s->running = FALSE;
  pthread_mutex_unlock (&s->lock);
  if (chains != NULL && fclose (chains) != 0)
    {
      s->outcome.chains_whole = 0;
      if (rc == ST_OK)
        rc = fail (s, ST_E_IO, "writing the chains failed");
    }
  st_writer_free (writer);
  if (reader != NULL && s->final_offset == 0)
    s->final_offset = st_reader_offset (reader);
  st_reader_free (reader);
  if (out_fd >= 0 && out_fd != s->out_fd)
    close (out_fd);
  if (s->opened_fd >= 0 && s->opened_fd != s->in_fd)
    close (s->opened_fd);
  s->opened_fd = -1;
  s->outcome.input_bytes = s->final_offset;
  return rc;
}

int
st_stream_get_outcome (const StStream *s, StStreamOutcome *out)
{
  if (s == NULL || out == NULL || !s->ran)
    return ST_E_INVALID;
  pthread_mutex_lock ((pthread_mutex_t *) &s->lock);
  gboolean running = s->running;
  pthread_mutex_unlock ((pthread_mutex_t *) &s->lock);
  if (running)
    return ST_E_INVALID;
  *out = s->outcome;
  return ST_OK;
}

int
st_stream_get_counters (StStream *s, StCounters *out)
{
  if (s == NULL || out == NULL)
    return ST_E_INVALID;
  pthread_mutex_lock (&s->lock);
  *out = s->snapshot;
  pthread_mutex_unlock (&s->lock);
  return ST_OK;
}

int
st_stream_get_statistics (StStream *s, StStatistics **out)
{
  gboolean on_runner;

  if (s == NULL || out == NULL)
    return ST_E_INVALID;
  pthread_mutex_lock (&s->lock);
  on_runner = s->running && pthread_equal (s->runner, pthread_self ());
  *out = s->final != NULL ? st_api_statistics_ref (s->final) : NULL;
  pthread_mutex_unlock (&s->lock);
  if (*out != NULL)
    return ST_OK;
  /* The library's figures change under any other thread.  */
  if (!on_runner || s->pipeline == NULL)
    return ST_E_INVALID;
  *out = pipeline_statistics (s);
  return ST_OK;
}

int
st_stream_get_call_graph (StStream *s, StCallGraph **out)
{
  gboolean on_runner;

  if (s == NULL || out == NULL)
    return ST_E_INVALID;
  pthread_mutex_lock (&s->lock);
  on_runner = s->running && pthread_equal (s->runner, pthread_self ());
  *out = s->final_graph != NULL ? st_api_call_graph_ref (s->final_graph)
                                : NULL;
  pthread_mutex_unlock (&s->lock);
  if (*out == NULL && on_runner && s->pipeline != NULL
      && st_pipeline_callgraph (s->pipeline) != NULL)
    *out = st_api_call_graph_new (st_pipeline_callgraph (s->pipeline));
  return *out != NULL ? ST_OK : ST_E_INVALID;
}

const char *
st_stream_error (const StStream *s)
{
  return s != NULL ? s->error : "";
}
