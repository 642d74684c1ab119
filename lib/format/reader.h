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
/* Input bytes consumed so far.  */
uint64_t st_reader_offset (const StReader *reader);

#endif /* ST_READER_H */
