/* Option parsing (GOption), with eu-stacktrace's -i/-o/-m/-f kept.  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "options.h"

static gboolean
parse_format (const char *value, StFileFormat *out, gboolean allow_auto,
              GError **error)
{
  if (allow_auto && g_strcmp0 (value, "auto") == 0)
    *out = ST_FILE_FORMAT_AUTO;
  else if (g_strcmp0 (value, "sysprof") == 0)
    *out = ST_FILE_FORMAT_CAPTURE;
  else if (g_strcmp0 (value, "perf") == 0)
    *out = ST_FILE_FORMAT_PERF;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown format '%s' (expected %ssysprof or perf)", value,
                   allow_auto ? "auto, " : "");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_mode (const char *value, StRunMode *out, GError **error)
{
  if (g_strcmp0 (value, "none") == 0)
    *out = ST_RUN_NONE;
  else if (g_strcmp0 (value, "passthru") == 0)
    *out = ST_RUN_PASSTHRU;
  else if (g_strcmp0 (value, "naive") == 0)
    *out = ST_RUN_UNWIND;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown mode '%s' (expected none, passthru or naive)",
                   value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_stats_format (const char *value, StStatsFormat *out, GError **error)
{
  if (g_strcmp0 (value, "text") == 0)
    *out = ST_STATS_FORMAT_TEXT;
  else if (g_strcmp0 (value, "json") == 0)
    *out = ST_STATS_FORMAT_JSON;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown stats format '%s' (expected text or json)",
                   value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_engine (const char *value, StUnwindEngine *out, GError **error)
{
  if (g_strcmp0 (value, "fast") == 0)
    *out = ST_ENGINE_FAST_CFI;
  else if (g_strcmp0 (value, "dwfl") == 0)
    *out = ST_ENGINE_LIBDWFL;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown engine '%s' (expected fast or dwfl)", value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_priming (const char *value, StPrimePolicy *out, GError **error)
{
  if (g_strcmp0 (value, "sync") == 0)
    *out = ST_PRIME_INLINE;
  else if (g_strcmp0 (value, "drop") == 0)
    *out = ST_PRIME_DROP;
  else if (g_strcmp0 (value, "defer") == 0)
    *out = ST_PRIME_DEFER;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown priming mode '%s' (expected sync, drop or "
                   "defer)", value);
      return FALSE;
    }
  return TRUE;
}

/* A size in bytes, with an optional K, M or G (binary multiples).  */
static gboolean
parse_size (const char *option, const char *value, guint64 *out,
            GError **error)
{
  char *end = (char *) value;
  guint64 n = g_ascii_isdigit (value[0]) ? g_ascii_strtoull (value, &end, 10)
                                         : 0;
  guint shift = 0;

  if (end != value)
    switch (g_ascii_toupper (*end))
      {
      case 'K': shift = 10; end++; break;
      case 'M': shift = 20; end++; break;
      case 'G': shift = 30; end++; break;
      default: break;
      }
  if (end == value || *end != '\0' || n == 0 || n > (G_MAXUINT64 >> shift))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s needs a size in bytes > 0, optionally with K, M or G "
                   "(got '%s')", option, value);
      return FALSE;
    }
  *out = n << shift;
  return TRUE;
}

static const char description[] =
  "Unwinds the raw user-stack samples of a Sysprof capture or perf.data\n"
  "(perf record --call-graph=dwarf) into callchain samples; every other\n"
  "frame passes through.  Converts between the two formats.\n"
  "\n"
  "Example:\n"
  "  perf record --call-graph=dwarf -e cpu-clock -o - -- prog \\\n"
  "    | stacktrace -f perf -o out.syscap\n"
  "\n"
  "Recording by itself (perf record --call-graph=dwarf's events, unwound\n"
  "as they come; perf.data unless -o names a .syscap or --output-format):\n"
  "  stacktrace --record -o out.data -- prog args; perf report -i out.data\n"
  "  --record               Open the perf events; with one of:\n"
  "  -a, --all-cpus         the whole system, until Ctrl-C (or a command)\n"
  "  -p, --pid=PID[,PID]    these processes and their new children\n"
  "  -- CMD ARGS            a command started and recorded until it exits\n"
  "  -F, --freq=HZ          Samples per second (default 999)\n"
  "  -c, --count=PERIOD     One sample every PERIOD events instead\n"
  "  -e, --event=EVENT      cpu-clock (default), task-clock, cycles,\n"
  "                         instructions\n"
  "  --stack-size=N         User stack bytes per sample (default 8192)\n"
  "  --mmap-pages=N         Data pages per CPU ring (power of two; default:\n"
  "                         half a second of samples at the rate)\n"
  "\n"
  "Sysprof's live unwinder (sysprofd spawns it with perf ring buffers;\n"
  "also when run as sysprof-live-unwinder; make install-live-unwinder):\n"
  "  --stack-size=N         Bytes of user stack the perf events copy\n"
  "  --event-fd=FD          The eventfd that says stop\n"
  "  --perf-fd=FD:CPU       A perf event fd and its CPU (repeated)\n"
  "  --capture-fd=FD        Write the capture there\n"
  "  --kallsyms=FD          Kernel symbols (accepted, not read)\n"
  "\n"
  "As root and as the live unwinder, the process restricts itself once\n"
  "started (no new privileges, two capabilities, read-only file system,\n"
  "a system call filter; --no-sandbox: not, for debugging).\n"
  "\n"
  "Exit status: 0 success, 1 input/output error or damaged input (every\n"
  "valid frame still written), 2 usage error.\n"
  "Every option in full: man stacktrace (doc/stacktrace.1).";

