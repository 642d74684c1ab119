/* stacktrace: the command, the library's first client: opens the input
   and outputs, runs them through a StStream (<stacktrace-1/stacktrace.h>
   alone), prints the summary.  No format or unwind logic lives here.  */
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
/* (stdlib.h first: it is what defines __GLIBC__.)  */
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <elfutils/debuginfod.h>
#include <stacktrace-1/stacktrace.h>

#include "live.h"
#include "live-unwinder.h"
#include "options.h"
#include "output-file.h"
#include "record.h"
#include "sandbox.h"

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
  while ((fd = open (path, flags, 0600)) < 0 && errno == EINTR);
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

/* The output's descriptor: inherited, standard output, the path itself
   (a FIFO waits here for its reader), or FILE's temporary file.  */
static int
open_output (const StOptions *o, StOutputFile *file, GError **error)
{
  if (o->output_fd >= 0)
    return o->output_fd;
  if (file == NULL)
    return STDOUT_FILENO;
  if (!st_output_file_in_place (file))
    return st_output_file_create (file, error);
  int fd = open_interruptibly (o->output, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                 "cannot open output %s: %s", o->output, g_strerror (errno));
  return fd;
}

/* The chains file's descriptor, opened as the output is.  */
static int
open_chains (const StOptions *o, StOutputFile *file, GError **error)
{
  int fd;

  if (st_output_file_in_place (file))
    fd = open_interruptibly (o->chains, O_WRONLY | O_CLOEXEC);
  else
    fd = st_output_file_create (file, error);
  if (fd < 0 && error != NULL && *error == NULL)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                 "cannot open %s: %s", o->chains, g_strerror (errno));
  return fd;
}

/* Every output path checked before anything is opened or created: a
   mistyped --chains must not cost the -o file its content.  NULL with
   the message printed when one is unusable.  */
static gboolean
check_outputs (const StOptions *o, StOutputFile **out, StOutputFile **chains)
{
  g_autoptr (GError) error = NULL;

  *out = *chains = NULL;
  if (o->mode != ST_RUN_NONE && o->output_fd < 0 && o->output != NULL
      && strcmp (o->output, "-") != 0
      && (*out = st_output_file_check ("output", o->output, o->force,
                                       &error)) == NULL)
    goto fail;
  if (o->chains != NULL
      && (*chains = st_output_file_check ("chains file", o->chains, o->force,
                                          &error)) == NULL)
    goto fail;
  if (o->stats_file != NULL)
    {
      /* Rewritten by a rename each time (live.c): only checked here.  */
      StOutputFile *stats = st_output_file_check ("stats file", o->stats_file,
                                                  TRUE, &error);
      if (stats == NULL)
        goto fail;
      st_output_file_free (stats);
    }
  return TRUE;

fail:
  fprintf (stderr, "stacktrace: %s; nothing was written\n", error->message);
  g_clear_pointer (out, st_output_file_free);
  g_clear_pointer (chains, st_output_file_free);
  return FALSE;
}

/* The output format when --output-format is not given: by the -o
   name's suffix as perf users name their files, else the input's (a
   filter's output is what came in, unwound).  WHY says which.  */
static StFileFormat
choose_output_format (const StOptions *o, const StStream *stream,
                      const char **why)
{
  if (o->output_format != ST_FILE_FORMAT_AUTO)
    {
      *why = "--output-format";
      return o->output_format;
    }
  if (o->output != NULL && g_str_has_suffix (o->output, ".data"))
    {
      *why = "the -o name ends in .data";
      return ST_FILE_FORMAT_PERF;
    }
  if (o->output != NULL && g_str_has_suffix (o->output, ".syscap"))
    {
      *why = "the -o name ends in .syscap";
      return ST_FILE_FORMAT_CAPTURE;
    }
  *why = "the input's format";
  return st_stream_get_input_format (stream) == ST_FILE_FORMAT_PERF
         ? ST_FILE_FORMAT_PERF : ST_FILE_FORMAT_CAPTURE;
}

