/* The command's side of running live, e.g. spawned by a recorder:
   signals, --stats-file snapshots, the summary on SIGUSR1.  Everything
   happens on the main thread, from the stream's check function, called
   between frames and while the input stalls, so the statistics are
   never read while they change.  */
#ifndef ST_LIVE_H
#define ST_LIVE_H

#include <glib.h>
#include <stdio.h>

#include <stacktrace-1/stacktrace.h>

#include "stats-file.h"

/* How often the check function runs while the input stalls, and how old
   the stats file may get.  */
#define ST_LIVE_CHECK_MS 100
#define ST_LIVE_STATS_PERIOD_MS 900
/* After a stop request, how long a pipe, FIFO or socket input is still
   read while it has not ended (see st_live_set_drain).  */
#define ST_LIVE_GRACE_MS 10000

typedef struct StLive StLive;

/* STATS_FILE may be NULL (no snapshots).  Nothing is written before
   st_live_start_stats.  */
StLive *st_live_new (const char *stats_file, StStatsFormat format,
                     gboolean verbose);
/* Writes the stats file from now on (the first snapshot at once): once
   the input is recognized, as no output is created before.  */
void st_live_start_stats (StLive *l);
void st_live_free (StLive *live);

/* SIGINT and SIGTERM ask to stop after the current frame (a second one
   kills, as usual); SIGUSR1 asks for the summary.  Installed without
   SA_RESTART, so a blocked read or open returns and the request is seen.
   A stop signal inherited as ignored (SIG_IGN) stays ignored.  */
void st_live_install_signals (void);

/* DRAIN: the input is a pipe, FIFO or socket whose writer got the same
   Ctrl-C and may still be flushing: the first stop request then lets the
   input be read to its end, for at most ST_LIVE_GRACE_MS; a second one
   stops at once, a third kills.  */
void st_live_set_drain (StLive *live, gboolean drain);
/* Whether a stop request was turned into reading to the end, and the
   input offset when it came; whether the grace period ran out.  */
gboolean st_live_drained (const StLive *live, uint64_t *from_offset);
gboolean st_live_grace_expired (const StLive *live);

/* From now on the stats file is rewritten in place through a
   descriptor opened here (no temporary file created and renamed): for
   the sandbox, which allows neither.  FALSE with ERROR set when it
   cannot be opened: then no more snapshots are written.  */
gboolean st_live_keep_stats_file (StLive *live, GError **error);

/* What the snapshots and summaries describe from now on, just before
   STREAM runs (before, they show zeros).  */
void st_live_attach (StLive *live, StStream *stream);

/* The check function (st_stream_set_check_func): prints a requested
   summary, refreshes the stats file when due, and returns FALSE once
   SIGINT or SIGTERM asks to stop now.  */
gboolean st_live_check (void *live);

/* GONE (DATA) tells when the output's reader has gone for good (a
   recorder that stopped reading at its stop).  */
void st_live_set_output_gone (StLive *live, gboolean (*gone) (void *data),
                              void *data);
/* st_live_check, and FALSE too once GONE says so, after abandoning the
   stream's output (nothing held is unwound any more).  A check
   function of its own: the plain one, called at every frame, does not
   pay for the question.  */
gboolean st_live_check_output (void *live);

/* The summary of the statistics (VERBOSE: -v's), SO_FAR while the run
   goes on, and the call graph (--summary), to OUT.  */
void st_live_print_summary (const StLive *live, FILE *out, gboolean verbose,
                            gboolean so_far);
void st_live_print_call_graph (const StLive *live, FILE *out);

/* An eventfd (or -1: none) that every stop request writes 1 to, from
   the signal handler: a thread that polls it (a ring reader) wakes at
   the request.  */
void st_live_set_wake_fd (int fd);

/* The signal that asked to stop, or 0.  */
int st_live_stop_signal (void);

/* The last snapshot, with STATE (finished, stopped or failed).  */
void st_live_finish (StLive *live, const char *state);

#endif /* ST_LIVE_H */
