/* Unit tests: JIT-style priming through the whole pipeline.  The fixture
   capture's binary is missing at its recorded path, so the module cache
   asks its finder, here one that holds the module's preparation at a
   gate for as long as a case needs: samples then meet a module that is
   not ready, deterministically.  Each mode is compared with sync, for
   both engines.  */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline-run.h"
#include "priming.h"
#include "test-gate.h"

#define FIXTURE ST_FIXTURE_DIR "/fixture.syscap"
#define BINARY ST_FIXTURE_DIR "/st-fixture"

typedef struct
{
  TestGate *gate;           /* NULL: found at once */
  guint open_after;         /* the check function opens it after this
                               many events (0: never) */
  const char *symfs;        /* the binary found there, not by the finder */
  guint events;
} Case;

static char *
find_fixture (StModuleFileKind kind, const char *path,
              const uint8_t *build_id, guint build_id_len, char **why,
              void *user_data)
{
  Case *c = user_data;

  if (kind != ST_MODULE_FILE_EXECUTABLE || !g_str_has_suffix (path, "/st-fixture"))
    return NULL;
  if (c->gate != NULL)
    test_gate_pass (c->gate);
  return g_strdup (BINARY);
}

/* After every event: opens the gate after OPEN_AFTER events, then gives
   the worker time to prepare the module, so that the waiting samples are
   resumed in the middle of the input.  */
static gboolean
check (void *user)
{
  Case *c = user;

  if (++c->events == c->open_after && c->gate != NULL)
    {
      test_gate_open (c->gate);
      g_usleep (200 * 1000);
    }
  return TRUE;
}

typedef struct
{
  char *chains;
  char *output;
  gsize output_len;
  StUnwindCounters total;
  StPrimingStats priming;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->chains);
  g_free (r->output);
}

static Run
run (StEngine engine, StPrimingMode priming, size_t cap, Case *c)
{
  Run r = { 0 };
  char *chains = NULL;
  size_t chains_len = 0;
  g_autofree char *out_path = NULL;
  int in_fd = open (FIXTURE, O_RDONLY | O_CLOEXEC);
  int out_fd = g_file_open_tmp ("st-priming-XXXXXX", &out_path, NULL);
  FILE *chains_file = open_memstream (&chains, &chains_len);
  StPipelineOptions opts = {
    .mode = ST_MODE_UNWIND,
    .engine = engine,
    .chains = chains_file,
    .output_format = ST_FORMAT_SYSPROF,
    .stitch = TRUE,
    .counters = TRUE,
    .symfs = c->symfs,
    /* The recording kernel's [vdso] is in the fixture's build-id cache;
       every case finds it there, whatever kernel runs the test.  */
    .buildid_dir = ST_FIXTURE_DIR,
    .finder = find_fixture,
    .finder_data = c,
    .priming = priming,
    .priming_cap = cap,
    .priming_threads = 2,
    .check = check,
    .check_data = c,
  };

  g_assert_cmpint (in_fd, >=, 0);
  g_assert_cmpint (out_fd, >=, 0);
  g_free (run_pipeline_full (in_fd, out_fd, &opts, &r.total, &r.priming));
  fclose (chains_file);
  r.chains = g_strdup (chains);
  free (chains);
  close (in_fd);
  close (out_fd);
  g_assert_true (g_file_get_contents (out_path, &r.output, &r.output_len,
                                      NULL));
  g_unlink (out_path);
  return r;
}

/* The fields of each --chains line: pid, tid, time; leaf address; all
   addresses.  */
static char **
lines (const char *chains)
{
  return g_strsplit (chains, "\n", -1);
}

static char *
field (const char *line, guint i)
{
  g_auto (GStrv) f = g_strsplit (line, "\t", -1);
  g_assert_cmpuint (g_strv_length (f), >, i);
  return g_strdup (f[i]);
}

static char *
leaf (const char *line)
{
  g_autofree char *addrs = field (line, 3);
  char *comma = strchr (addrs, ',');
  if (comma != NULL)
    *comma = '\0';
  return g_strdup (addrs);
}

/* The same samples, in the same order, each with at least its leaf, and
   the leaf the reference has (the sampled IP).  */
static void
assert_same_samples_and_leaves (const Run *ref, const Run *r)
{
  g_auto (GStrv) a = lines (ref->chains);
  g_auto (GStrv) b = lines (r->chains);

  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
  for (guint i = 0; a[i] != NULL && a[i][0] != '\0'; i++)
    {
      g_autofree char *ta = field (a[i], 2), *tb = field (b[i], 2);
      g_autofree char *la = leaf (a[i]), *lb = leaf (b[i]);
      g_assert_cmpstr (ta, ==, tb);
      g_assert_cmpstr (lb, !=, "");
      g_assert_cmpstr (la, ==, lb);
    }
}

/* Exactly what the reference gave: chains, output, nothing unprimed.  */
static void
assert_same_run (const Run *ref, const Run *r)
{
  g_assert_cmpstr (r->chains, ==, ref->chains);
  g_assert_cmpmem (r->output, r->output_len, ref->output, ref->output_len);
  g_assert_cmpuint (r->total.unprimed, ==, 0);
  g_assert_cmpuint (r->priming.forced, ==, 0);
}

