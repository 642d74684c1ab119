/* stacktrace in the place of Sysprof's live unwinder
   (/usr/libexec/sysprof-live-unwinder): its command line (--stack-size,
   --event-fd, --perf-fd=FD:CPU, --capture-fd, --kallsyms), the perf
   rings as input (lib/live/ring-source.h), a capture on the capture fd
   as output.  The wiring only; the rings, the stream and the /proc walk
   are lib/live's.  */
#ifndef ST_LIVE_UNWINDER_H
#define ST_LIVE_UNWINDER_H

#include <glib.h>
#include <stdio.h>

#include "options.h"

typedef struct StLiveUnwinder StLiveUnwinder;

/* Whether ARGV is the live unwinder's: the program is called
   sysprof-live-unwinder, or one of its options is given.  */
gboolean st_live_unwinder_wanted (int argc, char **argv);

/* Takes the live unwinder's options out of ARGV (the rest are
   stacktrace's own).  NULL with ERROR set on a usage error.  */
StLiveUnwinder *st_live_unwinder_parse (int *argc, char ***argv,
                                        GError **error);

/* Maps the rings and walks /proc: what needs the privileges the
   recorder started us with (then the sandbox may be entered).  FALSE
   with ERROR set.  */
gboolean st_live_unwinder_open (StLiveUnwinder *lu, const StOptions *opts,
                                GError **error);

/* Starts the ring reader and the pacer (the first threads) and points
   OPTS at the ring stream (input) and the capture fd (output), with
   what the live unwinder writes: unwound samples, counters.  FALSE with
   ERROR set.  */
gboolean st_live_unwinder_start (StLiveUnwinder *lu, StOptions *opts,
                                  gboolean (*stopping) (void),
                                  GError **error);

/* Sysprof's mount tables, first thing in the capture: whole capture
   frames (FILE_CHUNK), *LEN bytes, or NULL.  */
const void *st_live_unwinder_mounts (StLiveUnwinder *lu, size_t *len);

/* Whether the recorder has stopped reading the capture for good: it
   went away, or took nothing within the stop's grace (the pacer gave
   up).  For st_live_set_output_gone.  */
gboolean st_live_unwinder_output_gone (void *lu);

/* Stops the ring reader (after the stream's reader is freed) and, unless
   QUIET, prints what the rings gave to OUT.  */
void st_live_unwinder_finish (StLiveUnwinder *lu, FILE *out, gboolean quiet);
void st_live_unwinder_free (StLiveUnwinder *lu);

#endif /* ST_LIVE_UNWINDER_H */
