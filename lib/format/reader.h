/* Reading events from any supported format.  */
#ifndef ST_READER_H
#define ST_READER_H

#include <glib.h>
#include "format/damage.h"
#include "model/event.h"
#include "format/input.h"

typedef struct StReader StReader;

/* Detects the format from the first bytes when FORMAT is ST_FORMAT_AUTO.
   Takes no ownership of FD.  */
StReader *st_reader_new (int fd, StFormat format, GError **error);
/* Same, with a wait function (see st_input_set_wait_func) already while
   the header is read: the input may stall before its first byte.  */
StReader *st_reader_new_full (int fd, StFormat format, unsigned wait_ms,
                              StInputWaitFunc wait_func, void *wait_data,
                              GError **error);
/* Same, reading through READ_FUNC (NULL: read(2)); FD is polled: see
   st_input_set_read_func.  */
StReader *st_reader_new_pulled (int fd, StInputReadFunc read_func,
                                void *read_data, StFormat format,
                                unsigned wait_ms, StInputWaitFunc wait_func,
                                void *wait_data, GError **error);
void st_reader_free (StReader *reader);
int st_reader_next (StReader *reader, StEvent *ev, GError **error);
/* Damaged frames/records go to HANDLER, and reading goes on; without one
   (the default), the first damage is an error of st_reader_next.  */
void st_reader_set_damage_handler (StReader *reader,
                                   const StDamageHandler *handler);
StFormat st_reader_format (const StReader *reader);

/* For a Sysprof capture input: the 256-byte file header as read.  NULL
   for other formats.  */
const uint8_t *st_reader_capture_header (const StReader *reader);
/* The perf.data reader behind READER (for a perf writer copying its
   attributes and features), or NULL for other formats.  */
struct StPerfReader *st_reader_perf (const StReader *reader);
/* The input's file descriptor.  */
int st_reader_fd (const StReader *reader);
/* See st_input_set_wait_func.  */
void st_reader_set_wait_func (StReader *reader, unsigned interval_ms,
                              StInputWaitFunc func, void *user);
/* See st_input_set_wake_fd.  */
void st_reader_set_wake_fd (StReader *reader, int fd);
/* Whether LEN bytes at PTR (from an event) outlive the next
   st_reader_next call, until released: true of a mapped input file, and
   of the input read once the caller holds events (st_reader_hold).  */
bool st_reader_stable (const void *ptr, size_t len, void *reader);
/* The caller holds events until it releases them: the input read into
   memory keeps them in place (st_input_hold).  */
void st_reader_hold (StReader *reader);
/* Nothing before input OFFSET is held any more.  */
void st_reader_release (StReader *reader, uint64_t offset);
/* See st_input_page_on_thread.  */
gboolean st_reader_page_on_thread (StReader *reader);
/* The input is idle: memory kept for what comes next given back.  */
void st_reader_trim (StReader *reader);
/* Input bytes consumed so far.  */
uint64_t st_reader_offset (const StReader *reader);
/* See st_input_intact_end: G_MAXUINT64 unless the input file shrank.  */
uint64_t st_reader_intact_end (const StReader *reader);

#endif /* ST_READER_H */
