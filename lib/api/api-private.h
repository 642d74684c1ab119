/* Between the public API's files (lib/api) only: the public types
   to and from the library's own.  */
#ifndef ST_API_PRIVATE_H
#define ST_API_PRIVATE_H

#include <glib.h>

#include <stacktrace-1/stacktrace.h>

#include "model/event.h"
#include "model/debuginfod-fetch.h"
#include "report/callgraph-summary.h"
#include "stats.h"

/* The public counters of STATS (api/statistics.c).  */
void st_api_counters (const StStats *stats, StCounters *out);
/* A snapshot of STATS, with debuginfod's counts (NULL: none) and the
   input read so far.  */
StStatistics *st_api_statistics_new (const StStats *stats,
                                     const StDebuginfodStats *debuginfod,
                                     uint64_t input_bytes);
/* A copy of G.  */
StCallGraph *st_api_call_graph_new (const StCallgraph *g);
StCallGraph *st_api_call_graph_ref (StCallGraph *g);
/* One more owner of ST (st_statistics_free ends each).  */
StStatistics *st_api_statistics_ref (StStatistics *st);

/* The library's format of a public one.  */
StFormat st_api_format (StFileFormat format);
StFileFormat st_api_file_format (StFormat format);

/* A public record of EV (pointers into EV's memory).  */
void st_api_record (const StEvent *ev, StRecord *out);
/* EV of a public record; FALSE for a kind the model cannot use.  */
gboolean st_api_event (const StRecord *rec, StEvent *ev);

/* *SLOT = a copy of MESSAGE (the old one freed).  */
void st_api_set_error (char **slot, const char *message);

#endif /* ST_API_PRIVATE_H */
