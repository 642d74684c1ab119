/* When the unwinding counters go into the output.

   A set of counters (StProgressCounters, format/writer.h) says how many
   raw-stack samples were written so far and how their unwinding went; a
   live reader (Sysprof) draws them over time.  So a set goes out among
   the events as they are written, but not with every sample:

   - none before the first sample is written (a stream without raw
     stacks gets no counters);
   - at most one set per period of sample time (the newest event time
     written), and only when the counts changed since the last set;
   - never while the output is inside a sample (a capture's kernel part
     held for the STACK_USER frame that may follow);
   - at the end, the final counts, unless the last set already has them.

   The counts are those of the samples written, not processed: the
   processing runs ahead of the writing (the reorder window), and a set
   at time T must count what comes before it in the output.

   The schedule only decides; writing a set is its owner's function
   (StCountersWriteFunc), which may refuse (a format without counters):
   the set is then asked for again at the next event.  */
#ifndef ST_COUNTER_SCHEDULE_H
#define ST_COUNTER_SCHEDULE_H

#include <glib.h>
#include <stdint.h>

#include "format/writer.h"
#include "unwind/unwind-result.h"

/* The period by default: one set per second of sample time.  */
#define ST_COUNTER_SCHEDULE_DEFAULT_MS 1000

/* Writes COUNTERS at TIME (ns); FALSE when nothing was written.  */
typedef gboolean (*StCountersWriteFunc) (int64_t time,
                                         const StProgressCounters *counters,
                                         void *user);

typedef struct StCounterSchedule StCounterSchedule;

/* A set at most every INTERVAL_MS of sample time (0: the default),
   written by WRITE with USER.  */
StCounterSchedule *st_counter_schedule_new (unsigned interval_ms,
                                            StCountersWriteFunc write,
                                            void *user);
void st_counter_schedule_free (StCounterSchedule *s);

/* A raw-stack sample was written, unwound with STATUS; STITCHED: its
   chain was completed by stitching; UNPRIMED: unwound before its modules
   were ready.  */
void st_counter_schedule_sample (StCounterSchedule *s, StUnwindStatus status,
                                 gboolean stitched, gboolean unprimed);

/* An event of TIME was written (or held back).  MAY_WRITE: the output is
   between samples, a set may go out now.  Writes one when it is due.  */
void st_counter_schedule_event (StCounterSchedule *s, int64_t time,
                                gboolean may_write);

/* The output ends: the final counts, unless the last set has them (or no
   sample was written).  */
void st_counter_schedule_finish (StCounterSchedule *s);

#endif /* ST_COUNTER_SCHEDULE_H */
