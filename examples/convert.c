/* Level 1 of stacktrace-1: a recording converted with its raw stacks
   unwound, as `stacktrace -i IN -o OUT` does, the counters printed at
   the end.

     convert [--symfs DIR] [--chains FILE] IN OUT capture|perf

   Built against the installed library only:
     cc convert.c $(pkg-config --cflags --libs stacktrace-1)  */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

static void
print_message (StMessageKind kind, const char *message, void *user_data)
{
  (void) kind;
  (void) user_data;
  fprintf (stderr, "convert: %s\n", message);
}

int
main (int argc, char **argv)
{
  const char *symfs = NULL, *chains = NULL;
  int arg = 1;

  while (arg + 1 < argc && argv[arg][0] == '-')
    {
      if (strcmp (argv[arg], "--symfs") == 0)
        symfs = argv[arg + 1];
      else if (strcmp (argv[arg], "--chains") == 0)
        chains = argv[arg + 1];
      else
        break;
      arg += 2;
    }
  if (arg != argc - 3)
    {
      fprintf (stderr, "usage: convert [--symfs DIR] [--chains FILE] "
               "IN OUT capture|perf\n");
      return 2;
    }

  /* The program owns the process: a recording truncated while it is
     read must not kill it.  */
  st_install_mapped_file_guard ();
  StStream *s = st_stream_new ();
  st_stream_set_input_path (s, argv[arg], ST_FILE_FORMAT_AUTO);
  st_stream_set_output_path (s, argv[arg + 1],
                             strcmp (argv[arg + 2], "perf") == 0
                             ? ST_FILE_FORMAT_PERF : ST_FILE_FORMAT_CAPTURE);
  st_stream_set_symfs (s, symfs);
  if (chains != NULL)
    st_stream_set_chains_path (s, chains);
  st_stream_set_message_func (s, print_message, NULL);
  int rc = st_stream_run (s);
  if (rc != ST_OK)
    fprintf (stderr, "convert: %s\n", st_stream_error (s));

  StCounters c;
  st_stream_get_counters (s, &c);
  fprintf (stderr, "convert: %" PRIu64 " samples: %" PRIu64 " complete, %"
           PRIu64 " truncated, %" PRIu64 " failed\n", c.samples, c.complete,
           c.truncated, c.failed);
  st_stream_free (s);
  return rc == ST_OK ? 0 : 1;
}
