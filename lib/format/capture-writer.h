/* Sysprof capture writer on a buffered StOutput.  */
#ifndef ST_CAPTURE_WRITER_H
#define ST_CAPTURE_WRITER_H

#include <glib.h>
#include "format/capture-types.h"
#include "format/output.h"
#include "model/event.h"

typedef struct StCaptureWriter StCaptureWriter;

/* Takes no ownership of OUT.  */
StCaptureWriter *st_capture_writer_new (StOutput *out);
void st_capture_writer_free (StCaptureWriter *w);

/* The 256-byte file header, written once, before any frame.  TEMPLATE
   (when the input was a capture) is copied; otherwise a fresh header is
   made with START_TIME and the current wall-clock time.  */
void st_capture_writer_file_header (StCaptureWriter *w,
                                    const uint8_t *template_header,
                                    int64_t start_time);
gboolean st_capture_writer_has_header (const StCaptureWriter *w);
/* Keeps the header changeable by st_capture_writer_set_start: on a
   regular file it is rewritten by st_capture_writer_finish; on a pipe,
   the output is held in memory (at most MAX_BYTES) until then.  */
void st_capture_writer_hold_header (StCaptureWriter *w, size_t max_bytes);
/* Sets the header's start time and, unless NULL, its capture_time (ISO
   8601, "Recorded At" in Sysprof); releases a held output.  FALSE when
   the header has already gone down a pipe.  */
gboolean st_capture_writer_set_start (StCaptureWriter *w, int64_t start_time,
                                      const char *capture_time);
/* The header's end_time will be at least END_TIME (it is the latest frame
   time otherwise).  */
void st_capture_writer_set_end (StCaptureWriter *w, int64_t end_time);

/* A frame exactly as given (LEN includes the frame header).  */
void st_capture_writer_raw (StCaptureWriter *w, const uint8_t *frame,
                            size_t len, int64_t time);

/* Callchain sample; IPS longer than a frame can hold are cut at the root
   end (returns FALSE then).  */
gboolean st_capture_writer_sample (StCaptureWriter *w, int cpu, int32_t pid,
                                   int32_t tid, int64_t time,
                                   const uint64_t *ips, uint32_t n_ips);
/* STACK_USER frame from a raw-stack event (its kernel callchain is not
   part of this frame; see st_capture_writer_sample).  A stack too large
   for one frame is cut at the high (root) end; returns FALSE then.  */
gboolean st_capture_writer_stack_user (StCaptureWriter *w, const StEvent *ev);
void st_capture_writer_map (StCaptureWriter *w, int cpu, int32_t pid,
                            int64_t time, uint64_t start, uint64_t end,
                            uint64_t offset, uint64_t inode,
                            const char *filename, const uint8_t *build_id,
                            size_t build_id_len);
void st_capture_writer_process (StCaptureWriter *w, int cpu, int32_t pid,
                                int64_t time, const char *cmdline);
void st_capture_writer_fork (StCaptureWriter *w, int cpu, int32_t pid,
                             int64_t time, int32_t child_pid);
void st_capture_writer_exit (StCaptureWriter *w, int cpu, int32_t pid,
                             int64_t time);
void st_capture_writer_log (StCaptureWriter *w, int cpu, int32_t pid,
                            int64_t time, int severity, const char *domain,
                            const char *message);

/* CTRDEF frame defining N counters (N <= 511, what a frame holds).  */
void st_capture_writer_define_counters (StCaptureWriter *w, int cpu,
                                        int32_t pid, int64_t time,
                                        const StCaptureCounter *counters,
                                        guint n);
/* CTRSET frame: counter IDS[i] takes VALUES[i] (raw 64 bits: an int64 or
   a double, as the counter was defined), in groups of 8.  */
void st_capture_writer_set_counters (StCaptureWriter *w, int cpu,
                                     int32_t pid, int64_t time,
                                     const uint32_t *ids,
                                     const uint64_t *values, guint n);

/* Flushes; when the output is a regular file, stores the latest frame
   time seen as the header's end_time (and the header's changes).  */
gboolean st_capture_writer_finish (StCaptureWriter *w, GError **error);

#endif /* ST_CAPTURE_WRITER_H */
