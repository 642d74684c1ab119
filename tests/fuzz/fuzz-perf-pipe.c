/* The perf.data reader in pipe mode: the input is the records that
   follow the 16-byte pipe header (HEADER_ATTR first, as perf writes).  */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const uint8_t header[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2',
                                      16, 0, 0, 0, 0, 0, 0, 0 };
  uint8_t *stream = malloc (sizeof header + size);

  memcpy (stream, header, sizeof header);
  if (size > 0)
    memcpy (stream + sizeof header, data, size);
  fuzz_filter (stream, sizeof header + size, ST_FORMAT_PERF, 0);
  free (stream);
  return 0;
}
