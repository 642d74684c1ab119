/* The statistics as a machine-readable snapshot, for a recorder or a
   monitor to read while stacktrace runs: key=value lines or one JSON
   object.  The keys are stable; doc/FORMATS documents them.  */
#ifndef ST_STATS_EXPORT_H
#define ST_STATS_EXPORT_H

#include <glib.h>
#include <stdint.h>

#include "model/debuginfod-fetch.h"
#include "stats.h"

/* Version of the key set; raised only when a key changes meaning or is
   removed (new keys may appear without a new version).  */
#define ST_STATS_EXPORT_VERSION 1

/* Processes listed as top offenders.  */
#define ST_STATS_TOP_OFFENDERS 10
/* Unusable files listed (files.unusable_list), most samples lost first.  */
#define ST_STATS_UNUSABLE_FILES 10

typedef enum
{
  ST_STATS_FORMAT_TEXT,   /* KEY=VALUE, one per line */
  ST_STATS_FORMAT_JSON,
} StStatsFormat;

/* What the statistics do not know about the run.  */
typedef struct
{
  const char *state;        /* running, finished, stopped or failed */
  int64_t wall_time_ms;     /* when the snapshot was taken, Unix time */
  int64_t uptime_ms;        /* since stacktrace started */
  uint64_t input_bytes;     /* input consumed so far */
  StDebuginfodStats debuginfod;
} StStatsRun;

/* The snapshot as a string (free it with g_free), ending in a newline.  */
char *st_stats_export (const StStats *stats, const StStatsRun *run,
                       StStatsFormat format);

#endif /* ST_STATS_EXPORT_H */
