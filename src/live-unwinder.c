/* The live unwinder's command line and its wiring; see live-unwinder.h.
   The options are Sysprof 48's, spelled as sysprofd passes them
   (--perf-fd=4:0), taken out of argv before stacktrace's own options
   are parsed, so -v or --stats-file still work beside them.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <stacktrace-1/stacktrace.h>

#include "command-error.h"
#include "live-unwinder.h"

#define PROGRAM_NAME "sysprof-live-unwinder"

struct StLiveUnwinder
{
  int stack_size;
  int event_fd;
  int capture_fd;
  int kallsyms_fd;
  GArray *perf_fds;            /* StLiveRing */
  StLiveSource *source;
  StLivePacer *pacer;          /* between the writer and --capture-fd */
  double scan_ms;
};

static const char *const live_options[] = {
  "--stack-size", "--event-fd", "--perf-fd", "--capture-fd", "--kallsyms",
};

gboolean
st_live_unwinder_wanted (int argc, char **argv)
{
  g_autofree char *base = argc > 0 ? g_path_get_basename (argv[0]) : NULL;

  if (base != NULL && strcmp (base, PROGRAM_NAME) == 0)
    return TRUE;
  for (int i = 1; i < argc; i++)
    for (guint j = 0; j < G_N_ELEMENTS (live_options); j++)
      {
        size_t n = strlen (live_options[j]);
        if (strncmp (argv[i], live_options[j], n) == 0
            && (argv[i][n] == '=' || argv[i][n] == '\0'))
          return TRUE;
      }
  return FALSE;
}

static gboolean
parse_perf_fd (const char *name, const char *value, gpointer data,
               GError **error)
{
  StLiveUnwinder *lu = data;
  char *end;
  long fd, cpu;
  StLiveRing r;

  (void) name;
  errno = 0;
  fd = strtol (value, &end, 10);
  if (errno != 0 || end == value || *end != ':' || fd < 0 || fd > G_MAXINT)
    goto bad;
  value = end + 1;
  cpu = strtol (value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || cpu < 0 || cpu > G_MAXINT)
    goto bad;
  r.fd = (int) fd;
  r.cpu = (int) cpu;
  g_array_append_val (lu->perf_fds, r);
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--perf-fd needs FD:CPU (got '%s')", value);
  return FALSE;
}

/* An inherited descriptor option: open, and not one of 0-2.  */
static gboolean
check_fd (const char *option, int fd, gboolean needed, GError **error)
{
  if (fd == -1 && !needed)
    return TRUE;
  if (fd == -1)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                 "%s=FD is needed", option);
  else if (fd < 0 || fcntl (fd, F_GETFD) < 0)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "%s=%d: not an open file descriptor", option, fd);
  else
    return TRUE;
  return FALSE;
}

StLiveUnwinder *
st_live_unwinder_parse (int *argc, char ***argv, GError **error)
{
  StLiveUnwinder *lu = g_new0 (StLiveUnwinder, 1);
  GOptionEntry entries[] = {
    { "stack-size", 0, 0, G_OPTION_ARG_INT, &lu->stack_size,
      "Bytes of user stack the perf events copy", "N" },
    { "event-fd", 0, 0, G_OPTION_ARG_INT, &lu->event_fd,
      "The eventfd that says stop", "FD" },
    { "perf-fd", 0, 0, G_OPTION_ARG_CALLBACK, (void *) parse_perf_fd,
      "A perf event fd and its CPU (repeated)", "FD:CPU" },
    { "capture-fd", 0, 0, G_OPTION_ARG_INT, &lu->capture_fd,
      "Write the capture there", "FD" },
    { "kallsyms", 0, 0, G_OPTION_ARG_INT, &lu->kallsyms_fd,
      "Kernel symbols (accepted, not read)", "FD" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  GOptionGroup *group = g_option_group_new ("live-unwinder",
                                            "Sysprof live unwinder options",
                                            "Show the live unwinder options",
                                            lu, NULL);

  lu->event_fd = lu->capture_fd = lu->kallsyms_fd = -1;
  lu->perf_fds = g_array_new (FALSE, FALSE, sizeof (StLiveRing));
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_ignore_unknown_options (ctx, TRUE);
  g_option_context_set_help_enabled (ctx, FALSE);
  if (!g_option_context_parse (ctx, argc, argv, error))
    goto fail;
  if (lu->stack_size <= 0 || lu->stack_size > ST_LIVE_STACK_SIZE_MAX)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--stack-size needs a size from 1 to %d bytes (got %d)",
                   ST_LIVE_STACK_SIZE_MAX, lu->stack_size);
      goto fail;
    }
  if (!check_fd ("--capture-fd", lu->capture_fd, TRUE, error)
      || !check_fd ("--event-fd", lu->event_fd, FALSE, error))
    goto fail;
  for (guint i = 0; i < lu->perf_fds->len; i++)
    {
      const StLiveRing *r = &g_array_index (lu->perf_fds, StLiveRing, i);
      if (!check_fd ("--perf-fd", r->fd, TRUE, error))
        goto fail;
    }
  return lu;

fail:
  st_live_unwinder_free (lu);
  return NULL;
}

