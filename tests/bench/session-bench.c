/* The per-sample level's rate (make bench, unwind-bench.sh): a
   recording read with st_records_* and unwound with one StSession, as a
   profiler linking the library would, nothing printed per sample.

     session-bench RECORDING

   Two passes over the recording through one StCache: the first (a new
   cache: files opened, CFI read) is the whole run; the second, a new
   session on the warm cache, is the steady state.  Prints
   "SAMPLES WHOLE_S STEADY_S" (seconds of each pass).  Built on the
   public header alone.  */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <stacktrace-1/stacktrace.h>

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass; the samples unwound, or -1.  */
static int64_t
pass (StCache *cache, const char *path)
{
  StRecords *records = st_records_new ();
  if (st_records_open_path (records, path, ST_FILE_FORMAT_AUTO) != ST_OK)
    {
      fprintf (stderr, "session-bench: %s\n", st_records_error (records));
      st_records_free (records);
      return -1;
    }
  StSession *session = st_session_new (cache, ST_SESSION_STITCH);
  const StRecord *rec;
  static uint64_t frames[ST_MAX_FRAMES];
  StChainInfo info;
  int64_t samples = 0;
  int rc;

  while ((rc = st_records_next (records, &rec)) == ST_OK)
    if (rec->kind == ST_RECORD_STACK_SAMPLE)
      {
        st_session_unwind (session, rec, frames, ST_MAX_FRAMES, &info);
        samples++;
      }
    else
      st_session_add (session, rec);
  if (rc != ST_END)
    {
      fprintf (stderr, "session-bench: %s\n", st_records_error (records));
      samples = -1;
    }
  st_session_free (session);
  st_records_free (records);
  return samples;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: session-bench RECORDING\n");
      return 2;
    }
  StCache *cache = st_cache_new ();
  double t0 = now ();
  int64_t n = pass (cache, argv[1]);
  double t1 = now ();
  int64_t n2 = n >= 0 ? pass (cache, argv[1]) : -1;
  double t2 = now ();
  st_cache_free (cache);
  if (n < 0 || n2 != n)
    return 1;
  printf ("%" PRId64 " %.6f %.6f\n", n, t1 - t0, t2 - t1);
  return 0;
}
