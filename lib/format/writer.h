/* Writing events in any supported output format.  */
#ifndef ST_WRITER_H
#define ST_WRITER_H

#include <glib.h>
#include "model/event.h"
#include "format/reader.h"

typedef struct StWriter StWriter;

/* Unwinding progress so far, for outputs that carry counters over time
   (a capture: CTRDEF/CTRSET frames).  */
typedef struct
{
  uint64_t samples;     /* raw-stack samples */
  uint64_t complete;    /* unwound to the root */
  uint64_t truncated;
  uint64_t failed;
  uint64_t stitched;
  uint64_t unprimed;    /* emitted before their modules were ready */
} StProgressCounters;

/* Format-specific operations behind StWriter.  */
typedef struct
{
  /* Passes EV through: byte-identical when the input format is the output
     format, converted otherwise.  Returns FALSE when the event has no
     counterpart in the output format (it is then not written).  */
  gboolean (*event) (void *impl, const StEvent *ev);
  /* Writes the callchain sample that replaces raw-stack event EV:
     EV's kernel chain, PERF_CONTEXT_USER, then USER_IPS (leaf first).  */
  void (*unwound) (void *impl, const StEvent *ev, const uint64_t *user_ips,
                   uint32_t n_user_ips);
  gboolean (*finish) (void *impl, GError **error);
  void (*free) (void *impl);
  /* Records the unwinding counters at TIME (ns); NULL when the format
     has no counters.  */
  void (*counters) (void *impl, int64_t time, const StProgressCounters *c);
} StWriterOps;

/* READER gives the input's format and headers the output may copy.
   UNWINDING: raw-stack events will come through st_writer_unwound (a
   perf.data output then drops the raw stacks from the attributes).
   Takes no ownership of FD.  */
StWriter *st_writer_new (int fd, StFormat format, StReader *reader,
                         gboolean unwinding, GError **error);
void st_writer_free (StWriter *writer);
gboolean st_writer_event (StWriter *writer, const StEvent *ev);
/* Passes LEN bytes of whole capture frames (one after another, each at
   least its header: checked by the caller) to WRITER as if read from a
   capture.  */
void st_writer_capture_frames (StWriter *writer, const uint8_t *frames,
                               size_t len);
void st_writer_unwound (StWriter *writer, const StEvent *ev,
                        const uint64_t *user_ips, uint32_t n_user_ips);
/* Whether the output's format carries counters.  */
gboolean st_writer_has_counters (const StWriter *writer);
/* Writes the counters at TIME into the output; FALSE (nothing written)
   when its format has no counters.  */
gboolean st_writer_counters (StWriter *writer, int64_t time,
                             const StProgressCounters *counters);
/* Hands everything written so far to the fd, e.g. while the input
   stalls, so a live reader sees it.  Errors stay for st_writer_failed.  */
void st_writer_flush (StWriter *writer);
/* Whether the output has failed (it stays failed).  */
gboolean st_writer_failed (const StWriter *writer);
/* Flushes and completes the output (e.g. the capture's end time).  */
gboolean st_writer_finish (StWriter *writer, GError **error);

#endif /* ST_WRITER_H */
