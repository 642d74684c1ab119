/* The --stats-file snapshot, for a recorder or a monitor to read while
   stacktrace runs: key=value lines or one JSON object, made of the
   library's statistics (StStatistics).  The keys are stable;
   doc/FORMATS documents them.  */
#ifndef ST_STATS_FILE_H
#define ST_STATS_FILE_H

#include <glib.h>
#include <stdint.h>

#include <stacktrace-1/stacktrace.h>

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
} StStatsRun;

/* The snapshot as a string (free it with g_free), ending in a newline.  */
char *st_stats_file_text (const StStatistics *stats, const StStatsRun *run,
                          StStatsFormat format);

#endif /* ST_STATS_FILE_H */
