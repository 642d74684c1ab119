/* What a perf.data says about its recording, from its feature sections
   (file mode) or HEADER_FEATURE records (pipe mode): perf's command line,
   the span of the samples, the wall-clock time of the recording.  A
   feature that is absent or damaged leaves its fields unknown.  */
#ifndef ST_PERF_RECORDING_H
#define ST_PERF_RECORDING_H

#include <glib.h>
#include <stdint.h>

#include "format/perf-reader.h"

typedef struct
{
  char **argv;              /* CMDLINE: perf's argv, then the workload's;
                               NULL when unknown */
  int64_t first_sample;     /* SAMPLE_TIME (ns); 0 when unknown (pipe mode
                               has zeros: perf writes it before sampling) */
  int64_t last_sample;
  gboolean has_clock;       /* CLOCK_DATA: WALL_CLOCK_NS was read at */
  uint64_t wall_clock_ns;   /* CLOCK_NS of the samples' clock */
  uint64_t clock_ns;
} StPerfRecording;

void st_perf_recording_clear (StPerfRecording *rec);
/* Takes in the bytes of feature section BIT; other features are
   ignored.  */
void st_perf_recording_feature (StPerfRecording *rec, guint bit,
                                const uint8_t *data, uint64_t size);
/* Takes in a pipe-mode HEADER_FEATURE record (RAW, LEN bytes).  */
void st_perf_recording_feature_record (StPerfRecording *rec,
                                       const uint8_t *raw, size_t len);
/* Takes in the feature sections READER has read (file mode).  */
void st_perf_recording_from_reader (StPerfRecording *rec,
                                    const StPerfReader *reader);

#endif /* ST_PERF_RECORDING_H */
