/* The perf.data reader on a file-mode perf.data: from a regular file
   (feature sections read with pread) and through a pipe.  */
#include "config.h"

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_filter (data, size, ST_FORMAT_PERF, 1);
  fuzz_filter (data, size, ST_FORMAT_PERF, 0);
  return 0;
}
