/* Level 3 of stacktrace-1: a recording unwound sample by sample, each
   chain printed as `stacktrace --chains` prints it:
   PID TID TIME ADDRS SYMBOLS (tab-separated; addresses 0x..., comma
   separated; names separated by ';').

     unwind-chains [--symfs DIR] RECORDING

   Built against the installed library only:
     cc unwind-chains.c $(pkg-config --cflags --libs stacktrace-1)  */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

/* A name as --chains writes it: nothing that could split the line, a
   field or the list of names.  */
static void
print_name (const char *name)
{
  for (const unsigned char *c = (const unsigned char *) name; *c; c++)
    if (*c == '\t')
      fputs ("\\t", stdout);
    else if (*c == '\n')
      fputs ("\\n", stdout);
    else if (*c == '\\')
      fputs ("\\\\", stdout);
    else if (*c < 0x20 || *c == 0x7f || *c == ';')
      printf ("\\x%02x", *c);
    else
      putchar (*c);
}

int
main (int argc, char **argv)
{
  const char *symfs = NULL;
  int arg = 1;

  if (argc > 3 && strcmp (argv[1], "--symfs") == 0)
    {
      symfs = argv[2];
      arg = 3;
    }
  if (arg != argc - 1)
    {
      fprintf (stderr, "usage: unwind-chains [--symfs DIR] RECORDING\n");
      return 2;
    }

  StRecords *records = st_records_new ();
  if (st_records_open_path (records, argv[arg], ST_FILE_FORMAT_AUTO) != ST_OK)
    {
      fprintf (stderr, "unwind-chains: %s\n", st_records_error (records));
      st_records_free (records);
      return 1;
    }
  StCache *cache = st_cache_new ();
  st_cache_set_symfs (cache, symfs);
  StSession *session = st_session_new (cache, ST_SESSION_STITCH);

  const StRecord *rec;
  uint64_t frames[ST_MAX_FRAMES];
  char name[512];
  StChainInfo info;
  int rc;
  while ((rc = st_records_next (records, &rec)) == ST_OK)
    {
      if (rec->kind != ST_RECORD_STACK_SAMPLE)
        {
          st_session_add (session, rec);
          continue;
        }
      st_session_unwind (session, rec, frames, ST_MAX_FRAMES, &info);
      printf ("%d\t%d\t%" PRId64 "\t", (int) rec->pid, (int) rec->tid,
              rec->time);
      for (uint32_t i = 0; i < info.n_frames; i++)
        printf ("%s0x%" PRIx64, i ? "," : "", frames[i]);
      putchar ('\t');
      for (uint32_t i = 0; i < info.n_frames; i++)
        {
          if (i)
            putchar (';');
          st_session_symbolize (session, rec->pid, frames[i], name,
                                sizeof name);
          print_name (name);
        }
      putchar ('\n');
    }
  if (rc != ST_END)
    fprintf (stderr, "unwind-chains: %s\n", st_records_error (records));

  StCounters c;
  st_session_get_counters (session, &c);
  fprintf (stderr, "unwind-chains: %" PRIu64 " samples: %" PRIu64
           " complete, %" PRIu64 " truncated, %" PRIu64 " failed\n",
           c.samples, c.complete, c.truncated, c.failed);
  st_session_free (session);
  st_cache_free (cache);
  st_records_free (records);
  return rc == ST_END ? 0 : 1;
}
