/* Time order for streams that are only ordered per CPU (perf.data): events
   are processed (state updates, unwinding) in time order, as perf itself
   does, but emitted in input order, so the output is the input with raw
   stacks replaced and nothing moved; or, for a conversion into a format
   that is time-ordered by definition (a Sysprof capture), emitted in time
   order too.

   A round_end event (perf's FINISHED_ROUND) releases every buffered event
   no newer than the newest time seen before the previous round_end.

   Processing may wait (JIT-style priming, --priming defer: a sample
   whose modules are being prepared): PROCESS then answers
   ST_REORDER_LATER, and that event and everything released after it
   stay unprocessed until st_reorder_resume, so the process model never
   runs ahead of the waiting sample; what is processed keeps being
   emitted in order up to the first event that is not.  */
#ifndef ST_REORDER_H
#define ST_REORDER_H

#include <glib.h>

#include "model/event.h"

/* PROCESS is called for each event in time order and returns what EMIT
   needs (may be NULL), or ST_REORDER_LATER when the event cannot be
   processed yet (never when FORCE is TRUE): it is called again for the
   same event later.  EMIT is called once per event in input order and
   owns that result.  */
typedef void *(*StReorderProcess) (const StEvent *ev, gboolean force,
                                   void *user);
typedef void (*StReorderEmit) (const StEvent *ev, void *result, void *user);

#define ST_REORDER_LATER ((void *) &st_reorder_later)
extern const char st_reorder_later;

typedef struct StReorder StReorder;

/* MAX_BYTES bounds the buffered events: past it, everything buffered is
   processed and emitted at once (order then only as good as the input).  */
StReorder *st_reorder_new (StReorderProcess process, StReorderEmit emit,
                           void *user, size_t max_bytes,
                           gboolean emit_in_time_order);
void st_reorder_free (StReorder *r);

/* Whether a result can be emitted now (NULL results are asked too).  */
typedef gboolean (*StReorderReady) (void *result, void *user);
/* Processed events are emitted (in their order) only once READY says
   their result is, at the latest at st_reorder_flush or
   st_reorder_emit_processed: --jobs' results are taken when walked,
   while more is read and processed.  Held events still count in
   st_reorder_bytes and st_reorder_oldest_offset.  */
void st_reorder_set_emit_when_ready (StReorder *r, StReorderReady ready);

/* Events whose memory STABLE accepts are held without copying it.  */
void st_reorder_set_stable (StReorder *r, StEventStable stable, void *user);

/* The input is in time order already (a capture): every event is
   released as it is pushed, in input order; the window then only holds
   events while processing waits.  */
void st_reorder_set_as_read (StReorder *r);
/* ... but released N_EVENTS at a time (or at st_reorder_flush): for
   --jobs' workers, a batch of samples to share.  */
void st_reorder_set_as_read_batch (StReorder *r, guint n_events);

void st_reorder_push (StReorder *r, const StEvent *ev);
/* Processes and emits everything buffered (at the end of the input),
   unless PROCESS still answers ST_REORDER_LATER.  */
void st_reorder_flush (StReorder *r);
/* Emits everything processed, ready or not (the input stalls).  */
void st_reorder_emit_processed (StReorder *r);

/* Processes again from the event that had to wait, FORCE for that one
   (PROCESS must then take it as it is).  TRUE when nothing waits any
   more.  */
gboolean st_reorder_resume (StReorder *r, gboolean force);
/* Whether an event waits to be processed.  */
gboolean st_reorder_waiting (const StReorder *r);
/* Bytes held (events and their copies).  While processing waits, the
   window is not bounded by MAX_BYTES: the caller bounds it (by forcing).  */
size_t st_reorder_bytes (const StReorder *r);

/* Bytes of the chunks the held events are cut from (blocks too big for
   a chunk not counted): what the window takes from the system.  Chunks
   emptied are kept for the next blocks, up to 8 MiB, and given back
   beyond.  */
size_t st_reorder_mapped_bytes (const StReorder *r);

/* The input is idle: empty chunks kept for the next blocks given back
   but one.  R may be NULL.  */
void st_reorder_trim (StReorder *r);

/* Times the buffer cap forced a flush.  */
guint st_reorder_overflows (const StReorder *r);

/* Input offset of the oldest event still held, G_MAXUINT64 if none.  */
uint64_t st_reorder_oldest_offset (const StReorder *r);

#endif /* ST_REORDER_H */
