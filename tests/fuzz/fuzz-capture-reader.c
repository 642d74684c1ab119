/* The Sysprof capture reader (and the filter behind it) on any bytes.  */
#include "config.h"

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_filter (data, size, ST_FORMAT_SYSPROF, size % 2);
  return 0;
}
