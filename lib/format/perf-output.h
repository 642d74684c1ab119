/* StWriterOps producing perf.data (file mode on a regular file, else pipe
   mode) from perf.data input: copied record by record, raw-stack samples
   re-serialized with their unwound callchain.  (From a Sysprof capture:
   perf-from-capture.h.)  */
#ifndef ST_PERF_OUTPUT_H
#define ST_PERF_OUTPUT_H

#include "format/output.h"
#include "format/perf-reader.h"
#include "format/writer.h"

extern const StWriterOps st_perf_output_ops;

/* Takes no ownership of OUT or PERF_IN (the reader of the perf.data
   input, whose events all come to this writer).  UNWINDING: every
   raw-stack sample will come through the unwound op (the attributes
   lose their raw stacks); else they pass through as they are.  */
void *st_perf_output_new (StOutput *out, StPerfReader *perf_in,
                          gboolean unwinding);

#endif /* ST_PERF_OUTPUT_H */
