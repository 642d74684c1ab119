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

  s->in_fd = s->out_fd = -1;
  s->unwind = TRUE;
  s->stitch = TRUE;
  s->jobs = 1;
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
  st_statistics_free (s->final);
  st_call_graph_free (s->final_graph);
  pthread_mutex_destroy (&s->lock);
  g_free (s);
}

/* Settings only before the run.  */
#define SETTABLE(s) \
  do { if ((s) == NULL || (s)->ran) return ST_E_INVALID; } while (0)

static void
set_string (char **slot, const char *value)
{
  g_free (*slot);
  *slot = g_strdup (value);
}

int
st_stream_set_input_fd (StStream *s, int fd, StFileFormat format)
{
  SETTABLE (s);
  if (fd < 0)
    return ST_E_INVALID;
  s->in_fd = fd;
  set_string (&s->in_path, NULL);
  s->in_format = format;
  return ST_OK;
}

int
st_stream_set_input_path (StStream *s, const char *path, StFileFormat format)
{
  SETTABLE (s);
  if (path == NULL)
    return ST_E_INVALID;
  s->in_fd = -1;
  set_string (&s->in_path, path);
  s->in_format = format;
  return ST_OK;
}

int
st_stream_set_output_fd (StStream *s, int fd, StFileFormat format)
{
  SETTABLE (s);
  if (fd < 0 || format == ST_FILE_FORMAT_AUTO)
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
  if (path == NULL || format == ST_FILE_FORMAT_AUTO)
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
  return !g_atomic_int_get (&s->cancelled);
}

static gboolean
check_header (void *user)
{
  StStream *s = user;

  return !g_atomic_int_get (&s->cancelled);
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

int
st_stream_run (StStream *s)
{
  g_autoptr (GError) error = NULL;
  int in_fd = s != NULL ? s->in_fd : -1, out_fd = -1;
  StReader *reader = NULL;
  StWriter *writer = NULL;
  FILE *chains = NULL;
  int rc = ST_OK;

  if (s == NULL || s->ran || (s->in_fd < 0 && s->in_path == NULL))
    return ST_E_INVALID;
  s->ran = TRUE;
  pthread_mutex_lock (&s->lock);
  s->runner = pthread_self ();
  s->running = TRUE;
  pthread_mutex_unlock (&s->lock);
  if (in_fd < 0 && (in_fd = open (s->in_path, O_RDONLY | O_CLOEXEC)) < 0)
    {
      g_autofree char *m = g_strdup_printf ("cannot open input %s: %s",
                                            s->in_path, g_strerror (errno));
      rc = fail (s, ST_E_IO, m);
      goto out;
    }
  reader = st_reader_new_full (in_fd, st_api_format (s->in_format), CHECK_MS,
                               check_header, s, &error);
  if (reader == NULL)
    {
      rc = g_error_matches (error, ST_ERROR, ST_ERROR_STOPPED)
           ? ST_E_CANCELLED : ST_E_FORMAT;
      fail (s, rc, error->message);
      goto out;
    }
  if (s->out_fd >= 0 || s->out_path != NULL)
    {
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
      writer = st_writer_new (out_fd, st_api_format (s->out_format), reader,
                              s->unwind, &error);
      if (writer == NULL)
        {
          rc = fail (s, ST_E_IO, error->message);
          goto out;
        }
    }
  if (s->chains != NULL && (chains = fopen (s->chains, "we")) == NULL)
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
    .perf_cache_dir = s->perf_cache_dir,
    .chains = chains,
    .report = relay,
    .report_data = s,
    .debug = s->debug,
    .callgraph = s->call_graph,
    .output_format = writer != NULL ? st_api_format (s->out_format)
                                    : ST_FORMAT_AUTO,
    .demangle = TRUE,
    .stitch = s->stitch,
    .debuginfod = s->debuginfod_urls != NULL,
    .debuginfod_urls = s->debuginfod_urls,
    .counters = TRUE,
    .live = !regular,
    .jobs = s->jobs != 0 ? s->jobs : processors (),
    .priming = s->priming == ST_PRIME_DROP ? ST_PRIMING_DROP
               : s->priming == ST_PRIME_DEFER ? ST_PRIMING_DEFER
               : ST_PRIMING_SYNC,
    .check = check,
    .check_data = s,
    .check_ms = CHECK_MS,
  };
  s->reader = reader;
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
  if (!ok)
    rc = fail (s, ST_E_IO, error->message);
  else if (st_pipeline_stopped (s->pipeline))
    rc = fail (s, ST_E_CANCELLED, "cancelled");
  st_pipeline_free (s->pipeline);
  s->pipeline = NULL;
  s->reader = NULL;

out:
  pthread_mutex_lock (&s->lock);
  s->running = FALSE;
  pthread_mutex_unlock (&s->lock);
  if (chains != NULL && fclose (chains) != 0 && rc == ST_OK)
    rc = fail (s, ST_E_IO, "writing the chains failed");
  st_writer_free (writer);
  st_reader_free (reader);
  if (out_fd >= 0 && out_fd != s->out_fd)
    close (out_fd);
  if (in_fd >= 0 && in_fd != s->in_fd)
    close (in_fd);
  return rc;
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
