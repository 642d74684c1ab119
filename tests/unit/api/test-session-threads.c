/* The public per-sample API's threading contract (session.h): N
   threads, each unwinding a different recording through its own
   session, all sessions on one shared StCache, give exactly the chains
   (addresses and names) of one-thread runs.  Uses the public header
   only, linked against libstacktrace-1.so.  Run also under the
   sanitized builds (ASan, and TSan with tools/tsan-check.sh).  */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

#define N_THREADS 6

static const char *const recordings[] = {
  "cxx-names.data", "rust-legacy.data", "rust-v0.data",
};
#define N_RECORDINGS G_N_ELEMENTS (recordings)

/* The chain of raw-stack sample REC through SESSION, as a line of
   OUT: status, cause, then each frame's address and name.  */
static void
append_chain (StSession *session, const StRecord *rec, GString *out)
{
  uint64_t frames[ST_MAX_FRAMES];
  char name[256];
  StChainInfo info;

  g_assert_cmpint (st_session_unwind (session, rec, frames, ST_MAX_FRAMES,
                                      &info), ==, ST_OK);
  g_string_append_printf (out, "%d %d:", (int) info.status, (int) info.cause);
  for (uint32_t i = 0; i < info.n_frames; i++)
    {
      g_assert_cmpint (st_session_symbolize (session, rec->pid, frames[i],
                                             name, sizeof name), >=, 0);
      g_string_append_printf (out, " 0x%" PRIx64 " %s", frames[i], name);
    }
  g_string_append_c (out, '\n');
}

/* Every chain of RECORDING, one line each, through a session of
   CACHE.  */
static char *
chains_of (StCache *cache, const char *recording)
{
  g_autofree char *path = g_build_filename (ST_DEMANGLE_DIR, recording,
                                            NULL);
  StRecords *records = st_records_new ();
  StSession *session = st_session_new (cache, ST_SESSION_STITCH);
  GString *out = g_string_new (NULL);
  const StRecord *rec;
  int rc;

  g_assert_nonnull (session);
  g_assert_cmpint (st_records_open_path (records, path, ST_FILE_FORMAT_AUTO),
                   ==, ST_OK);
  while ((rc = st_records_next (records, &rec)) == ST_OK)
    {
      if (rec->kind != ST_RECORD_STACK_SAMPLE)
        {
          g_assert_cmpint (st_session_add (session, rec), ==, ST_OK);
          continue;
        }
      append_chain (session, rec, out);
    }
  g_assert_cmpint (rc, ==, ST_END);
  StCounters c;
  g_assert_cmpint (st_session_get_counters (session, &c), ==, ST_OK);
  g_assert_cmpuint (c.samples, >, 100);
  g_assert_cmpuint (c.complete, >=, c.samples - 2);
  st_session_free (session);
  st_records_free (records);
  return g_string_free (out, FALSE);
}

typedef struct
{
  StCache *cache;
  guint recording;
  char *chains;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;

  j->chains = chains_of (j->cache, recordings[j->recording]);
  return NULL;
}

static StCache *
new_cache (void)
{
  StCache *cache = st_cache_new ();
  g_assert_cmpint (st_cache_set_symfs (cache, ST_DEMANGLE_DIR), ==, ST_OK);
  return cache;
}

static void
test_threads_share_a_cache (void)
{
  char *alone[N_RECORDINGS];
  Job jobs[N_THREADS];
  GThread *threads[N_THREADS];

  /* Each recording alone, with a cache of its own.  */
  for (guint i = 0; i < N_RECORDINGS; i++)
    {
      StCache *cache = new_cache ();
      alone[i] = chains_of (cache, recordings[i]);
      g_assert_cmpuint (strlen (alone[i]), >, 0);
      st_cache_free (cache);
    }

  StCache *shared = new_cache ();
  for (guint i = 0; i < N_THREADS; i++)
    {
      jobs[i] = (Job) { shared, i % N_RECORDINGS, NULL };
      threads[i] = g_thread_new ("unwinder", run_job, &jobs[i]);
    }
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  for (guint i = 0; i < N_THREADS; i++)
    {
      g_assert_cmpstr (jobs[i].chains, ==, alone[jobs[i].recording]);
      g_free (jobs[i].chains);
    }
  /* Settings are refused once sessions were made.  */
  g_assert_cmpint (st_cache_set_symfs (shared, "/"), ==, ST_E_INVALID);
  st_cache_free (shared);
  for (guint i = 0; i < N_RECORDINGS; i++)
    g_free (alone[i]);
}

