/* The command's side of running live, e.g. spawned by a recorder:
   signals, --stats-file snapshots, the summary on SIGUSR1.  Everything
   happens on the main thread, from the check function the reader and the
   pipeline call between frames and while the input stalls, so the
   statistics are never read while they change.  */
#ifndef ST_LIVE_H
#define ST_LIVE_H

#include <glib.h>

#include "format/reader.h"
#include "pipeline.h"
#include "stats-export.h"

/* How often the check function runs while the input stalls, and how old
   the stats file may get.  */
#define ST_LIVE_CHECK_MS 100
#define ST_LIVE_STATS_PERIOD_MS 900

typedef struct StLive StLive;

/* STATS_FILE may be NULL (no snapshots).  Writes a first snapshot.  */
StLive *st_live_new (const char *stats_file, StStatsFormat format,
                     gboolean verbose);
void st_live_free (StLive *live);

/* SIGINT and SIGTERM ask to stop after the current frame (a second one
   kills, as usual); SIGUSR1 asks for the summary.  Installed without
   SA_RESTART, so a blocked read returns and the request is seen.  */
void st_live_install_signals (void);

/* What the snapshots and summaries describe from now on (before, they
   show zeros).  */
void st_live_attach (StLive *live, StPipeline *pipeline, StReader *reader);

/* The check function (StPipelineOptions.check, StInputWaitFunc): prints
   a requested summary, refreshes the stats file when due, and returns
   FALSE once SIGINT or SIGTERM arrived.  */
gboolean st_live_check (void *live);

/* The signal that asked to stop, or 0.  */
int st_live_stop_signal (void);

/* The last snapshot, with STATE (finished, stopped or failed).  */
void st_live_finish (StLive *live, const char *state);

#endif /* ST_LIVE_H */
