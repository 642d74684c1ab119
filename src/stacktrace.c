/* stacktrace: the command.  Opens the input and output, wires reader,
   pipeline and writer, prints the summary.  No format or unwind logic
   lives here.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/domain.h"
#include "util/mapping-guard.h"
#include "format/reader.h"
#include "format/writer.h"
#include "live.h"
#include "live-unwinder.h"
#include "options.h"
#include "pipeline.h"

/* open(), again after a signal that did not ask to stop (SIGUSR1).
   Opening a FIFO blocks until the other end is opened too; SIGINT or
   SIGTERM then ends the wait (the handlers have no SA_RESTART) and the
   caller sees EINTR.  A request that came before the open is seen here
   too: the open would wait for a signal already spent.  */
static int
open_interruptibly (const char *path, int flags)
{
  int fd;

  do
    {
      if (st_live_stop_signal () != 0)
        {
          errno = EINTR;
          return -1;
        }
    }
  while ((fd = open (path, flags, 0644)) < 0 && errno == EINTR);
  return fd;
}

/* Prints why PATH (WHAT: input or output) could not be opened; TRUE when
   it was a stop asked for by a signal (exit status 0).  */
static gboolean
report_open_failure (const char *what, const char *path)
{
  if (errno == EINTR && st_live_stop_signal () != 0)
    {
      fprintf (stderr, "stacktrace: stopped by SIG%s while waiting to open "
               "the %s %s\n", sigabbrev_np (st_live_stop_signal ()), what,
               path);
      return TRUE;
    }
  fprintf (stderr, "stacktrace: cannot open %s %s: %s\n", what, path,
           strerror (errno));
  return FALSE;
}

static int
open_input (const StOptions *o)
{
  if (o->input_fd >= 0)
    return o->input_fd;
  if (o->input == NULL || strcmp (o->input, "-") == 0)
    return STDIN_FILENO;
  return open_interruptibly (o->input, O_RDONLY | O_CLOEXEC);
}

static int
open_output (const StOptions *o)
{
  if (o->output_fd >= 0)
    return o->output_fd;
  if (o->output == NULL || strcmp (o->output, "-") == 0)
    return STDOUT_FILENO;
  return open_interruptibly (o->output,
                             O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
}

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Writing over the input destroys the recording (and, with the input
   mapped, the read of a file truncated under it ends in SIGBUS): refused
   before the output is opened with O_TRUNC.  stat() follows symbolic
   links and /proc/self/fd/N, and a hard link has the same inode.  Only
   a regular file is compared: a FIFO or a socket holds no recording.  */
static gboolean
output_is_input (const StOptions *o, int in_fd)
{
  struct stat in_st, out_st;
  const char *name;

  if (fstat (in_fd, &in_st) != 0 || !S_ISREG (in_st.st_mode))
    return FALSE;
  if (o->output_fd >= 0 || o->output == NULL || strcmp (o->output, "-") == 0)
    {
      int out_fd = o->output_fd >= 0 ? o->output_fd : STDOUT_FILENO;
      if (fstat (out_fd, &out_st) != 0)
        return FALSE;
      name = o->output_fd >= 0 ? "the output descriptor" : "standard output";
    }
  else
    {
      if (stat (o->output, &out_st) != 0)
        return FALSE;   /* does not exist yet: cannot be the input */
      name = o->output;
    }
  if (!same_file (&in_st, &out_st))
    return FALSE;
  fprintf (stderr, "stacktrace: refusing to write the output to %s: it is "
           "the input file (device %ju, inode %ju); nothing was written\n",
           name, (uintmax_t) in_st.st_dev, (uintmax_t) in_st.st_ino);
  return TRUE;
}

/* The library's messages, on standard error under the program's name.  */
static void
report_to_stderr (StReportKind kind, const char *message, void *user)
{
  (void) kind;
  (void) user;
  fprintf (stderr, "stacktrace: %s\n", message);
}

/* Without --priming: sync for a regular file (batch: nothing to gain
   from not waiting), defer for anything else (live: a pipe, a FIFO, a
   socket, an inherited descriptor).  */
static StPrimingMode
default_priming (int in_fd)
{
  struct stat st;

  if (fstat (in_fd, &st) == 0 && S_ISREG (st.st_mode))
    return ST_PRIMING_SYNC;
  return ST_PRIMING_DEFER;
}

/* Whether the input is being recorded now: anything but a regular
   file (whose processes are long gone, their pids maybe reused).  */
static gboolean
input_is_live (int in_fd)
{
  struct stat st;

  return fstat (in_fd, &st) != 0 || !S_ISREG (st.st_mode);
}

/* Whether a stop should let the writer finish first: the input comes
   from a process (a pipe, a FIFO, a socket) that may still be flushing
   what it recorded when the same Ctrl-C reached it too.  */
static gboolean
input_can_drain (int in_fd)
{
  struct stat st;

  return fstat (in_fd, &st) == 0
         && (S_ISFIFO (st.st_mode) || S_ISSOCK (st.st_mode));
}

/* With -v: what the run cost, to watch the bounds on memory and
   descriptors.  */
static void
print_resources (FILE *out)
{
  struct rusage ru;
  int n_fds = -1;
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);

  if (dir != NULL)
    {
      n_fds = -1;   /* the directory's own descriptor */
      while (g_dir_read_name (dir) != NULL)
        n_fds++;
      g_dir_close (dir);
    }
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return;
  fprintf (out, "stacktrace: resources: peak RSS %ld MiB, ", ru.ru_maxrss / 1024);
  if (n_fds >= 0)
    fprintf (out, "%d file descriptors open\n", n_fds);
  else
    fprintf (out, "file descriptors open unknown (no descriptor left to "
             "count them)\n");
}

