/* Writes a synthetic Sysprof capture of many processes to standard
   output, for tests/integration/many-pids.sh: each process has a PROCESS frame,
   the fixture binary's mapping and a few raw-stack samples copied from
   the committed fixture capture (so they unwind like the originals);
   every other process exits.  Reuses the library's capture reader and
   writer.

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
#include "format/capture-writer.h"
#include "format/input.h"
#include "format/output.h"

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

  StOutput *out = st_output_new (STDOUT_FILENO);
  StCaptureWriter *w = st_capture_writer_new (out);
  int64_t t = samples[0]->time;
  st_capture_writer_file_header (w, NULL, t);
  for (int i = 0; i < n_processes; i++)
    {
      int32_t pid = 100000 + i;
      char comm[32];

      g_snprintf (comm, sizeof comm, "proc-%d", i);
      st_capture_writer_process (w, 0, pid, t, comm);
      st_capture_writer_map (w, 0, pid, t, map->map.start, map->map.end,
                             map->map.pgoff, map->map.inode,
                             n_paths > 0 ? paths[i % n_paths]
                                         : map->map.filename, NULL, 0);
      for (guint k = 0; k < per_process; k++)
        {
          StEvent s = *samples[k];
          s.pid = pid;
          s.tid = pid;
          s.time = ++t;
          st_capture_writer_stack_user (w, &s);
        }
      if (i % 2 == 0)
        st_capture_writer_exit (w, 0, pid, ++t);
    }
  gboolean ok = st_capture_writer_finish (w, &error);
  if (!ok)
    fprintf (stderr, "gen-many-pids: %s\n", error->message);
  st_capture_writer_free (w);
  st_output_free (out);
  st_capture_reader_free (r);
  st_input_free (in);
  close (fd);
  g_free (map);
  for (guint k = 0; k < n_samples; k++)
    g_free (samples[k]);
  return ok ? 0 : 1;
}
