/* Sysprof capture reader: StReaderOps over a forward-only StInput.  */
#ifndef ST_CAPTURE_READER_H
#define ST_CAPTURE_READER_H

#include "format/damage.h"
#include "format/reader.h"

typedef struct StCaptureReader StCaptureReader;

/* Reads and checks the 256-byte file header.  Takes no ownership of IN.  */
StCaptureReader *st_capture_reader_new (StInput *in, GError **error);
void st_capture_reader_free (StCaptureReader *r);
/* 1 event, 0 EOF, -1 error (naming the frame's offset).  Without a
   damage handler, a damaged frame is an error; with one, it is reported
   and reading goes on (see damage.h and doc/ROBUSTNESS).  */
int st_capture_reader_next (StCaptureReader *r, StEvent *ev, GError **error);
void st_capture_reader_set_damage_handler (StCaptureReader *r,
                                          const StDamageHandler *handler);
/* The file header exactly as read (256 bytes).  */
const uint8_t *st_capture_reader_header (const StCaptureReader *r);

#endif /* ST_CAPTURE_READER_H */
