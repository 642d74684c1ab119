/* Signals, stats file snapshots and summaries while running.  */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "live.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t summary_requested;

struct StLive
{
  char *stats_file;
  StStatsFormat format;
  gboolean verbose;
  StStats *empty;            /* shown until a pipeline is attached */
  StPipeline *pipeline;
  StReader *reader;
  int64_t start_us;          /* monotonic */
  int64_t last_write_us;
  gboolean write_failed;     /* warned once */
};

static void
on_stop (int sig)
{
  stop_signal = sig;
}

static void
on_summary (int sig)
{
  summary_requested = 1;
}

void
st_live_install_signals (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_stop;
  /* The first request stops cleanly; should that hang (e.g. a reader
     that never reads), the second one kills.  */
  sa.sa_flags = SA_RESETHAND;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sa.sa_handler = on_summary;
  sa.sa_flags = 0;
  sigaction (SIGUSR1, &sa, NULL);
}

int
st_live_stop_signal (void)
{
  return stop_signal;
}

static const StStats *
current_stats (const StLive *l)
{
  return l->pipeline != NULL ? st_pipeline_stats (l->pipeline) : l->empty;
}

static void
write_snapshot (StLive *l, const char *state)
{
  GError *error = NULL;
  int64_t now = g_get_monotonic_time ();
  StStatsRun run = {
    .state = state,
    .wall_time_ms = g_get_real_time () / 1000,
    .uptime_ms = (now - l->start_us) / 1000,
    .input_bytes = l->reader != NULL ? st_reader_offset (l->reader) : 0,
  };

  l->last_write_us = now;
  if (l->stats_file == NULL)
    return;
  if (l->pipeline != NULL)
    st_debuginfod_get_stats (st_pipeline_debuginfod (l->pipeline),
                             &run.debuginfod);

  g_autofree char *text = st_stats_export (current_stats (l), &run,
                                           l->format);
  /* A temporary file in the same directory, renamed over the old one: a
     reader sees the previous snapshot or this one, never a mix.  */
  if (!g_file_set_contents_full (l->stats_file, text, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                 &error))
    {
      if (!l->write_failed)
        fprintf (stderr, "stacktrace: warning: cannot write the stats file: "
                 "%s (will keep trying)\n", error->message);
      l->write_failed = TRUE;
      g_error_free (error);
    }
  else
    l->write_failed = FALSE;
}

StLive *
st_live_new (const char *stats_file, StStatsFormat format, gboolean verbose)
{
  StLive *l = g_new0 (StLive, 1);

  l->stats_file = g_strdup (stats_file);
  l->format = format;
  l->verbose = verbose;
  l->empty = st_stats_new ();
  l->start_us = g_get_monotonic_time ();
  write_snapshot (l, "running");
  return l;
}

void
st_live_free (StLive *l)
{
  if (l == NULL)
    return;
  st_stats_free (l->empty);
  g_free (l->stats_file);
  g_free (l);
}

void
st_live_attach (StLive *l, StPipeline *pipeline, StReader *reader)
{
  l->pipeline = pipeline;
  l->reader = reader;
}

gboolean
st_live_check (void *user)
{
  StLive *l = user;

  if (summary_requested)
    {
      summary_requested = 0;
      fprintf (stderr, "stacktrace: statistics so far (%.1f s, input offset %"
               G_GUINT64_FORMAT "):\n",
               (double) (g_get_monotonic_time () - l->start_us) / 1e6,
               l->reader != NULL ? st_reader_offset (l->reader) : 0);
      st_stats_print (current_stats (l), stderr, l->verbose);
    }
  if (l->stats_file != NULL
      && g_get_monotonic_time () - l->last_write_us
         >= ST_LIVE_STATS_PERIOD_MS * 1000)
    write_snapshot (l, "running");
  return stop_signal == 0;
}

void
st_live_finish (StLive *l, const char *state)
{
  write_snapshot (l, state);
}
