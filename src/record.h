/* stacktrace --record: the perf events opened by stacktrace itself, as
   `perf record --call-graph=dwarf` would, and unwound as they come.
   The command line (-a, -p PID[,PID], -- CMD ARGS, -F, -c, -e,
   --stack-size, --mmap-pages), the targets (one event per online CPU,
   for the whole system or for the processes followed, with inherit),
   the command we start and wait for, and the stop.  The attribute and
   perf_event_open are lib/live/perf-events.h's; the rings, the walk of
   /proc and the stream the ordinary pipeline reads are the live
   unwinder's (lib/live/ring-source.h, proc-scan.h).  */
#ifndef ST_RECORD_H
#define ST_RECORD_H

#include <glib.h>
#include <stdio.h>

#include "options.h"

typedef struct StRecordRun StRecordRun;

/* Whether ARGV asks for --record (before a "--").  */
gboolean st_record_wanted (int argc, char **argv);

/* Takes --record's options and the command after "--" out of ARGV (the
   rest are stacktrace's own).  NULL with ERROR set on a usage error.  */
StRecordRun *st_record_parse (int *argc, char ***argv, GError **error);

/* Opens the events, maps their rings, walks /proc, starts the ring
   reader and the command, and points OPTS at the stream (input) with
   the output format --record writes by default (perf.data, or a
   capture for a .syscap name).  STOPPING says when a signal asked to
   stop.  BEFORE_THREADS (may be NULL) is called with the command's pid
   (0: none) and DATA once everything is open and before the first
   thread starts (the sandbox); FALSE from it (having said why) ends the
   start.  FALSE with ERROR set (G_OPTION_ERROR for a usage error).  */
gboolean st_record_start (StRecordRun *rec, StOptions *opts,
                          gboolean (*stopping) (void),
                          gboolean (*before_threads) (int child_pid,
                                                      void *data),
                          void *data, GError **error);

/* The mount tables of the walk of /proc (-a), first in a capture:
   whole capture frames, *LEN bytes, or NULL.  */
const void *st_record_mounts (StRecordRun *rec, size_t *len);

/* Stops the ring reader (after the stream's reader is freed), ends and
   waits for the command, and prints what the recording gave to OUT:
   the kernel's losses always (they do not change the exit status, as
   with perf record), the rest unless QUIET.  */
void st_record_finish (StRecordRun *rec, FILE *out, gboolean quiet);
void st_record_free (StRecordRun *rec);

#endif /* ST_RECORD_H */