gboolean
st_options_parse (StOptions *opts, int *argc, char ***argv, GError **error)
{
  g_autofree char *format = NULL, *output_format = NULL, *mode = NULL;
  g_autofree char *stats_format = NULL;
  g_autofree char *engine = NULL;
  g_autofree char *priming = NULL, *priming_cap = NULL;
  gboolean version = FALSE;
  /* G_MININT: not given (-1 is a value to refuse, not a default).  */
  int input_fd = G_MININT, output_fd = G_MININT, jobs = G_MININT;
  GOptionEntry entries[] = {
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &opts->input,
      "Read from PATH (file or FIFO; default: stdin, or ./perf.data when "
      "stdin is a terminal)", "PATH" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opts->output,
      "Write to PATH (default: stdout); an existing file is kept as "
      "PATH.old", "PATH" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &opts->force,
      "Replace existing output files without keeping PATH.old", NULL },
    { "input-fd", 0, 0, G_OPTION_ARG_INT, &input_fd,
      "Read from inherited file descriptor N", "N" },
    { "output-fd", 0, 0, G_OPTION_ARG_INT, &output_fd,
      "Write to inherited file descriptor N", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Input format: auto (default), sysprof, perf", "FMT" },
    { "output-format", 0, 0, G_OPTION_ARG_STRING, &output_format,
      "Output format: sysprof or perf (default: by the -o suffix .syscap "
      "or .data, else the input's)", "FMT" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &mode,
      "none, passthru or naive (default)", "MODE" },
    { "engine", 0, 0, G_OPTION_ARG_STRING, &engine,
      "Unwinding engine: fast (default) or dwfl", "ENGINE" },
    { "symfs", 0, 0, G_OPTION_ARG_FILENAME, &opts->symfs,
      "Look for mapped files under DIR", "DIR" },
    { "buildid-dir", 0, 0, G_OPTION_ARG_FILENAME, &opts->buildid_dir,
      "Look for files by build-id in DIR/.build-id", "DIR" },
    { "no-host-files", 0, 0, G_OPTION_ARG_NONE, &opts->no_host_files,
      "Only files under --symfs and --buildid-dir", NULL },
    { "chains", 0, 0, G_OPTION_ARG_FILENAME, &opts->chains,
      "Write one line per unwound sample to PATH", "PATH" },
    { "no-stitch", 0, 0, G_OPTION_ARG_NONE, &opts->no_stitch,
      "Do not complete cut stacks from earlier chains", NULL },
    { "truncate-stack", 0, 0, G_OPTION_ARG_INT64, &opts->truncate_stack,
      "Use at most N bytes of each stack copy", "N" },
    { "no-debuginfod", 0, 0, G_OPTION_ARG_NONE, &opts->no_debuginfod,
      "Do not fetch missing files from debuginfod", NULL },
    { "no-counters", 0, 0, G_OPTION_ARG_NONE, &opts->no_counters,
      "No unwinding counters in the output capture", NULL },
    { "counters-interval", 0, 0, G_OPTION_ARG_INT, &opts->counters_interval,
      "Counters at most every MS ms (default 1000)", "MS" },
    { "stats-file", 0, 0, G_OPTION_ARG_FILENAME, &opts->stats_file,
      "Keep the statistics so far in PATH",
      "PATH" },
    { "stats-format", 0, 0, G_OPTION_ARG_STRING, &stats_format,
      "Stats file format: text (default) or json",
      "FMT" },
    { "priming", 0, 0, G_OPTION_ARG_STRING, &priming,
      "When modules are prepared: sync, drop or defer", "MODE" },
    { "priming-cap", 0, 0, G_OPTION_ARG_STRING, &priming_cap,
      "With defer: hold at most SIZE (default 16M)", "SIZE" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Unwind on N threads (default 1: the main thread only; 0: one per "
      "processor); the output is the same for any N", "N" },
    { "sandbox", 0, 0, G_OPTION_ARG_NONE, &opts->sandbox,
      "Restrict this process once started (default as root)", NULL },
    { "no-sandbox", 0, 0, G_OPTION_ARG_NONE, &opts->no_sandbox,
      "Never restrict it (a debugging aid)", NULL },
    { "summary", 0, 0, G_OPTION_ARG_NONE, &opts->summary,
      "Print the call graph of the unwound samples", NULL },
    { "no-demangle", 0, 0, G_OPTION_ARG_NONE, &opts->no_demangle,
      "Symbol names as mangled in --summary and --chains", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &opts->verbose,
      "More detail in the final statistics", NULL },
    { "debug", 0, 0, G_OPTION_ARG_NONE, &opts->debug,
      "One line per sample not unwound to the root", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opts->quiet,
      "No final statistics", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx =
    g_option_context_new ("[INPUT] - unwind raw user-stack samples into "
                          "callchains");

  opts->input_fd = opts->output_fd = -1;
  opts->format = ST_FILE_FORMAT_AUTO;
  opts->output_format = ST_FILE_FORMAT_AUTO;
  opts->mode = ST_RUN_UNWIND;
  opts->engine = ST_ENGINE_FAST_CFI;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, description);
  if (!g_option_context_parse (ctx, argc, argv, error))
    return FALSE;
  if (version)
    {
      printf ("stacktrace %s\n", PACKAGE_VERSION);
      exit (0);
    }
  /* As perf report: a single argument names the input file.  */
  if (*argc == 2 && opts->input == NULL && input_fd == G_MININT
      && g_strcmp0 ((*argv)[1], "--") != 0)
    opts->input = g_strdup ((*argv)[1]);
  else if (*argc > 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "unexpected argument '%s'%s", (*argv)[*argc > 2 ? 2 : 1],
                   *argc > 2 ? " (only one input file: give the output "
                   "with -o PATH)"
                   : " (the input is already given by -i or --input-fd)");
      return FALSE;
    }
  if ((format && !parse_format (format, &opts->format, TRUE, error))
      || (output_format
          && !parse_format (output_format, &opts->output_format, FALSE, error))
      || (mode && !parse_mode (mode, &opts->mode, error))
      || (stats_format
          && !parse_stats_format (stats_format, &opts->stats_format, error))
      || (engine && !parse_engine (engine, &opts->engine, error))
      || (priming && !parse_priming (priming, &opts->priming, error))
      || (priming_cap && !parse_size ("--priming-cap", priming_cap,
                                      &opts->priming_cap, error)))
    return FALSE;
  opts->priming_auto = priming == NULL;
  if ((input_fd != G_MININT && input_fd < 0)
      || (output_fd != G_MININT && output_fd < 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--%s needs a file descriptor >= 0 (got %d)",
                   input_fd != G_MININT && input_fd < 0 ? "input-fd"
                                                        : "output-fd",
                   input_fd != G_MININT && input_fd < 0 ? input_fd
                                                        : output_fd);
      return FALSE;
    }
  if (input_fd == G_MININT)
    input_fd = -1;
  if (output_fd == G_MININT)
    output_fd = -1;
  if ((opts->input && input_fd >= 0) || (opts->output && output_fd >= 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "give a path or a file descriptor, not both");
      return FALSE;
    }
  if (opts->sandbox && opts->no_sandbox)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "give --sandbox or --no-sandbox, not both");
      return FALSE;
    }
  if (opts->counters_interval < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--counters-interval needs a number of milliseconds > 0");
      return FALSE;
    }
  if (jobs != G_MININT && (jobs < 0 || jobs > ST_STREAM_MAX_JOBS))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--jobs needs a number of threads from 1 to %d, or 0 "
                   "for one per processor (got %d)", ST_STREAM_MAX_JOBS,
                   jobs);
      return FALSE;
    }
  /* One by default: on two cores the workers' hand-offs cost more than
     the fast engine's walks (doc/PERFORMANCE, "--jobs").  */
  opts->jobs = jobs == G_MININT ? 1 : jobs;
  if (opts->truncate_stack < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--truncate-stack needs a size in bytes >= 0");
      return FALSE;
    }
  opts->input_fd = input_fd;
  opts->output_fd = output_fd;
  return TRUE;
}

void
st_options_clear (StOptions *opts)
{
  g_free (opts->input);
  g_free (opts->output);
  g_free (opts->symfs);
  g_free (opts->buildid_dir);
  g_free (opts->chains);
  g_free (opts->stats_file);
}
