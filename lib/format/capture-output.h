/* StWriterOps producing a Sysprof capture: byte-identical passthrough of
   capture input, conversion of perf.data input, unwound samples.  */
#ifndef ST_CAPTURE_OUTPUT_H
#define ST_CAPTURE_OUTPUT_H

#include "format/output.h"
#include "format/reader.h"
#include "format/writer.h"

extern const StWriterOps st_capture_output_ops;

/* Takes no ownership of OUT.  READER gives the input format and header.
   UNWINDING (not a plain copy): a capture's frames that Sysprof cannot
   read are not passed on (see convert in capture-output.c).  */
void *st_capture_output_new (StOutput *out, StReader *reader,
                             gboolean unwinding);

#endif /* ST_CAPTURE_OUTPUT_H */