static void
test_modes (gconstpointer data)
{
  StEngine engine = GPOINTER_TO_INT (data);
  Case found = { NULL };
  Run sync = run (engine, ST_PRIMING_SYNC, 0, &found);

  g_assert_cmpuint (sync.total.samples, >, 250);
  g_assert_cmpuint (sync.total.complete, ==, sync.total.samples);
  g_assert_cmpuint (sync.total.unprimed, ==, 0);
  g_assert_cmpuint (sync.priming.threads, ==, 0);

  guint n_events = found.events;

  /* defer, the module held until the input is read (the gate opens
     after its last event): every sample waits and is completed at the
     end, exactly as with sync.  */
  Case late = { test_gate_new (), n_events };
  Run defer = run (engine, ST_PRIMING_DEFER, 0, &late);
  assert_same_run (&sync, &defer);
  g_assert_cmpuint (defer.priming.waits, ==, 1);
  g_assert_cmpuint (defer.priming.deferred, ==, sync.total.samples);
  g_assert_cmpuint (defer.priming.held_max, >, 0);
  g_assert_cmpuint (defer.priming.modules_prepared, >=, 1);

  /* defer, the module ready in the middle of the input: the waiting
     samples are resumed there, still exactly as with sync.  */
  Case middle = { test_gate_new (), 150 };
  Run resumed = run (engine, ST_PRIMING_DEFER, 0, &middle);
  assert_same_run (&sync, &resumed);
  g_assert_cmpuint (resumed.priming.waits, >=, 1);
  g_assert_cmpuint (resumed.priming.deferred, >=, 50);

  /* defer with a cap of 16 KiB, the module held until the input is read:
     the oldest waiting samples go unprimed, in order, with their IP at
     least.  */
  Case capped_case = { test_gate_new (), n_events };
  Run capped = run (engine, ST_PRIMING_DEFER, 16 << 10, &capped_case);
  g_assert_cmpuint (capped.priming.forced, >=, 1);
  g_assert_cmpuint (capped.priming.stalls, >=, capped.priming.forced);
  g_assert_cmpuint (capped.total.unprimed, ==, capped.priming.forced);
  g_assert_cmpuint (capped.priming.held_max, <=, 16 << 10);
  g_assert_cmpuint (capped.total.samples, ==, sync.total.samples);
  assert_same_samples_and_leaves (&sync, &capped);

  /* A cap of 16 KiB again, the binary found locally (--symfs): the
     input is held back while it is prepared, nothing goes unprimed.  */
  Case local = { NULL, 0, ST_FIXTURE_DIR };
  Run held = run (engine, ST_PRIMING_DEFER, 16 << 10, &local);
  assert_same_run (&sync, &held);
  g_assert_cmpuint (held.priming.held_max, <=, 16 << 10);

  /* drop: the samples before the module is ready are unprimed, with
     their sampled IP; the others as with sync.  */
  Case drop_case = { test_gate_new (), 100 };
  Run drop = run (engine, ST_PRIMING_DROP, 0, &drop_case);
  g_assert_cmpuint (drop.total.unprimed, >=, 1);
  g_assert_cmpuint (drop.total.complete, <, sync.total.complete);
  g_assert_cmpuint (drop.total.complete + drop.total.unprimed, >=,
                    sync.total.complete);
  g_assert_cmpuint (drop.priming.waits, ==, 0);
  g_assert_cmpuint (drop.priming.deferred, ==, 0);
  assert_same_samples_and_leaves (&sync, &drop);

  g_test_message ("%s: %" G_GUINT64_FORMAT " samples; defer: %"
                  G_GUINT64_FORMAT " unwound late (%" G_GUINT64_FORMAT " bytes "
                  "held at most), in the middle: %" G_GUINT64_FORMAT
                  "; capped: %" G_GUINT64_FORMAT " forced; local, capped: %"
                  G_GUINT64_FORMAT " stalls; drop: %"
                  G_GUINT64_FORMAT " unprimed, %" G_GUINT64_FORMAT
                  " unwound to the root (sync: %" G_GUINT64_FORMAT ")",
                  st_engine_name (engine), sync.total.samples,
                  defer.priming.deferred, defer.priming.held_max,
                  resumed.priming.deferred, capped.priming.forced,
                  held.priming.stalls,
                  drop.total.unprimed, drop.total.complete,
                  sync.total.complete);
  run_clear (&sync);
  run_clear (&defer);
  run_clear (&resumed);
  run_clear (&capped);
  run_clear (&held);
  run_clear (&drop);
  test_gate_free (late.gate);
  test_gate_free (middle.gate);
  test_gate_free (capped_case.gate);
  test_gate_free (drop_case.gate);
}

static StEvent
event_of (StEventKind kind, int32_t pid, int32_t tid)
{
  StEvent ev = { .kind = kind, .pid = pid, .tid = tid, .cpu = -1 };
  return ev;
}