static int64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

gboolean
st_live_unwinder_open (StLiveUnwinder *lu, const StOptions *opts,
                       GError **error)
{
  int64_t now;

  if (opts->input != NULL || opts->output != NULL || opts->input_fd >= 0
      || opts->output_fd >= 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "the live unwinder reads --perf-fd and writes "
                   "--capture-fd: no other input or output");
      return FALSE;
    }
  /* The rings first: the recorder enables the events as soon as we
     run, and nothing is read before they are mapped.  */
  lu->source = st_live_source_new ();
  if (st_live_source_open (lu->source,
                           (const StLiveRing *) lu->perf_fds->data,
                           lu->perf_fds->len, lu->event_fd,
                           (uint32_t) lu->stack_size) != ST_OK)
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_FAILED,
                           st_live_source_error (lu->source));
      /* No source: nothing to count at the finish.  */
      g_clear_pointer (&lu->source, st_live_source_free);
      return FALSE;
    }
  now = monotonic_ns ();
  /* The processes as they are at the walk, timed before every record
     of the rings: later, they would follow the samples the rings hold
     from before the walk (of a workload that exec'd before the rings
     were mapped and ran on, say), unwound without their mappings.  */
  st_live_source_scan_all (lu->source);
  lu->scan_ms = (double) (monotonic_ns () - now) / 1e6;
  return TRUE;
}

gboolean
st_live_unwinder_start (StLiveUnwinder *lu, StOptions *opts,
                        gboolean (*stopping) (void), GError **error)
{
  int stream_fd;

  /* Sysprof 48 reads for ms after its stop: a backlog (a loaded
     machine) is unwound for as long as the budget, the rest counted.  */
  if (st_live_source_set_stop_budget (lu->source, ST_LIVE_STOP_BUDGET_MS)
      != ST_OK
      || st_live_source_start (lu->source, stopping, &stream_fd) != ST_OK)
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_FAILED,
                           st_live_source_error (lu->source));
      return FALSE;
    }
  /* The stream comes through an in-process queue; the fd is polled.  */
  opts->input_fd = stream_fd;
  opts->input_read = st_live_source_read;
  opts->input_read_data = lu->source;
  opts->format = ST_FILE_FORMAT_PERF;
  /* One frame per wake-up of Sysprof's reader: capture-pacer.h.  Its
     thread inherits our timer slack: its wait steps are tens of
     microseconds, so it is made with none to speak of.  */
  int slack = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  StLivePacer *pacer = st_live_pacer_new ();
  int rc = st_live_pacer_start (pacer, lu->capture_fd, lu->event_fd);
  if (slack > 0)
    prctl (PR_SET_TIMERSLACK, (unsigned long) slack, 0, 0, 0);
  if (rc != ST_OK)
    {
      g_set_error_literal (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_FAILED,
                           st_live_pacer_error (pacer));
      st_live_pacer_free (pacer);
      return FALSE;
    }
  lu->pacer = pacer;
  opts->output_fd = st_live_pacer_input_fd (lu->pacer);
  opts->output_format = ST_FILE_FORMAT_CAPTURE;
  opts->mode = ST_RUN_UNWIND;
  opts->no_counters = FALSE;
  return TRUE;
}

const void *
st_live_unwinder_mounts (StLiveUnwinder *lu, size_t *len)
{
  if (lu->source == NULL)
    {
      *len = 0;
      return NULL;
    }
  return st_live_source_mounts (lu->source, len);
}

