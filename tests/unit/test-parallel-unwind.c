/* Unit test of the walks on workers (parallel-unwind.h) when files are
   fetched.  The fixture capture's binary is nowhere local: walks stop in
   it and fetch it through the finder (debuginfod's place).  Samples are
   submitted one at a time and waited for with st_parallel_unwind_ready,
   which walks nothing, so that every walk is the worker's and the first
   fetch its replica's.  The conclusion on the pipeline's model must then
   ask its own cache for the file too, as a walk there would have: its
   file report and the names of --chains are the pipeline's.  Each chain
   is compared with one thread's.  */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "format/reader.h"
#include "model/file-report.h"
#include "parallel-unwind.h"
#include "sample-unwinder.h"

#define FIXTURE ST_FIXTURE_DIR "/fixture.syscap"
#define BINARY ST_FIXTURE_DIR "/st-fixture"

typedef struct
{
  pthread_t main_thread;
  guint calls;           /* (atomic) the finder's */
  guint calls_by_main;   /* (atomic) of them, on the test's thread */
} Finder;

static char *
find_fixture (StModuleFileKind kind, const char *path,
              const uint8_t *build_id, guint build_id_len, char **why,
              void *user_data)
{
  Finder *f = user_data;

  if (kind != ST_MODULE_FILE_EXECUTABLE
      || !g_str_has_suffix (path, "/st-fixture"))
    return NULL;
  __atomic_add_fetch (&f->calls, 1, __ATOMIC_SEQ_CST);
  if (pthread_equal (pthread_self (), f->main_thread))
    __atomic_add_fetch (&f->calls_by_main, 1, __ATOMIC_SEQ_CST);
  return g_strdup (BINARY);
}

/* A cache as the pipeline makes one: the fixture's build-id cache (the
   recording kernel's [vdso]), the finder, lazy fetching.  */
static StModuleCache *
cache_new (guint worker, void *user)
{
  StFileResolver *resolver = st_file_resolver_new_full (NULL, ST_FIXTURE_DIR,
                                                        NULL);
  StModuleCache *c = st_module_cache_new_with_resolver (resolver);

  st_module_cache_set_finder (c, find_fixture, user);
  st_module_cache_set_lazy_fetch (c, TRUE);
  return c;
}

/* The same without the build-id cache: [vdso] missing, as where the
   capture is read with no --symfs.  */
static StModuleCache *
cache_without_vdso_new (guint worker, void *user)
{
  StFileResolver *resolver = st_file_resolver_new_full (NULL, NULL, NULL);
  StModuleCache *c = st_module_cache_new_with_resolver (resolver);

  st_module_cache_set_finder (c, find_fixture, user);
  st_module_cache_set_lazy_fetch (c, TRUE);
  return c;
}

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  StStats *stats;
  StSampleUnwinder *su;
} Model;

static void
model_init_with (Model *m, StModuleCacheMaker make, Finder *f,
                 const StSampleUnwinderOptions *o)
{
  m->processes = st_process_table_new ();
  m->modules = make (0, f);
  m->stats = st_stats_new ();
  m->su = st_sample_unwinder_new (m->processes, m->modules, m->stats, NULL,
                                  NULL, NULL, o);
}

static void
model_init (Model *m, Finder *f, const StSampleUnwinderOptions *o)
{
  model_init_with (m, cache_new, f, o);
}

static void
model_clear (Model *m)
{
  st_process_table_free (m->processes);
  st_sample_unwinder_free (m->su);
  st_module_cache_free (m->modules);
  st_stats_free (m->stats);
}

/* The fixture binary's entry in M's file report: usable, or not listed
   (NULL) or not.  */
static const StFileEntry *
fixture_entry (Model *m)
{
  GPtrArray *all = st_file_report_all (st_module_cache_file_report (m->modules));
  const StFileEntry *found = NULL;

  for (guint i = 0; i < all->len; i++)
    {
      const StFileEntry *e = all->pdata[i];
      if (g_str_has_suffix (e->name, "/st-fixture"))
        found = e;
    }
  g_ptr_array_unref (all);
  return found;
}