static StEvent
map_event (int32_t pid, const char *path)
{
  StEvent ev = event_of (ST_EVENT_MAP, pid, pid);

  ev.map.start = 0x400000;
  ev.map.end = 0x401000;
  ev.map.prot = 5;   /* PROT_READ | PROT_EXEC */
  ev.map.exec_known = true;
  ev.map.filename = path;
  return ev;
}

/* EV then a mapping of PATH by PID seen: the cache then knows MODULES
   modules.  */
static void
see_then_map (StPriming *pr, StModuleCache *c, const StEvent *ev,
              int32_t pid, const char *path, guint modules)
{
  StEvent map = map_event (pid, path);

  st_priming_see (pr, ev);
  st_priming_see (pr, &map);
  g_assert_cmpuint (st_module_cache_size (c), ==, modules);
}

static StEvent
fork_event (int32_t pid, int32_t tid, int32_t parent)
{
  StEvent ev = event_of (ST_EVENT_FORK, pid, tid);

  ev.fork.parent_pid = parent;
  ev.fork.parent_tid = parent;
  return ev;
}

/* Defer primes at first sight only the mappings of processes that began
   in the stream (an exec, a fork) or were sampled: a process that was
   only described (the /proc walk, perf's records of what ran before)
   has its modules prepared when its first sample needs them.  Drop
   primes every mapping (it never waits: what is not ready is cut).  The
   count of modules the cache knows tells whether a map primed.  */
static void
test_first_sight (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-priming-XXXXXX", NULL);
  const char *names[] = { "described", "exec", "forked", "sampled",
                          "after-exit" };
  char *paths[G_N_ELEMENTS (names)];
  gchar *bytes;
  gsize len;

  g_assert_true (g_file_get_contents (BINARY, &bytes, &len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      paths[i] = g_build_filename (dir, names[i], NULL);
      g_assert_true (g_file_set_contents (paths[i], bytes, (gssize) len,
                                          NULL));
    }
  g_free (bytes);

  StModuleCache *c = st_module_cache_new (NULL);
  StPriming *pr = st_priming_new (c, TRUE, ST_PRIMING_DEFER, 1, 0,
                                  (size_t) 64 << 20);
  StEvent ev;

  /* Described: nothing primed.  */
  ev = event_of (ST_EVENT_PROCESS, 10, 10);
  ev.process.comm = "described";
  see_then_map (pr, c, &ev, 10, paths[0], 0);
  /* A thread of it begun in the stream is not a new process.  */
  ev = fork_event (10, 13, 10);
  see_then_map (pr, c, &ev, 10, paths[0], 0);
  /* Exec'd in the stream: primed.  */
  ev = event_of (ST_EVENT_PROCESS, 11, 11);
  ev.process.comm = "exec";
  ev.process.exec = true;
  see_then_map (pr, c, &ev, 11, paths[1], 1);
  /* Forked in the stream: primed.  */
  ev = fork_event (12, 12, 10);
  see_then_map (pr, c, &ev, 12, paths[2], 2);
  /* Sampled: its later mappings are primed.  */
  ev = event_of (ST_EVENT_STACK_USER, 10, 13);
  see_then_map (pr, c, &ev, 10, paths[3], 3);
  /* Gone: a process reusing its pid is described until it shows it
     began or is sampled.  */
  ev = event_of (ST_EVENT_EXIT, 10, 10);
  see_then_map (pr, c, &ev, 10, paths[4], 3);
  /* Bounded: past ST_PRIMING_ACTIVE_MAX processes (their EXITs lost),
     the set starts again and 11, exec'd long ago, is described.  */
  for (int32_t pid = 100; pid < 100 + ST_PRIMING_ACTIVE_MAX; pid++)
    {
      ev = fork_event (pid, pid, 1);
      st_priming_see (pr, &ev);
    }
  ev = event_of (ST_EVENT_STACK_USER, 12, 12);
  see_then_map (pr, c, &ev, 11, paths[4], 3);

  while (st_module_cache_preparing (c) > 0)
    st_module_cache_wait_any (c);
  st_priming_free (pr);
  st_module_cache_free (c);

  /* Drop: every mapping at first sight.  */
  c = st_module_cache_new (NULL);
  pr = st_priming_new (c, TRUE, ST_PRIMING_DROP, 1, 0, (size_t) 64 << 20);
  ev = map_event (10, paths[0]);
  st_priming_see (pr, &ev);
  g_assert_cmpuint (st_module_cache_size (c), ==, 1);
  while (st_module_cache_preparing (c) > 0)
    st_module_cache_wait_any (c);
  st_priming_free (pr);
  st_module_cache_free (c);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_unlink (paths[i]);
      g_free (paths[i]);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!g_file_test (FIXTURE, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no fixture capture");
      return 77;
    }
  g_test_add_func ("/priming/first-sight", test_first_sight);
  g_test_add_data_func ("/priming/modes/fast", GINT_TO_POINTER (ST_ENGINE_FAST),
                        test_modes);
  g_test_add_data_func ("/priming/modes/dwfl", GINT_TO_POINTER (ST_ENGINE_DWFL),
                        test_modes);
  return g_test_run ();
}
