/* Writes a synthetic Sysprof capture of many processes to standard
   output, for tests/integration/many-pids.sh: each process has a PROCESS frame,
   the fixture binary's mapping and a few raw-stack samples copied from
   the committed fixture capture (so they unwind like the originals);
   every other process exits.  Reads the fixture with the library's
   capture reader; writes with the tests' capture byte builder
   (tests/lib/capture-bytes), end time patched in when standard output
   is a file.

   gen-many-pids FIXTURE.syscap N_PROCESSES SAMPLES_PER_PROCESS
                      [MAP_PATH...]

   With MAP_PATHs, process I maps MAP_PATH[I % N] (at the fixture
   binary's addresses) instead of the fixture binary: for
   tests/integration/hostile-maps.sh.  */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/capture-reader.h"
#include "format/input.h"

#include "capture-bytes.h"

#define MAX_SAMPLES 16

int
main (int argc, char **argv)
{
  GError *error = NULL;
  StEvent *map = NULL, *samples[MAX_SAMPLES];
  guint n_samples = 0;
  StEvent ev;

  if (argc < 4)
    {
      fprintf (stderr, "usage: %s FIXTURE.syscap N_PROCESSES SAMPLES "
               "[MAP_PATH...]\n", argv[0]);
      return 2;
    }
  char **paths = argv + 4;
  int n_paths = argc - 4;
  int n_processes = atoi (argv[2]);
  guint per_process = MIN ((guint) atoi (argv[3]), MAX_SAMPLES);

  /* The fixture's text mapping and first raw-stack samples.  */
  int fd = open (argv[1], O_RDONLY);
  StInput *in = st_input_new (fd);
  StCaptureReader *r = fd >= 0 ? st_capture_reader_new (in, &error) : NULL;
  if (r == NULL)
    {
      fprintf (stderr, "gen-many-pids: cannot read %s\n", argv[1]);
      return 1;
    }
  while (st_capture_reader_next (r, &ev, &error) > 0
         && (map == NULL || n_samples < per_process))
    {
      if (ev.kind == ST_EVENT_MAP && map == NULL
          && g_str_has_suffix (ev.map.filename, "/st-fixture"))
        map = st_event_copy (&ev);
      else if (ev.kind == ST_EVENT_STACK_USER && n_samples < per_process)
        samples[n_samples++] = st_event_copy (&ev);
    }
  if (map == NULL || n_samples < per_process)
    {
      fprintf (stderr, "gen-many-pids: %s lacks the mapping or "
               "samples\n", argv[1]);
      return 1;
    }

  /* Written a process at a time: thousands of them do not fit.  */
  GByteArray *b = g_byte_array_new ();
  int64_t t = samples[0]->time;
  gboolean ok = TRUE;
  /* Where the header lands, if its end time can be patched in there
     (a file not opened for appending).  */
  int flags = fcntl (STDOUT_FILENO, F_GETFL);
  off_t header_at = flags >= 0 && (flags & O_APPEND) == 0
                    ? lseek (STDOUT_FILENO, 0, SEEK_CUR) : -1;
  capture_put_file_header (b, t, 0);
  for (int i = 0; i < n_processes && ok; i++)
    {
      int32_t pid = 100000 + i;
      char comm[32];

      g_snprintf (comm, sizeof comm, "proc-%d", i);
      capture_put_process (b, 0, pid, t, comm);
      capture_put_map (b, 0, pid, t, map->map.start, map->map.end,
                       map->map.pgoff, map->map.inode,
                       n_paths > 0 ? paths[i % n_paths] : map->map.filename,
                       NULL, 0);
      for (guint k = 0; k < per_process; k++)
        {
          const StEvent *s = samples[k];
          capture_put_stack_user (b, (int16_t) s->cpu, pid, pid, ++t,
                                  s->stack.stack, s->stack.stack_size,
                                  s->stack.abi, s->stack.regs,
                                  s->stack.n_regs);
        }
      if (i % 2 == 0)
        capture_put_exit (b, 0, pid, ++t);
      ok = fwrite (b->data, 1, b->len, stdout) == b->len;
      g_byte_array_set_size (b, 0);
    }
  ok = ok && fflush (stdout) == 0;
  /* On a file, the header's end time, as Sysprof's writer does.  */
  uint64_t end = GUINT64_TO_LE ((uint64_t) t);
  if (ok && header_at >= 0)
    ok = pwrite (STDOUT_FILENO, &end, 8,
                 header_at + CAPTURE_HEADER_END_TIME_AT) == 8;
  if (!ok)
    fprintf (stderr, "gen-many-pids: cannot write the capture\n");
  g_byte_array_unref (b);
  st_capture_reader_free (r);
  st_input_free (in);
  close (fd);
  g_free (map);
  for (guint k = 0; k < n_samples; k++)
    g_free (samples[k]);
  return ok ? 0 : 1;
}
