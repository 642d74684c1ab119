/* The whole filter unwinding, as a user runs it, on either format (found
   by its magic) and into either format, through the real writers into a
   memory file.  The files are only those of the committed fixture
   (--symfs, --no-host-files): nothing of the host is ever opened, so
   the paths of a module that is not found, of a vDSO with no copy and
   of a file that is not the one recorded are reached on purpose.  */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-common.h"

#ifndef ST_FIXTURE_DIR
#error "ST_FIXTURE_DIR must name tests/data/fixture"
#endif

static void
unwind_into (const uint8_t *data, size_t size, int seekable, StFormat to,
             StEngine engine, int out)
{
  StPipelineOptions options = {
    .mode = ST_MODE_UNWIND,
    .engine = engine,
    .output_format = to,
    .symfs = ST_FIXTURE_DIR,
    .given_files_only = TRUE,
    .stitch = TRUE,
    .counters = TRUE,
  };

  fuzz_run (data, size, seekable, ST_FORMAT_AUTO, &options, out);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int out = -1;

  if (out < 0)
    out = memfd_create ("fuzz-output", MFD_CLOEXEC);
  if (out < 0)
    abort ();
  /* A regular file (the perf writer rewrites its header at the end)
     and a pipe-like forward stream in; both formats and engines out.  */
  for (int seekable = 1; seekable >= 0; seekable--)
    {
      unwind_into (data, size, seekable, ST_FORMAT_PERF, ST_ENGINE_FAST, out);
      if (ftruncate (out, 0) != 0 || lseek (out, 0, SEEK_SET) != 0)
        abort ();
      unwind_into (data, size, seekable, ST_FORMAT_SYSPROF,
                   seekable ? ST_ENGINE_DWFL : ST_ENGINE_FAST, out);
      if (ftruncate (out, 0) != 0 || lseek (out, 0, SEEK_SET) != 0)
        abort ();
    }
  return 0;
}