gboolean
st_live_unwinder_output_gone (void *data)
{
  StLiveUnwinder *lu = data;

  return lu->pacer != NULL && st_live_pacer_reader_gone (lu->pacer);
}

void
st_live_unwinder_finish (StLiveUnwinder *lu, FILE *out, gboolean quiet)
{
  StLiveCounts c = { 0 };
  StLivePacerCounts pc = { 0 };
  const char *problem;

  if (lu->pacer != NULL)
    {
      st_live_pacer_finish (lu->pacer);
      st_live_pacer_get_counts (lu->pacer, &pc);
    }
  if (lu->source == NULL)
    return;
  st_live_source_stop (lu->source);
  st_live_source_get_counts (lu->source, &c);
  problem = st_live_source_first_problem (lu->source);
  if (problem != NULL)
    fprintf (out, "stacktrace: %" G_GUINT64_FORMAT " ring record(s) did not "
             "fit and %" G_GUINT64_FORMAT " pass(es) were given up (%"
             G_GUINT64_FORMAT " bytes); the first: %s\n", c.misfits,
             c.ring_problems, c.dropped_bytes, problem);
  /* Said even with -q: samples the capture does not have.  */
  if (c.stop_dropped > 0)
    fprintf (out, "stacktrace: %" G_GUINT64_FORMAT " sample(s) still to "
             "unwind %d ms after the stop were dropped (the capture says "
             "so in a LOST record's LOG frame)\n", c.stop_dropped,
             ST_LIVE_STOP_BUDGET_MS);
  if (quiet)
    return;
  fprintf (out, "stacktrace: perf rings: %u x %u pages; %u processes, %u "
           "mappings and %u mount tables at start (%.1f ms); %"
           G_GUINT64_FORMAT " records (%" G_GUINT64_FORMAT " samples) in %"
           G_GUINT64_FORMAT " passes, at most %.1f MiB waiting for the "
           "unwinder; %" G_GUINT64_FORMAT " LOST records for %"
           G_GUINT64_FORMAT " events; samples cut to their filled stack: "
           "%.1f of %.1f MiB passed on\n", lu->perf_fds->len,
           c.ring_pages, c.scan_processes, c.scan_maps,
           c.scan_mount_files, lu->scan_ms, c.records, c.samples,
           c.passes, (double) c.queue_peak / (1 << 20), c.lost_records,
           c.lost_events, (double) c.stack_bytes_kept / (1 << 20),
           (double) c.stack_bytes / (1 << 20));
  if (c.late_scans > 0)
    fprintf (out, "stacktrace: %" G_GUINT64_FORMAT " process(es) that "
             "started before the events were enabled read from /proc at "
             "their first sample or mapping (%" G_GUINT64_FORMAT " mappings; %"
             G_GUINT64_FORMAT " of them not what was in their pid at the "
             "start: another process, or an exec)\n", c.late_scans,
             c.late_maps, c.late_replaced);
  if (lu->pacer != NULL)
    fprintf (out, "stacktrace: capture (%s): %" G_GUINT64_FORMAT " frames "
             "in %" G_GUINT64_FORMAT " writes (%" G_GUINT64_FORMAT " of "
             "several frames); the reader was behind %" G_GUINT64_FORMAT
             " time(s), held at most %" G_GUINT64_FORMAT " frame(s) and "
             "about %" G_GUINT64_FORMAT " at the end\n",
             st_live_pacer_mode_name (pc.mode), pc.frames, pc.writes,
             pc.bulk_writes, pc.waits_given_up, pc.backlog_max,
             pc.backlog_end);
  if (pc.abandoned_bytes > 0)
    fprintf (out, "stacktrace: the recorder took nothing within %d ms of "
             "its stop: the rest of the capture was not written, and what "
             "was still to unwind was dropped\n",
             ST_LIVE_PACER_STOP_GRACE_MS);
}

void
st_live_unwinder_free (StLiveUnwinder *lu)
{
  if (lu == NULL)
    return;
  st_live_pacer_free (lu->pacer);
  st_live_source_free (lu->source);
  g_array_free (lu->perf_fds, TRUE);
  g_free (lu);
}
