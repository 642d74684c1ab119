/* Signals, stats file snapshots and summaries while running.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
#include "summary.h"

static volatile sig_atomic_t stop_signal;     /* the first stop request */
static volatile sig_atomic_t stop_requests;   /* how many so far */
static volatile sig_atomic_t drain_input;     /* see st_live_set_drain */
static volatile sig_atomic_t summary_requested;
static volatile sig_atomic_t wake_fd = -1;    /* see st_live_set_wake_fd */

struct StLive
{
  char *stats_file;
  int stats_fd;              /* -1: written by rename (see write_in_place) */
  StStatsFormat format;
  gboolean verbose;
  StStream *stream;          /* NULL: zeros shown */
  gboolean (*output_gone) (void *data);
  void *output_gone_data;
  int64_t start_us;          /* monotonic */
  int64_t last_write_us;
  gboolean write_failed;     /* warned once */
  gboolean stats_enabled;    /* the input was recognized */
  int64_t drain_start_us;    /* when draining began; 0: not draining */
  uint64_t drain_offset;     /* the input offset then */
  gboolean grace_expired;
};

/* The stop signals this process handles: an inherited SIG_IGN (e.g. a
   background job of a non-interactive shell) is kept.  */
static gboolean handles_signal[NSIG];

static void
restore_default (int sig)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset (&sa.sa_mask);
  sigaction (sig, &sa, NULL);
}

/* The first request stops (or, draining, starts the grace period); the
   next one stops at once (draining) or kills: the handlers go back to
   the default just before the request that is to kill.  Only
   async-signal-safe calls here.  */
