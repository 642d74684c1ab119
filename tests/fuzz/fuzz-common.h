/* Shared by the fuzz targets: the input bytes as a file descriptor, and
   the filter run over them.  Each target defines LLVMFuzzerTestOneInput;
   libFuzzer drives it (make fuzz), replay.c runs it over saved inputs
   (make check).  */
#ifndef ST_FUZZ_COMMON_H
#define ST_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "pipeline.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A descriptor reading DATA: a memory file (seekable, like a regular
   file) or a pipe (forward only, at most 1 MiB).  Close it yourself.  */
int fuzz_fd (const uint8_t *data, size_t size, int seekable);

/* Runs the whole filter in passthru mode (reader, process table, time
   order, writer to /dev/null) with damage recovery, then once more
   strictly (the first damage stops it).  Nothing may crash, leak or
   hang; every damaged spot must be counted.  */
void fuzz_filter (const uint8_t *data, size_t size, StFormat format,
                  int seekable);

/* One run of the filter over DATA (FORMAT, or ST_FORMAT_AUTO) with
   OPTIONS into OUT (OPTIONS->output_format), damage recovered.  */
void fuzz_run (const uint8_t *data, size_t size, int seekable,
               StFormat format, const StPipelineOptions *options, int out);

#endif /* ST_FUZZ_COMMON_H */
