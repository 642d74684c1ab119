/* StWriterOps producing perf.data (file mode on a regular file, else pipe
   mode) from a Sysprof capture: one synthesized attribute and a record
   per frame that has a perf counterpart, raw-stack frames as samples
   perf can unwind itself, or with their unwound callchain.  */
#ifndef ST_PERF_FROM_CAPTURE_H
#define ST_PERF_FROM_CAPTURE_H

#include "format/output.h"
#include "format/writer.h"

extern const StWriterOps st_perf_from_capture_ops;

/* Takes no ownership of OUT.  UNWINDING: every raw-stack frame will come
   through the unwound op; else they are kept as raw stacks.  */
void *st_perf_from_capture_new (StOutput *out, gboolean unwinding);

#endif /* ST_PERF_FROM_CAPTURE_H */