static void
on_stop (int sig)
{
  int kill_at = drain_input ? 3 : 2;

  int saved_errno = errno;
  int fd = wake_fd;

  if (stop_signal == 0)
    stop_signal = sig;
  stop_requests++;
  if (fd >= 0)
    {
      uint64_t one = 1;
      (void) !write (fd, &one, sizeof one);
    }
  errno = saved_errno;
  if (stop_requests >= kill_at - 1)
    {
      if (handles_signal[SIGINT])
        restore_default (SIGINT);
      if (handles_signal[SIGTERM])
        restore_default (SIGTERM);
    }
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
  /* No SA_RESTART: a blocked read or open returns, and the request is
     seen.  */
  sa.sa_flags = 0;
  for (int sig = SIGINT; sig != 0; sig = sig == SIGINT ? SIGTERM : 0)
    {
      struct sigaction old;
      if (sigaction (sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      handles_signal[sig] = TRUE;
      sigaction (sig, &sa, NULL);
    }
  sa.sa_handler = on_summary;
  sa.sa_flags = 0;
  sigaction (SIGUSR1, &sa, NULL);
}

void
st_live_set_wake_fd (int fd)
{
  wake_fd = fd;
}

int
st_live_stop_signal (void)
{
  return stop_signal;
}

void
st_live_set_drain (StLive *l, gboolean drain)
{
  (void) l;
  drain_input = drain;
  /* A request that came before this is a stop in either case.  */
}

gboolean
st_live_drained (const StLive *l, uint64_t *from_offset)
{
  if (l->drain_start_us == 0)
    return FALSE;
  *from_offset = l->drain_offset;
  return TRUE;
}

gboolean
st_live_grace_expired (const StLive *l)
{
  return l->grace_expired;
}

/* The input read so far (0 before the run).  */
static uint64_t
input_offset (const StLive *l)
{
  return l->stream != NULL ? st_stream_get_input_offset (l->stream) : 0;
}

/* Whether the run goes on after a stop request: only while draining,
   within the grace period, and until a second request.  */
static gboolean
keep_running_after_stop (StLive *l)
{
  int64_t now = g_get_monotonic_time ();

  if (!drain_input || stop_requests >= 2 || l->grace_expired)
    return FALSE;
  if (l->drain_start_us == 0)
    {
      l->drain_start_us = now;
      l->drain_offset = input_offset (l);
      fprintf (stderr, "stacktrace: SIG%s at input offset %" G_GUINT64_FORMAT
               ": reading the input to its end (at most %d s; send it again "
               "to stop now)\n", sigabbrev_np (stop_signal), l->drain_offset,
               ST_LIVE_GRACE_MS / 1000);
    }
  if (now - l->drain_start_us >= (int64_t) ST_LIVE_GRACE_MS * 1000)
    {
      l->grace_expired = TRUE;
      return FALSE;
    }
  return TRUE;
}

/* The statistics so far; NULL (zeros) before the run got going.  */
static StStatistics *
snapshot (const StLive *l)
{
  StStatistics *stats = NULL;

  if (l->stream != NULL && st_stream_get_statistics (l->stream, &stats) != ST_OK)
    stats = NULL;
  return stats;
}

void
st_live_print_summary (const StLive *l, FILE *out, gboolean verbose,
                       gboolean so_far)
{
  StStatistics *stats = snapshot (l);

  st_summary_print (stats, out, verbose, stats != NULL, so_far);
  st_statistics_free (stats);
}

void
st_live_print_call_graph (const StLive *l, FILE *out)
{
  StCallGraph *graph = NULL;

  if (l->stream == NULL || st_stream_get_call_graph (l->stream, &graph) != ST_OK)
    return;
  st_summary_print_call_graph (graph, out, 1.0);
  st_call_graph_free (graph);
}

/* TEXT over the stats file through the descriptor opened before the
   sandbox: one pwrite from the start, then the file cut to its length.
   A reader that reads during the rewrite may see a mix of the two
   snapshots (rare: it is one write of a few KiB).  */
static gboolean
write_in_place (int fd, const char *text, GError **error)
{
  size_t len = strlen (text), done = 0;

  while (done < len)
    {
      ssize_t n = pwrite (fd, text + done, len - done, (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        goto fail;
      done += (size_t) n;
    }
  if (ftruncate (fd, (off_t) len) == 0)
    return TRUE;
fail:
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
               "%s", g_strerror (errno));
  return FALSE;
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
  };

  l->last_write_us = now;
  if (l->stats_file == NULL || !l->stats_enabled)
    return;

  StStatistics *stats = snapshot (l);
  g_autofree char *text = st_stats_file_text (stats, &run, l->format);
  st_statistics_free (stats);
  /* A temporary file in the same directory, renamed over the old one: a
     reader sees the previous snapshot or this one, never a mix.  In the
     sandbox, which creates and renames nothing, in place.  */
  if (l->stats_fd >= 0 ? !write_in_place (l->stats_fd, text, &error)
      : !g_file_set_contents_full (l->stats_file, text, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0600,
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
  l->stats_fd = -1;
  l->format = format;
  l->verbose = verbose;
  l->start_us = g_get_monotonic_time ();
  return l;
}

void
st_live_start_stats (StLive *l)
{
  l->stats_enabled = TRUE;
  write_snapshot (l, "running");
}

void
st_live_free (StLive *l)
{
  if (l == NULL)
    return;
  if (l->stats_fd >= 0)
    close (l->stats_fd);
  g_free (l->stats_file);
  g_free (l);
}

gboolean
st_live_keep_stats_file (StLive *l, GError **error)
{
  if (l->stats_file == NULL || l->stats_fd >= 0)
    return TRUE;
  l->stats_fd = open (l->stats_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (l->stats_fd >= 0)
    return TRUE;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
               "cannot open the stats file %s: %s; no snapshots",
               l->stats_file, g_strerror (errno));
  g_clear_pointer (&l->stats_file, g_free);
  return FALSE;
}

void
st_live_attach (StLive *l, StStream *stream)
{
  l->stream = stream;
}

void
st_live_set_output_gone (StLive *l, gboolean (*gone) (void *data),
                         void *data)
{
  l->output_gone = gone;
  l->output_gone_data = data;
}

gboolean
st_live_check_output (void *user)
{
  StLive *l = user;

  if (l->output_gone != NULL && l->stream != NULL
      && l->output_gone (l->output_gone_data))
    {
      st_stream_abandon_output (l->stream);
      return FALSE;
    }
  return st_live_check (l);
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
               input_offset (l));
      st_live_print_summary (l, stderr, l->verbose, TRUE);
    }
  if (l->stats_file != NULL
      && g_get_monotonic_time () - l->last_write_us
         >= ST_LIVE_STATS_PERIOD_MS * 1000)
    write_snapshot (l, "running");
  return stop_signal == 0 || keep_running_after_stop (l);
}

void
st_live_finish (StLive *l, const char *state)
{
  write_snapshot (l, state);
}
