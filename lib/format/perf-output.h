/* StWriterOps producing perf.data (file mode on a regular file, else pipe
   mode): perf.data input copied record by record, raw-stack samples
   re-serialized with their unwound callchain, and Sysprof capture input
   converted.  */
#ifndef ST_PERF_OUTPUT_H
#define ST_PERF_OUTPUT_H

#include "format/output.h"
#include "format/reader.h"
#include "format/writer.h"

extern const StWriterOps st_perf_output_ops;

/* Takes no ownership of OUT or READER.  UNWINDING: every raw-stack
   sample will come through the unwound op (the attributes lose their
   raw stacks); else they pass through as they are.  */
void *st_perf_output_new (StOutput *out, StReader *reader,
                          gboolean unwinding);

#endif /* ST_PERF_OUTPUT_H */