static void
test_fetched_on_worker (void)
{
  Finder finder = { pthread_self (), 0, 0 };
  StSampleUnwinderOptions o = { .engine = ST_ENGINE_FAST };
  Model main_model, alone;
  GError *error = NULL;
  int fd = open (FIXTURE, O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  StReader *reader = st_reader_new (fd, ST_FORMAT_SYSPROF, &error);
  g_assert_no_error (error);
  model_init (&main_model, &finder, &o);
  model_init (&alone, &finder, &o);
  StParallelUnwind *pu = st_parallel_unwind_new (1, main_model.su, cache_new,
                                                 &finder, &o);
  g_assert_nonnull (pu);

  StEvent ev;
  guint samples = 0, unwound = 0;
  int got;
  while ((got = st_reader_next (reader, &ev, &error)) > 0)
    {
      if (st_parallel_unwind_changes_model (&ev))
        st_parallel_unwind_apply (pu, &ev);
      st_sample_unwinder_apply (main_model.su, &ev);
      if (ev.kind != ST_EVENT_STACK_USER)
        {
          st_sample_unwinder_apply (alone.su, &ev);
          continue;
        }
      st_sample_unwinder_readiness (main_model.su, &ev);
      guint calls_before = __atomic_load_n (&finder.calls, __ATOMIC_SEQ_CST);
      StParallelJob *job = st_parallel_unwind_submit (pu, &ev, FALSE);
      /* Polled, not timed: the worker's walk is what is waited for.  */
      while (!st_parallel_unwind_ready (pu, job))
        g_usleep (100);
      if (samples == 0)
        {
          /* The worker asked first (its replica), then the conclusion
             asked for the pipeline's cache.  */
          g_assert_cmpuint (finder.calls, ==, calls_before + 2);
          g_assert_cmpuint (finder.calls_by_main, ==, 1);
          const StFileEntry *e = fixture_entry (&main_model);
          g_assert_nonnull (e);
          g_assert_cmpint (e->problem, ==, ST_FILE_OK);
          g_assert_cmpstr (e->path, ==, BINARY);
        }
      StUnwound *u = st_parallel_unwind_result (pu, job);

      st_sample_unwinder_apply (alone.su, &ev);
      StUnwound *one = st_sample_unwinder_unwind (alone.su, &ev, FALSE);
      g_assert_nonnull (one);
      g_assert_cmpint (u->status, ==, one->status);
      g_assert_cmpint (u->cause, ==, one->cause);
      g_assert_cmpuint (u->n_ips, ==, one->n_ips);
      g_assert_cmpmem (u->ips, u->n_ips * sizeof (uint64_t), one->ips,
                       one->n_ips * sizeof (uint64_t));
      unwound += u->status == ST_UNWIND_COMPLETE;
      samples++;
      st_sample_unwinder_release (main_model.su, u);
      st_sample_unwinder_release (alone.su, one);
    }
  g_assert_no_error (error);
  g_assert_cmpint (got, ==, 0);
  g_test_message ("%u samples, %u complete; finder asked %u times", samples,
                  unwound, finder.calls);
  g_assert_cmpuint (samples, >, 100);
  g_assert_cmpuint (unwound, >, samples / 2);

  /* The pipeline's file report as one thread's.  */
  const StFileEntry *a = fixture_entry (&main_model);
  const StFileEntry *b = fixture_entry (&alone);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpstr (a->path, ==, b->path);
  g_assert_cmpint (a->source, ==, b->source);
  g_assert_cmpint (a->problem, ==, b->problem);
  g_assert_cmpuint (a->samples, ==, b->samples);

  st_parallel_unwind_settle (pu);
  st_parallel_unwind_free (pu);
  model_clear (&main_model);
  model_clear (&alone);
  st_reader_free (reader);
  close (fd);
}

/* Whether PC lies in [vdso] of the process of EV in M.  */
static gboolean
in_vdso (Model *m, const StEvent *ev, uint64_t pc)
{
  StProcess *p = st_process_table_lookup (m->processes, ev->pid);
  const StMap *map;

  if (p == NULL)
    return FALSE;
  map = st_address_space_find (p->maps, pc);
  return map != NULL && g_strcmp0 (map->filename, "[vdso]") == 0;
}

/* A sample whose leaf lies in a file nobody has (here [vdso]) and whose
   caller lies in a file still to be fetched: the step out of the leaf
   (by frame pointer) is only taken into a usable module, so the walk
   first stops at the leaf, in the file that cannot be fetched.  It
   must still fetch the caller's file, whether or not an earlier sample
   fetched it: walked first, on one thread and on a worker, its chain is
   the one it has after other samples.  */
static void
test_leaf_in_missing_file_first (void)
{
  Finder finder = { pthread_self (), 0, 0 };
  StSampleUnwinderOptions o = { .engine = ST_ENGINE_FAST };
  GError *error = NULL;
  int fd = open (FIXTURE, O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  StReader *reader = st_reader_new (fd, ST_FORMAT_SYSPROF, &error);
  g_assert_no_error (error);

  /* In order, as --jobs 1: the first sample fetches the binary.  */
  Model in_order, alone, main_model;
  model_init_with (&in_order, cache_without_vdso_new, &finder, &o);
  model_init_with (&alone, cache_without_vdso_new, &finder, &o);
  model_init_with (&main_model, cache_without_vdso_new, &finder, &o);
  StParallelUnwind *pu = st_parallel_unwind_new (1, main_model.su,
                                                 cache_without_vdso_new,
                                                 &finder, &o);
  g_assert_nonnull (pu);

  StEvent ev;
  guint samples = 0;
  gboolean tried = FALSE;
  int got;
  while ((got = st_reader_next (reader, &ev, &error)) > 0)
    {
      if (st_parallel_unwind_changes_model (&ev))
        st_parallel_unwind_apply (pu, &ev);
      st_sample_unwinder_apply (main_model.su, &ev);
      st_sample_unwinder_apply (in_order.su, &ev);
      st_sample_unwinder_apply (alone.su, &ev);
      if (ev.kind != ST_EVENT_STACK_USER)
        continue;
      samples++;
      StUnwound *known = st_sample_unwinder_unwind (in_order.su, &ev, FALSE);
      g_assert_nonnull (known);
      if (tried || samples < 2 || known->status != ST_UNWIND_COMPLETE
          || !in_vdso (&in_order, &ev, known->ips[0]))
        {
          st_sample_unwinder_release (in_order.su, known);
          continue;
        }
      /* The first walk of ALONE and of the worker's replica.  */
      tried = TRUE;
      StUnwound *first = st_sample_unwinder_unwind (alone.su, &ev, FALSE);
      g_assert_nonnull (first);
      st_sample_unwinder_readiness (main_model.su, &ev);
      StParallelJob *job = st_parallel_unwind_submit (pu, &ev, FALSE);
      while (!st_parallel_unwind_ready (pu, job))
        g_usleep (100);
      StUnwound *u = st_parallel_unwind_result (pu, job);
      for (guint k = 0; k < 2; k++)
        {
          StUnwound *x = k == 0 ? first : u;
          g_assert_cmpint (x->status, ==, known->status);
          g_assert_cmpuint (x->n_ips, ==, known->n_ips);
          g_assert_cmpmem (x->ips, x->n_ips * sizeof (uint64_t), known->ips,
                           known->n_ips * sizeof (uint64_t));
        }
      g_test_message ("sample %u: leaf in [vdso], %u frames", samples,
                      known->n_ips);
      st_sample_unwinder_release (in_order.su, known);
      st_sample_unwinder_release (alone.su, first);
      st_sample_unwinder_release (main_model.su, u);
    }
  g_assert_no_error (error);
  g_assert_true (tried);

  st_parallel_unwind_settle (pu);
  st_parallel_unwind_free (pu);
  model_clear (&main_model);
  model_clear (&in_order);
  model_clear (&alone);
  st_reader_free (reader);
  close (fd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parallel-unwind/fetched-on-worker",
                   test_fetched_on_worker);
  g_test_add_func ("/parallel-unwind/leaf-in-missing-file-first",
                   test_leaf_in_missing_file_first);
  return g_test_run ();
}