/* Ends FILE: into place when the run wrote it whole (WRITTEN), else
   removed, the path keeping what it had; but a write that failed on
   the way (a full disk) over no earlier file leaves what was written,
   which the writer has kept readable (perf.data's header says how
   much): it costs the user nothing.  FALSE when the rename failed.  */
static gboolean
end_output_file (StOutputFile *file, gboolean written, gboolean verbose)
{
  g_autoptr (GError) error = NULL;

  if (file == NULL || st_output_file_in_place (file))
    return TRUE;
  if (!written && !st_output_file_is_new (file))
    {
      st_output_file_discard (file);
      fprintf (stderr, "stacktrace: %s keeps what it had: this run did "
               "not complete its output\n",
               st_output_file_path (file));
      return TRUE;
    }
  if (!st_output_file_commit (file, &error))
    {
      fprintf (stderr, "stacktrace: %s\n", error->message);
      return FALSE;
    }
  if (verbose && st_output_file_kept (file) != NULL)
    fprintf (stderr, "stacktrace: the previous file was kept as %s\n",
             st_output_file_kept (file));
  return TRUE;
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
report_to_stderr (StMessageKind kind, const char *message, void *user)
{
  (void) kind;
  (void) user;
  fprintf (stderr, "stacktrace: %s\n", message);
}

/* Without --priming: sync for a regular file (batch: nothing to gain
   from not waiting), defer for anything else (live: a pipe, a FIFO, a
   socket, an inherited descriptor).  */
static StPrimePolicy
default_priming (int in_fd)
{
  struct stat st;

  if (fstat (in_fd, &st) == 0 && S_ISREG (st.st_mode))
    return ST_PRIME_INLINE;
  return ST_PRIME_DEFER;
}

/* The stream's idle moments: the C library's free heap pages given back
   to the system (a live session's memory would otherwise stay at its
   peak).  Process-wide, so the command's to do, not the library's.  */
static void
trim_heap (void *data)
{
  (void) data;
#ifdef __GLIBC__
  malloc_trim (0);
#endif
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

/* Whether the run goes into the sandbox once started: as the live
   unwinder (a recorder spawns it as root) and whenever it runs as root,
   or on request; never with --no-sandbox.  */
static gboolean
sandbox_wanted (const StOptions *o, gboolean live_unwinder)
{
  if (o->no_sandbox)
    return FALSE;
  return o->sandbox || live_unwinder || geteuid () == 0;
}

/* Where libdebuginfod keeps what it downloads (its own order: the
   variable, an old-style cache in HOME, the XDG cache).  */
static char *
debuginfod_cache_dir (void)
{
  const char *env = g_getenv (DEBUGINFOD_CACHE_PATH_ENV_VAR);
  g_autofree char *old = g_build_filename (g_get_home_dir (),
                                           ".debuginfod_client_cache", NULL);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (g_file_test (old, G_FILE_TEST_IS_DIR))
    return g_steal_pointer (&old);
  return g_build_filename (g_get_user_cache_dir (), "debuginfod_client",
                           NULL);
}

/* Enters the sandbox with what this run still needs: debuginfod's
   network and cache when it is on; the stats file kept open.  What is
   in place is said with -v and as the live unwinder (in the recorder's
   log); a missing layer always.  FALSE when a layer failed half-way
   (reported): the run must stop.  */
static gboolean
enter_sandbox (const StOptions *o, StLive *live, gboolean live_unwinder,
               gboolean reads_processes, gboolean perf_events,
               int command_pid, const StOutputCommitter *committer)
{
  g_autoptr (GError) error = NULL;
  const char *urls = g_getenv (DEBUGINFOD_URLS_ENV_VAR);
  gboolean debuginfod = !o->no_debuginfod && urls != NULL
                        && urls[strspn (urls, " \t")] != '\0';
  g_autofree char *cache = NULL;

  if (debuginfod)
    {
      /* Loaded now: a library mapped later is executable memory.  */
      st_load_debuginfod ();
      cache = debuginfod_cache_dir ();
      g_mkdir_with_parents (cache, 0700);
    }
  if (!st_live_keep_stats_file (live, &error))
    {
      fprintf (stderr, "stacktrace: warning: %s\n", error->message);
      g_clear_error (&error);
    }
  StSandboxPolicy policy = {
    .network = debuginfod,
    .writable_dir = cache,
    .reads_processes = reads_processes,
    .perf_events = perf_events,
    .command_pid = command_pid,
    .helper_pid = st_output_committer_pid (committer),
    .quiet = o->quiet || !(o->verbose || live_unwinder),
  };
  if (st_sandbox_enter (&policy, NULL, &error))
    return TRUE;
  fprintf (stderr, "stacktrace: %s\n", error->message);
  return FALSE;
}


/* The process that renames the outputs into place at the end, for a run
   that enters the sandbox (which renames nothing), when an output is
   written under a temporary name.  FALSE when it cannot be made
   (said).  */
static gboolean
start_committer (StOutputFile *out, StOutputFile *chains,
                 StOutputCommitter **committer)
{
  StOutputFile *files[] = { out, chains };
  g_autoptr (GError) error = NULL;

  if ((out == NULL || st_output_file_in_place (out))
      && (chains == NULL || st_output_file_in_place (chains)))
    return TRUE;
  if ((*committer = st_output_committer_new (files, G_N_ELEMENTS (files),
                                             &error)) != NULL)
    return TRUE;
  fprintf (stderr, "stacktrace: %s\n", error->message);
  return FALSE;
}

/* --record's sandbox, entered once its events are open and its command
   forked, before its first thread.  */
typedef struct
{
  const StOptions *opts;
  StLive *live;
  gboolean sandbox;
  const StOutputCommitter *committer;
} RecordSandbox;

static gboolean
record_sandbox_enter (int command_pid, void *data)
{
  const RecordSandbox *r = data;

  return !r->sandbox
         || enter_sandbox (r->opts, r->live, FALSE, TRUE, TRUE, command_pid,
                           r->committer);
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
  StRecordRun *record = NULL;
  /* --record first: its --stack-size is the live unwinder's too.  */
  gboolean recording = st_record_wanted (argc, argv);

  setlocale (LC_ALL, "");
  if ((recording
       && (record = st_record_parse (&argc, &argv, &error)) == NULL)
      || (!recording && st_live_unwinder_wanted (argc, argv)
          && (unwinder = st_live_unwinder_parse (&argc, &argv, &error)) == NULL)
      || !st_options_parse (&opts, &argc, &argv, &error))
    {
      fprintf (stderr, "stacktrace: %s\nTry 'stacktrace --help'.\n",
               error->message);
      st_live_unwinder_free (unwinder);
      st_record_free (record);
      st_options_clear (&opts);
      return 2;
    }
  /* A reader that goes away is reported as a write error, not a signal.  */
  signal (SIGPIPE, SIG_IGN);
  /* Mapped files that shrink under us become zeros and a mark, not a
     SIGBUS that kills: the library installs no handler by itself.  */
  st_install_mapped_file_guard ();
  st_live_install_signals ();

  /* As perf report: no input named and a terminal on standard input
     (nothing could come from there) reads ./perf.data.  */
  if (unwinder == NULL && record == NULL && opts.input == NULL
      && opts.input_fd < 0 && isatty (STDIN_FILENO))
    {
      opts.input = g_strdup ("perf.data");
      fprintf (stderr, "stacktrace: standard input is a terminal: reading "
               "./perf.data (-i PATH reads another file)\n");
    }

  int status = 1;
  const char *state = "failed";
  StOutputFile *out_file = NULL, *chains_file = NULL;
  StOutputCommitter *committer = NULL;
  StLive *live = NULL;
  int chains_fd = -1;
  gboolean sandbox = sandbox_wanted (&opts, unwinder != NULL);
  char *perf_cache_dir = NULL;
  StStream *stream = NULL;
  int in_fd = -1;
  int out_fd = -1;
  gboolean outputs_written = FALSE;

  if (unwinder == NULL && opts.mode != ST_RUN_NONE && opts.output == NULL
      && isatty (opts.output_fd >= 0 ? opts.output_fd : STDOUT_FILENO))
    {
      fprintf (stderr, "stacktrace: refusing to write binary output to "
               "a terminal; use -o PATH (or -m none to only check the "
               "input)\n");
      goto out;
    }
  if (!check_outputs (&opts, &out_file, &chains_file))
    goto out;
  live = st_live_new (opts.stats_file, opts.stats_format, opts.verbose);
  /* The live unwinder and --record enter the sandbox before their first
     thread, long before the input's header says the output's format:
     their outputs are opened now, as the sandbox creates nothing.  */
  if (sandbox && (unwinder != NULL || record != NULL))
    {
      if (out_file != NULL && opts.mode != ST_RUN_NONE
          && (out_fd = open_output (&opts, out_file, &error)) < 0)
        {
          fprintf (stderr, "stacktrace: %s\n", error->message);
          goto out;
        }
      if (chains_file != NULL
          && (chains_fd = open_chains (&opts, chains_file, &error)) < 0)
        {
          fprintf (stderr, "stacktrace: %s\n", error->message);
          goto out;
        }
      if (!start_committer (out_file, chains_file, &committer))
        goto out;
    }
  if (unwinder != NULL
      && (!st_live_unwinder_open (unwinder, &opts, &error)
          || (sandbox
              && !enter_sandbox (&opts, live, TRUE, TRUE, FALSE, 0,
                                 committer))
          || !st_live_unwinder_start (unwinder, &opts, stop_requested,
                                      &error)))
    {
      if (error != NULL)
        {
          fprintf (stderr, "stacktrace: %s\n", error->message);
          if (error->domain == G_OPTION_ERROR)
            status = 2;
        }
      goto out;
    }
  /* The events opened and the command started only once the outputs
     are known to be writable.  */
  RecordSandbox record_sandbox = { &opts, live, sandbox, committer };
  if (record != NULL
      && !st_record_start (record, &opts, stop_requested, record_sandbox_enter,
                           &record_sandbox, &error))
    {
      fprintf (stderr, "stacktrace: %s\n", error->message);
      if (error->domain == G_OPTION_ERROR)
        status = 2;
      goto out;
    }
  in_fd = open_input (&opts);
  if (in_fd < 0)
    {
      if (report_open_failure ("input", opts.input))
        status = 0, state = "stopped";
      goto out;
    }
  struct stat in_st;
  if (fstat (in_fd, &in_st) == 0 && S_ISDIR (in_st.st_mode))
    {
      fprintf (stderr, "stacktrace: the input %s is a directory; give a "
               "perf.data file or a Sysprof capture\n",
               opts.input != NULL ? opts.input : "descriptor");
      goto out;
    }
  st_live_set_drain (live, input_can_drain (in_fd));
  stream = st_stream_new ();
  if (opts.input_read != NULL)
    st_stream_set_input_pull (stream, in_fd, opts.input_read,
                              opts.input_read_data, opts.format);
  else
    st_stream_set_input_fd (stream, in_fd, opts.format);
  st_stream_set_check_func (stream, unwinder != NULL ? st_live_check_output
                                                     : st_live_check,
                            live, ST_LIVE_CHECK_MS);
  int rc = st_stream_open_input (stream);
  if (rc != ST_OK)
    {
      if (rc == ST_E_CANCELLED)
        {
          fprintf (stderr, "stacktrace: stopped by SIG%s before the input's "
                   "header arrived\n", sigabbrev_np (st_live_stop_signal ()));
          status = 0;
          state = "stopped";
        }
      else
        fprintf (stderr, "stacktrace: %s%s%s\n",
                 opts.input != NULL && strcmp (opts.input, "-") != 0
                 ? opts.input : "", opts.input != NULL
                 && strcmp (opts.input, "-") != 0 ? ": " : "",
                 st_stream_error (stream));
      goto out;
    }
  st_live_start_stats (live);
  const char *format_why = NULL;
  StFileFormat output_format = choose_output_format (&opts, stream,
                                                     &format_why);
  if (opts.verbose && opts.mode != ST_RUN_NONE)
    fprintf (stderr, "stacktrace: writing %s (%s)\n",
             output_format == ST_FILE_FORMAT_PERF ? "perf.data"
             : "a Sysprof capture", format_why);
  if (opts.mode != ST_RUN_NONE)
    {
      if (output_is_input (&opts, in_fd))
        goto out;
      if (out_fd < 0 && (out_fd = open_output (&opts, out_file, &error)) < 0)
        {
          if (errno == EINTR && st_live_stop_signal () != 0)
            {
              report_open_failure ("output", opts.output);
              status = 0, state = "stopped";
            }
          else
            fprintf (stderr, "stacktrace: %s\n", error->message);
          goto out;
        }
      st_stream_set_output_fd (stream, out_fd, output_format);
      size_t len = 0;
      const void *mounts = unwinder != NULL
                           ? st_live_unwinder_mounts (unwinder, &len)
                           : record != NULL ? st_record_mounts (record, &len)
                           : NULL;
      if (mounts != NULL)
        st_stream_add_output_frames (stream, mounts, len);
    }
  if (chains_file != NULL && chains_fd < 0
      && (chains_fd = open_chains (&opts, chains_file, &error)) < 0)
    {
      fprintf (stderr, "stacktrace: %s\n", error->message);
      goto out;
    }
  /* Every output is open: the sandbox of a run from a file or a pipe,
     before the first thread (the stream's workers).  */
  if (unwinder == NULL && record == NULL && sandbox
      && (!start_committer (out_file, chains_file, &committer)
          || !enter_sandbox (&opts, live, FALSE, input_is_live (in_fd),
                             FALSE, 0, committer)))
    goto out;

  /* perf's build-id cache: $PERF_BUILDID_DIR, else ~/.debug.  */
  const char *perf_dir = g_getenv ("PERF_BUILDID_DIR");
  perf_cache_dir = perf_dir != NULL && perf_dir[0] != '\0'
                   ? g_strdup (perf_dir)
                   : g_build_filename (g_get_home_dir (), ".debug", NULL);
  st_stream_set_unwind (stream, opts.mode == ST_RUN_UNWIND);
  st_stream_set_engine (stream, opts.engine);
  st_stream_set_symfs (stream, opts.symfs);
  st_stream_set_buildid_dirs (stream, opts.buildid_dir, perf_cache_dir);
  st_stream_set_host_files (stream, !opts.no_host_files);
  if (chains_fd >= 0)
    st_stream_set_chains_fd (stream, chains_fd);
  st_stream_set_message_func (stream, report_to_stderr, NULL);
  st_stream_set_debug (stream, opts.debug);
  st_stream_set_call_graph (stream, opts.summary);
  st_stream_set_demangle (stream, !opts.no_demangle);
  st_stream_set_stitching (stream, !opts.no_stitch);
  st_stream_set_truncate_stack (stream, (uint64_t) opts.truncate_stack);
  st_stream_set_debuginfod (stream, opts.no_debuginfod
                                    ? NULL : g_getenv ("DEBUGINFOD_URLS"));
  st_stream_set_idle_func (stream, trim_heap, NULL);
  st_stream_set_counters (stream, !opts.no_counters,
                          (unsigned) opts.counters_interval);
  st_stream_set_priming (stream, opts.priming_auto ? default_priming (in_fd)
                                                   : opts.priming);
  st_stream_set_priming_cap (stream, opts.priming_cap);
  st_stream_set_jobs (stream, opts.jobs);
  st_live_attach (live, stream);
  if (unwinder != NULL)
    st_live_set_output_gone (live, st_live_unwinder_output_gone, unwinder);
  st_stream_run (stream);
  StStreamOutcome outcome;
  st_stream_get_outcome (stream, &outcome);
  if (!outcome.started)
    {
      /* The output could not be begun (its header not written).  */
      fprintf (stderr, "stacktrace: %s\n", st_stream_error (stream));
      goto out;
    }
  gboolean ok = !outcome.failed;
  gboolean named_input = opts.input != NULL && strcmp (opts.input, "-") != 0;
  gboolean client_gone = FALSE;
  /* The outputs go into place unless writing them failed: damaged or
     cut input, a stop by a signal, still leave every valid frame.  */
  outputs_written = outcome.output_whole;
  StStatistics *stats = NULL;
  StDamageCounters damage = { 0 };
  if (st_stream_get_statistics (stream, &stats) == ST_OK)
    st_statistics_get_damage (stats, &damage);
  st_statistics_free (stats);
  if (outcome.abandoned || (!ok && unwinder != NULL && outcome.broken_pipe))
    {
      /* The recorder stopped reading the capture: its end of the run.  */
      fprintf (stderr, "stacktrace: the capture's reader went away; "
               "stopping\n");
      ok = client_gone = TRUE;
    }
  else if (!ok && outcome.broken_pipe)
    fprintf (stderr, "stacktrace: %s; stopped after %" G_GUINT64_FORMAT
             " input bytes\n", st_stream_error (stream),
             st_stream_get_input_offset (stream));
  else if (!ok)
    fprintf (stderr, "stacktrace: %s\n", st_stream_error (stream));
  else if (damage.places > 0)
    {
      /* Every valid frame was written, but a script must know.  */
      fprintf (stderr, "stacktrace: the input was damaged in %"
               G_GUINT64_FORMAT " place(s), the first at offset %"
               G_GUINT64_FORMAT "%s%s; every valid frame was written\n",
               damage.places, damage.first_offset,
               named_input ? " of " : "", named_input ? opts.input : "");
      ok = FALSE;
    }
  uint64_t drain_from = 0;
  gboolean drained = st_live_drained (live, &drain_from);
  if (outcome.stopped && st_live_stop_signal () != 0)
    fprintf (stderr, "stacktrace: stopped by SIG%s at input offset %"
             G_GUINT64_FORMAT "%s\n", sigabbrev_np (st_live_stop_signal ()),
             st_stream_get_input_offset (stream),
             st_live_grace_expired (live) ? " (the grace period ran out "
             "before the input ended)" : "");
  else if (drained)
    fprintf (stderr, "stacktrace: stopped by SIG%s at input offset %"
             G_GUINT64_FORMAT ", after reading the input to its end at %"
             G_GUINT64_FORMAT "\n", sigabbrev_np (st_live_stop_signal ()),
             drain_from, st_stream_get_input_offset (stream));
  if (!opts.quiet)
    st_live_print_summary (live, stderr, opts.verbose, FALSE);
  if (opts.verbose)
    print_resources (stderr);
  if (opts.summary)
    st_live_print_call_graph (live, stderr);
  gboolean chains_written = TRUE;
  if (chains_fd >= 0 && (!outcome.chains_whole || close (chains_fd) != 0))
    {
      fprintf (stderr, "stacktrace: writing %s failed\n", opts.chains);
      ok = chains_written = FALSE;
    }
  chains_fd = -1;
  /* The output was ended by the run, before the outputs are renamed into
     place: a reader that waits for the name sees them whole.  */
  if (out_fd > STDERR_FILENO && out_fd != opts.output_fd && close (out_fd) != 0)
    outputs_written = FALSE;
  out_fd = -1;
  if (!end_output_file (out_file, outputs_written, opts.verbose)
      || !end_output_file (chains_file, outputs_written && chains_written,
                           opts.verbose))
    ok = FALSE;
  status = ok ? 0 : 1;
  state = !ok ? "failed"
          : outcome.stopped || drained || client_gone ? "stopped"
          : "finished";

out:
  if (live != NULL)
    st_live_finish (live, state);
  if (chains_fd >= 0)
    close (chains_fd);
  /* Not written through: the paths keep what they had.  */
  st_output_file_free (out_file);
  st_output_file_free (chains_file);
  st_output_committer_free (committer);
  /* The stream's reader freed before the live input's ring reader
     stops.  */
  st_stream_free (stream);
  if (unwinder != NULL)
    st_live_unwinder_finish (unwinder, stderr, opts.quiet);
  st_live_unwinder_free (unwinder);
  if (record != NULL)
    st_record_finish (record, stderr, opts.quiet);
  st_record_free (record);
  st_live_free (live);
  if (out_fd > STDERR_FILENO && out_fd != opts.output_fd)
    close (out_fd);
  if (in_fd > STDERR_FILENO && in_fd != opts.input_fd)
    close (in_fd);
  g_free (perf_cache_dir);
  st_options_clear (&opts);
  return status;
}
