/* Time order for streams that are only ordered per CPU (perf.data): events
   are processed (state updates, unwinding) in time order, as perf itself
   does, but emitted in input order, so the output is the input with raw
   stacks replaced and nothing moved; or, for a conversion into a format
   that is time-ordered by definition (a Sysprof capture), emitted in time
   order too.

   A round_end event (perf's FINISHED_ROUND) releases every buffered event
   no newer than the newest time seen before the previous round_end.  */
#ifndef ST_REORDER_H
#define ST_REORDER_H

#include <glib.h>

#include "model/event.h"

/* PROCESS is called once per event in time order and returns what EMIT
   needs (may be NULL); EMIT is called once per event in input order and
   owns that result.  */
typedef void *(*StReorderProcess) (const StEvent *ev, void *user);
typedef void (*StReorderEmit) (const StEvent *ev, void *result, void *user);

typedef struct StReorder StReorder;

/* MAX_BYTES bounds the buffered events: past it, everything buffered is
   processed and emitted at once (order then only as good as the input).  */
StReorder *st_reorder_new (StReorderProcess process, StReorderEmit emit,
                           void *user, size_t max_bytes,
                           gboolean emit_in_time_order);
void st_reorder_free (StReorder *r);

/* Events whose memory STABLE accepts are held without copying it.  */
void st_reorder_set_stable (StReorder *r, StEventStable stable, void *user);

void st_reorder_push (StReorder *r, const StEvent *ev);
/* Processes and emits everything buffered (at the end of the input).  */
void st_reorder_flush (StReorder *r);

/* Times the buffer cap forced a flush.  */
guint st_reorder_overflows (const StReorder *r);

/* Input offset of the oldest event still held, G_MAXUINT64 if none.  */
uint64_t st_reorder_oldest_offset (const StReorder *r);

#endif /* ST_REORDER_H */