/* For the live unwinder's ring reader: SIGINT or SIGTERM ends the run
   as the recorder's eventfd does.  */
static gboolean
stop_requested (void)
{
  return st_live_stop_signal () != 0;
}

int
main (int argc, char **argv)
{
  StOptions opts = { 0 };
  g_autoptr (GError) error = NULL;
  StLiveUnwinder *unwinder = NULL;

  setlocale (LC_ALL, "");
  if ((st_live_unwinder_wanted (argc, argv)
       && (unwinder = st_live_unwinder_parse (&argc, &argv, &error)) == NULL)
      || !st_options_parse (&opts, &argc, &argv, &error))
    {
      fprintf (stderr, "stacktrace: %s\nTry 'stacktrace --help'.\n",
               error->message);
      st_live_unwinder_free (unwinder);
      st_options_clear (&opts);
      return 2;
    }
  /* A reader that goes away is reported as a write error, not a signal.  */
  signal (SIGPIPE, SIG_IGN);
  /* Mapped files that shrink under us become zeros and a mark, not a
     SIGBUS that kills: the library installs no handler by itself.  */
  st_mapping_guard_install ();
  st_live_install_signals ();
  if (unwinder != NULL
      && !st_live_unwinder_start (unwinder, &opts, stop_requested, &error))
    {
      gboolean usage = error->domain == G_OPTION_ERROR;
      fprintf (stderr, "stacktrace: %s\n", error->message);
      st_live_unwinder_free (unwinder);
      st_options_clear (&opts);
      return usage ? 2 : 1;
    }

  int status = 1;
  const char *state = "failed";
  StLive *live = st_live_new (opts.stats_file, opts.stats_format,
                              opts.verbose);
  FILE *chains = NULL;
  char *perf_cache_dir = NULL;
  StReader *reader = NULL;
  StWriter *writer = NULL;
  StPipeline *pipeline = NULL;
  int in_fd = open_input (&opts);
  int out_fd = -1;

  if (in_fd < 0)
    {
      if (report_open_failure ("input", opts.input))
        status = 0, state = "stopped";
      goto out;
    }
  st_live_set_drain (live, input_can_drain (in_fd));
  reader = st_reader_new_full (in_fd, opts.format, ST_LIVE_CHECK_MS,
                               st_live_check, live, &error);
  if (reader == NULL)
    {
      if (g_error_matches (error, ST_ERROR, ST_ERROR_STOPPED))
        {
          fprintf (stderr, "stacktrace: stopped by SIG%s before the input's "
                   "header arrived\n", sigabbrev_np (st_live_stop_signal ()));
          status = 0;
          state = "stopped";
        }
      else
        fprintf (stderr, "stacktrace: %s\n", error->message);
      goto out;
    }
  if (opts.mode != ST_MODE_NONE)
    {
      if (isatty (opts.output_fd >= 0 ? opts.output_fd : STDOUT_FILENO)
          && opts.output == NULL)
        {
          fprintf (stderr, "stacktrace: refusing to write binary output to "
                   "a terminal; use -o PATH\n");
          goto out;
        }
      if (output_is_input (&opts, in_fd))
        goto out;
      if ((out_fd = open_output (&opts)) < 0)
        {
          if (report_open_failure ("output", opts.output))
            status = 0, state = "stopped";
          goto out;
        }
      writer = st_writer_new (out_fd, opts.output_format, reader,
                              opts.mode == ST_MODE_UNWIND, &error);
      if (writer == NULL)
        {
          fprintf (stderr, "stacktrace: %s\n", error->message);
          goto out;
        }
      if (unwinder != NULL)
        st_live_unwinder_write_mounts (unwinder, writer);
    }
  if (opts.chains != NULL && (chains = fopen (opts.chains, "we")) == NULL)
    {
      fprintf (stderr, "stacktrace: cannot open %s: %s\n", opts.chains,
               strerror (errno));
      goto out;
    }

  /* perf's build-id cache: $PERF_BUILDID_DIR, else ~/.debug.  */
  const char *perf_dir = g_getenv ("PERF_BUILDID_DIR");
  perf_cache_dir = perf_dir != NULL && perf_dir[0] != '\0'
                   ? g_strdup (perf_dir)
                   : g_build_filename (g_get_home_dir (), ".debug", NULL);
  StPipelineOptions popts = {
    .mode = opts.mode,
    .engine = opts.engine,
    .output_format = opts.output_format,
    .symfs = opts.symfs,
    .buildid_dir = opts.buildid_dir,
    .perf_cache_dir = perf_cache_dir,
    .chains = chains,
    .report = report_to_stderr,
    .debug = opts.debug,
    .callgraph = opts.summary,
    .demangle = !opts.no_demangle,
    .stitch = !opts.no_stitch,
    .truncate_stack = (uint64_t) opts.truncate_stack,
    .debuginfod = !opts.no_debuginfod,
    .debuginfod_urls = g_getenv ("DEBUGINFOD_URLS"),
    .trim_heap = TRUE,
    .counters = !opts.no_counters,
    .counters_interval_ms = (unsigned) opts.counters_interval,
    .live = input_is_live (in_fd),
    .priming = opts.priming_auto ? default_priming (in_fd) : opts.priming,
    .priming_cap = opts.priming_cap,
    .check = unwinder != NULL ? st_live_check_output : st_live_check,
    .check_data = live,
    .check_ms = ST_LIVE_CHECK_MS,
  };
  pipeline = st_pipeline_new (reader, writer, &popts);
  st_live_attach (live, pipeline, reader);
  if (unwinder != NULL)
    st_live_set_output_gone (live, st_live_unwinder_output_gone, unwinder);
  gboolean ok = st_pipeline_run (pipeline, &error);
  gboolean client_gone = FALSE;
  if (st_pipeline_output_abandoned (pipeline)
      || (!ok && unwinder != NULL
          && g_error_matches (error, ST_ERROR, ST_ERROR_BROKEN_PIPE)))
    {
      /* The recorder stopped reading the capture: its end of the run.  */
      fprintf (stderr, "stacktrace: the capture's reader went away; "
               "stopping\n");
      g_clear_error (&error);
      ok = client_gone = TRUE;
    }
  else if (!ok && g_error_matches (error, ST_ERROR, ST_ERROR_BROKEN_PIPE))
    fprintf (stderr, "stacktrace: %s; stopped after %" G_GUINT64_FORMAT
             " input bytes\n", error->message, st_reader_offset (reader));
  else if (!ok)
    fprintf (stderr, "stacktrace: %s\n", error->message);
  else if (st_stats_damaged (st_pipeline_stats (pipeline)) > 0)
    {
      /* Every valid frame was written, but a script must know.  */
      const StStats *stats = st_pipeline_stats (pipeline);
      fprintf (stderr, "stacktrace: the input was damaged in %" G_GUINT64_FORMAT
               " place(s), the first at offset %" G_GUINT64_FORMAT "; every "
               "valid frame was written\n", st_stats_damaged (stats),
               st_stats_first_damage (stats));
      ok = FALSE;
    }
  uint64_t drain_from = 0;
  gboolean drained = st_live_drained (live, &drain_from);
  if (st_pipeline_stopped (pipeline) && st_live_stop_signal () != 0)
    fprintf (stderr, "stacktrace: stopped by SIG%s at input offset %"
             G_GUINT64_FORMAT "%s\n", sigabbrev_np (st_live_stop_signal ()),
             st_reader_offset (reader),
             st_live_grace_expired (live) ? " (the grace period ran out "
             "before the input ended)" : "");
  else if (drained)
    fprintf (stderr, "stacktrace: stopped by SIG%s at input offset %"
             G_GUINT64_FORMAT ", after reading the input to its end at %"
             G_GUINT64_FORMAT "\n", sigabbrev_np (st_live_stop_signal ()),
             drain_from, st_reader_offset (reader));
  if (!opts.quiet)
    st_stats_print (st_pipeline_stats (pipeline), stderr, opts.verbose);
  if (opts.verbose)
    print_resources (stderr);
  if (opts.summary)
    st_callgraph_print (st_pipeline_callgraph (pipeline), stderr, 1.0);
  if (chains != NULL && fclose (chains) != 0)
    {
      fprintf (stderr, "stacktrace: writing %s failed\n", opts.chains);
      ok = FALSE;
    }
  chains = NULL;
  status = ok ? 0 : 1;
  state = !ok ? "failed"
          : st_pipeline_stopped (pipeline) || drained || client_gone ? "stopped"
          : "finished";

out:
  st_live_finish (live, state);
  if (chains != NULL)
    fclose (chains);
  st_pipeline_free (pipeline);
  st_writer_free (writer);
  st_reader_free (reader);
  if (unwinder != NULL)
    st_live_unwinder_finish (unwinder, stderr, opts.quiet);
  st_live_unwinder_free (unwinder);
  st_live_free (live);
  if (out_fd > STDERR_FILENO && out_fd != opts.output_fd)
    close (out_fd);
  if (in_fd > STDERR_FILENO && in_fd != opts.input_fd)
    close (in_fd);
  g_free (perf_cache_dir);
  st_options_clear (&opts);
  return status;
}
