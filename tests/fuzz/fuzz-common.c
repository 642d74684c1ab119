#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/reader.h"
#include "format/writer.h"
#include "fuzz-common.h"
#include "pipeline.h"

int
fuzz_fd (const uint8_t *data, size_t size, int seekable)
{
  if (seekable)
    {
      int fd = memfd_create ("fuzz-input", MFD_CLOEXEC);
      if (fd < 0 || (size > 0 && write (fd, data, size) != (ssize_t) size)
          || lseek (fd, 0, SEEK_SET) != 0)
        abort ();
      return fd;
    }

  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) != 0)
    abort ();
  /* The whole input fits in the pipe: no writer thread needed.  */
  int cap = fcntl (fds[1], F_SETPIPE_SZ, 1 << 20);
  if (cap > 0 && size > (size_t) cap)
    size = cap;
  if (cap < 0 && size > 65536)
    size = 65536;
  if (size > 0 && write (fds[1], data, size) != (ssize_t) size)
    abort ();
  close (fds[1]);
  return fds[0];
}

void
fuzz_run (const uint8_t *data, size_t size, int seekable, StFormat format,
          const StPipelineOptions *options, int out)
{
  GError *error = NULL;
  int fd = fuzz_fd (data, size, seekable);
  StReader *reader = st_reader_new (fd, format, &error);

  if (reader != NULL)
    {
      StWriter *writer = st_writer_new (out, options->output_format, reader,
                                        options->mode == ST_MODE_UNWIND,
                                        &error);
      if (writer != NULL)
        {
          StPipeline *p = st_pipeline_new (reader, writer, options);
          st_pipeline_run (p, &error);
          g_clear_error (&error);
          st_pipeline_free (p);
          st_writer_free (writer);
        }
      g_clear_error (&error);
      st_reader_free (reader);
    }
  g_clear_error (&error);
  close (fd);
}

static uint64_t n_damage;

static void
count_damage (const StDamage *d, void *user)
{
  if (d->message == NULL || d->action >= ST_DAMAGE_N)
    abort ();
  n_damage++;
}

void
fuzz_filter (const uint8_t *data, size_t size, StFormat format, int seekable)
{
  static int devnull = -1;
  GError *error = NULL;

  if (devnull < 0)
    devnull = open ("/dev/null", O_WRONLY | O_CLOEXEC);

  /* The filter, recovering from damage, converting into either
     format.  */
  static const StFormat outputs[] = { ST_FORMAT_SYSPROF, ST_FORMAT_PERF };
  int fd;
  StReader *reader;
  for (unsigned i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
    {
      StPipelineOptions options = {
        .mode = ST_MODE_PASSTHRU,
        .output_format = outputs[i],
        .stitch = TRUE,
      };
      fuzz_run (data, size, seekable, format, &options, devnull);
    }

  /* Strictly: stops at the first damage, with an error, never more.  */
  fd = fuzz_fd (data, size, seekable);
  reader = st_reader_new (fd, format, &error);
  if (reader != NULL)
    {
      StEvent ev;
      int rc;
      while ((rc = st_reader_next (reader, &ev, &error)) > 0)
        ;
      if ((rc < 0) != (error != NULL))
        abort ();
      /* With a handler that only counts, reading goes on to the end.  */
      StDamageHandler h = { count_damage, NULL };
      st_reader_set_damage_handler (reader, &h);
      g_clear_error (&error);
      while (st_reader_next (reader, &ev, &error) > 0)
        ;
      st_reader_free (reader);
    }
  g_clear_error (&error);
  close (fd);
}
