/* Sysprof capture reader: StReaderOps over a forward-only StInput.  */
#ifndef ST_CAPTURE_READER_H
#define ST_CAPTURE_READER_H

#include "format/reader.h"

typedef struct StCaptureReader StCaptureReader;

/* Reads and checks the 256-byte file header.  Takes no ownership of IN.  */
StCaptureReader *st_capture_reader_new (StInput *in, GError **error);
void st_capture_reader_free (StCaptureReader *r);
/* 1 event, 0 clean EOF, -1 error (naming the frame's offset).  */
int st_capture_reader_next (StCaptureReader *r, StEvent *ev, GError **error);
/* The file header exactly as read (256 bytes).  */
const uint8_t *st_capture_reader_header (const StCaptureReader *r);

#endif /* ST_CAPTURE_READER_H */