/* Sessions of one cache come and go in any order: the modules' tables
   (prepared through one session, used through the others) outlive the
   session whose unwinder was made last.  A session made after another
   and freed while the first still unwound used to leave the modules it
   had prepared, but no walk had used yet, a freed budget (a heap use
   after free under ASan, found by the threaded case; silent corruption
   without).  Here in one thread: EARLY unwinds one sample (preparing
   every module of the process, walking through a few), LATE goes, and
   EARLY unwinds the rest; on each recording, and the chains are those
   of a cache of their own.  */
static void
test_sessions_outlived (void)
{
  for (guint i = 0; i < N_RECORDINGS; i++)
    {
      StCache *own = new_cache ();
      g_autofree char *alone = chains_of (own, recordings[i]);
      st_cache_free (own);

      g_autofree char *path = g_build_filename (ST_DEMANGLE_DIR,
                                                recordings[i], NULL);
      StCache *cache = new_cache ();
      StSession *early = st_session_new (cache, ST_SESSION_STITCH);
      StSession *late = st_session_new (cache, ST_SESSION_STITCH);
      StRecords *records = st_records_new ();
      GString *out = g_string_new (NULL);
      const StRecord *rec;
      int rc;

      g_assert_cmpint (st_records_open_path (records, path,
                                             ST_FILE_FORMAT_AUTO), ==, ST_OK);
      while ((rc = st_records_next (records, &rec)) == ST_OK)
        {
          if (rec->kind != ST_RECORD_STACK_SAMPLE)
            {
              g_assert_cmpint (st_session_add (early, rec), ==, ST_OK);
              continue;
            }
          append_chain (early, rec, out);
          g_clear_pointer (&late, st_session_free);
        }
      g_assert_cmpint (rc, ==, ST_END);
      g_assert_null (late);
      g_assert_cmpstr (out->str, ==, alone);
      g_string_free (out, TRUE);
      st_records_free (records);
      st_session_free (early);
      st_cache_free (cache);
    }
}

/* Wrong uses are results, not crashes.  */
static void
test_invalid (void)
{
  StCache *cache = new_cache ();
  StSession *session = st_session_new (cache, 0);
  StRecord rec;
  StChainInfo info;
  uint64_t frame;

  memset (&rec, 0, sizeof rec);
  rec.kind = ST_RECORD_MAP;
  g_assert_cmpint (st_session_unwind (session, &rec, &frame, 1, &info), ==,
                   ST_E_INVALID);
  g_assert_cmpint (st_session_unwind (NULL, &rec, &frame, 1, &info), ==,
                   ST_E_INVALID);
  g_assert_cmpint (st_session_add (session, NULL), ==, ST_E_INVALID);
  /* A sample of a process nothing is known of: failed, not a crash.  */
  rec.kind = ST_RECORD_STACK_SAMPLE;
  rec.pid = rec.tid = 4242;
  g_assert_cmpint (st_session_unwind (session, &rec, &frame, 1, &info), ==,
                   ST_OK);
  g_assert_cmpint (info.status, ==, ST_CHAIN_FAILED);
  g_assert_cmpstr (st_stop_cause_name (info.cause), !=, "?");
  st_session_free (session);
  st_cache_free (cache);

  StRecords *records = st_records_new ();
  g_assert_cmpint (st_records_open_path (records, "/nonexistent/x.data",
                                         ST_FILE_FORMAT_AUTO), ==, ST_E_IO);
  g_assert_nonnull (strstr (st_records_error (records), "/nonexistent"));
  st_records_free (records);
  g_assert_cmpstr (st_result_name (ST_E_CANCELLED), ==, "cancelled");

  /* A recorded name as the command prints it.  */
  char *safe = st_printable_name ("top\n\x1b[2Jx\xff\\");
  g_assert_cmpstr (safe, ==, "top\\n\\x1b[2Jx\\xff\\\\");
  free (safe);
  g_assert_null (st_printable_name (NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/api/session/sessions-outlived", test_sessions_outlived);
  g_test_add_func ("/api/session/threads-share-a-cache",
                   test_threads_share_a_cache);
  g_test_add_func ("/api/session/invalid", test_invalid);
  return g_test_run ();
}
