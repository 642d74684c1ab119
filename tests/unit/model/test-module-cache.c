/* Module cache: identity by build-id or by local file, LRU bounds that
   spare modules in use, no file descriptor kept, the fallback finder.  */
#include "config.h"

#include <dirent.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "model/module-cache.h"
#include "test-gate.h"

/* Two ELF files that exist on every Debian system, with build-ids.  */
#define ELF_A "/usr/bin/true"
#define ELF_B "/usr/bin/false"

static StMap
map_of (const char *path, uint64_t inode, const StModule *with_build_id)
{
  StMap map = { 0 };

  map.start = 0x400000;
  map.end = 0x500000;
  map.inode = inode;
  map.filename = g_ref_string_new_intern (path);   /* leaked: a test */
  if (with_build_id != NULL)
    {
      map.build_id_len = with_build_id->build_id_len;
      memcpy (map.build_id, with_build_id->build_id, map.build_id_len);
    }
  return map;
}

static char *
copy_to (const char *dir, const char *name, const char *from)
{
  g_autofree char *contents = NULL;
  gsize len;
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_get_contents (from, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

static guint
open_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  guint n = 0;

  g_assert_nonnull (d);
  while (readdir (d) != NULL)
    n++;
  closedir (d);
  return n;
}

static void
test_identity (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-modcache-XXXXXX", NULL);
  g_autofree char *a1 = copy_to (dir, "a1", ELF_A);
  g_autofree char *a2 = copy_to (dir, "a2", ELF_A);
  StModuleCache *c = st_module_cache_new (NULL);

  /* Without build-ids: two files, two modules.  */
  StMap m1 = map_of (a1, 1, NULL), m2 = map_of (a2, 2, NULL);
  StModule *x = st_module_cache_get (c, &m1);
  g_assert_nonnull (x->elf);
  g_assert_cmpuint (x->build_id_len, >, 0);
  StModule *y = st_module_cache_get (c, &m2);
  g_assert_true (x != y);
  /* The same recorded mapping again: the same module.  */
  g_assert_true (st_module_cache_get (c, &m1) == x);

  /* With the build-id: one module for both paths.  */
  StMap b1 = map_of (a1, 1, x), b2 = map_of (a2, 2, x);
  StModule *z = st_module_cache_get (c, &b1);
  g_assert_true (st_module_cache_get (c, &b2) == z);

  /* A file replaced under the same path (another recorded inode) is
     another module, with the new file's build-id.  */
  g_autofree char *b = copy_to (dir, "b", ELF_B);
  g_assert_cmpint (g_rename (b, a1), ==, 0);
  StMap m3 = map_of (a1, 3, NULL);
  StModule *w = st_module_cache_get (c, &m3);
  g_assert_true (w != x);
  g_assert_nonnull (w->elf);
  g_assert_false (w->build_id_len == x->build_id_len
                  && memcmp (w->build_id, x->build_id, x->build_id_len) == 0);

  /* A build-id that does not match the file makes it unusable.  */
  StMap bad = map_of (a2, 9, x);
  bad.build_id[0] ^= 0xff;
  StModule *v = st_module_cache_get (c, &bad);
  g_assert_null (v->elf);
  g_assert_nonnull (v->error);

  st_module_cache_free (c);
  g_unlink (a1);
  g_unlink (a2);
  g_rmdir (dir);
}

static void
test_read_and_fds (void)
{
  guint before = open_fds ();
  StModuleCache *c = st_module_cache_new (NULL);
  StMap m = map_of (ELF_A, 1, NULL);
  StModule *x = st_module_cache_get (c, &m);
  g_autofree char *contents = NULL;
  gsize len;
  uint8_t buf[64];

  g_assert_nonnull (x->elf);
  /* No descriptor stays open: the contents come from libelf's map.  */
  g_assert_cmpuint (open_fds (), ==, before);
  g_assert_true (g_file_get_contents (ELF_A, &contents, &len, NULL));
  g_assert_true (st_module_read (x, 100, buf, sizeof buf));
  g_assert_cmpmem (buf, sizeof buf, contents + 100, sizeof buf);
  g_assert_false (st_module_read (x, len - 10, buf, sizeof buf));
  st_module_cache_free (c);
}

static void
test_bounds (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-modcache-XXXXXX", NULL);
  StModuleCache *c = st_module_cache_new (NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  st_module_cache_set_limits (c, 2, 0);
  for (int i = 0; i < 6; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "f%d", i);
      g_ptr_array_add (paths, copy_to (dir, name, i % 2 ? ELF_A : ELF_B));
    }

  /* One module in use, then many others come and go.  */
  StMap kept_map = map_of (paths->pdata[0], 100, NULL);
  StModule *kept = st_module_cache_acquire (c, &kept_map);
  for (guint i = 1; i < paths->len; i++)
    {
      StMap m = map_of (paths->pdata[i], 100 + i, NULL);
      g_assert_nonnull (st_module_cache_get (c, &m)->elf);
      g_assert_cmpuint (st_module_cache_size (c), <=, 2);
    }
  g_assert_cmpuint (st_module_cache_evictions (c), >=, 4);
  /* The module in use was never evicted.  */
  g_assert_true (st_module_cache_get (c, &kept_map) == kept);
  g_assert_nonnull (kept->elf);
  size_t size = kept->size;
  st_module_cache_release (c, kept);

  /* A byte bound: only one file of this size fits.  */
  st_module_cache_set_limits (c, 100, size + 1);
  StMap again = map_of (paths->pdata[3], 200, NULL);
  st_module_cache_get (c, &again);
  g_assert_cmpuint (st_module_cache_size (c), ==, 1);
  g_assert_cmpuint (st_module_cache_bytes (c), <=, size + 4096);

  st_module_cache_free (c);
  for (guint i = 0; i < paths->len; i++)
    g_unlink (paths->pdata[i]);
  g_ptr_array_unref (paths);
  g_rmdir (dir);
}

/* Modules nobody uses have a bound of their own, under the module
   bound: past it the least recently used unused one goes as a new module
   is met; the ones in use stay whatever their number.  */
static void
test_unused_bound (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-modcache-XXXXXX", NULL);
  StModuleCache *c = st_module_cache_new (NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  StModule *used[3];

  st_module_cache_set_max_unused (c, 2);
  for (int i = 0; i < 10; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "u%d", i);
      g_ptr_array_add (paths, copy_to (dir, name, i % 2 ? ELF_A : ELF_B));
    }
  for (guint i = 0; i < 3; i++)
    {
      StMap m = map_of (paths->pdata[i], 100 + i, NULL);
      used[i] = st_module_cache_acquire (c, &m);
      st_module_cache_get (c, &m);
    }
  for (guint i = 3; i < paths->len; i++)
    {
      StMap m = map_of (paths->pdata[i], 100 + i, NULL);
      g_assert_nonnull (st_module_cache_get (c, &m)->elf);
      /* The three in use, at most two unused and the new one.  */
      g_assert_cmpuint (st_module_cache_size (c), <=, 3 + 2 + 1);
    }
  g_assert_cmpuint (st_module_cache_evictions (c), ==, 7 - 3);
  for (guint i = 0; i < 3; i++)
    {
      StMap m = map_of (paths->pdata[i], 100 + i, NULL);
      g_assert_true (st_module_cache_get (c, &m) == used[i]);
      st_module_cache_release (c, used[i]);
    }
  st_module_cache_free (c);
  for (guint i = 0; i < paths->len; i++)
    g_unlink (paths->pdata[i]);
  g_ptr_array_unref (paths);
  g_rmdir (dir);
}

static char *
find_real (StModuleFileKind kind, const char *path, const uint8_t *build_id,
           guint build_id_len, char **why, void *user_data)
{
  g_assert_cmpint (kind, ==, ST_MODULE_FILE_EXECUTABLE);
  return g_strdup (user_data);
}

static void
test_finder (void)
{
  StModuleCache *c = st_module_cache_new (NULL);
  StMap m = map_of ("/nonexistent/st-test/true", 1, NULL);

  g_assert_null (st_module_cache_get (c, &m)->elf);
  st_module_cache_set_finder (c, find_real, (void *) ELF_A);
  StMap m2 = map_of ("/nonexistent/st-test/true", 2, NULL);
  StModule *x = st_module_cache_get (c, &m2);
  g_assert_nonnull (x->elf);
  g_assert_cmpstr (x->path, ==, ELF_A);
  st_module_cache_free (c);
}

static char *
find_counted (StModuleFileKind kind, const char *path,
              const uint8_t *build_id, guint build_id_len, char **why,
              void *user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return g_strdup (ELF_A);
}

/* Lazy fetching: a module with a build-id and no local file does not ask
   the finder when prepared, only when fetched; one without a build-id
   asks at once (nothing to download by).  Inline, then on workers.  */
static void
test_lazy_fetch (void)
{
  for (int workers = 0; workers <= 1; workers++)
    {
      StModuleCache *probe = st_module_cache_new (NULL);
      StMap real = map_of (ELF_A, 1, NULL);
      StModule *a = st_module_cache_get (probe, &real);
      StModuleCache *c = st_module_cache_new (NULL);
      guint calls = 0;

      st_module_cache_set_finder (c, find_counted, &calls);
      st_module_cache_set_lazy_fetch (c, TRUE);
      if (workers)
        st_module_cache_set_workers (c, 1, TRUE);
      StMap m = map_of ("/nonexistent/st-test/lazy", 1, a);
      StModule *x = st_module_cache_get (c, &m);
      if (workers)
        st_module_cache_wait_for (c, x);
      g_assert_null (x->elf);
      g_assert_true (x->fetch_deferred);
      g_assert_cmpuint (calls, ==, 0);
      g_assert_cmpint (x->problem, ==, ST_FILE_MISSING);

      uint64_t retry = st_module_cache_retry_generation (c);
      g_assert_true (st_module_cache_fetch (c, x, &m));
      g_assert_cmpuint (st_module_cache_retry_generation (c), >, retry);
      if (workers)
        {
          g_assert_false (st_module_ready (x));
          st_module_cache_wait_for (c, x);
        }
      g_assert_cmpuint (calls, ==, 1);
      g_assert_nonnull (x->elf);
      g_assert_false (x->fetch_deferred);
      g_assert_cmpint (x->source, ==, ST_FILE_SOURCE_DEBUGINFOD);
      g_assert_cmpint (x->verification, ==, ST_FILE_VERIFIED_BUILD_ID);
      /* Once only.  */
      g_assert_false (st_module_cache_fetch (c, x, &m));

      StMap plain = map_of ("/nonexistent/st-test/plain", 2, NULL);
      x = st_module_cache_get (c, &plain);
      if (workers)
        st_module_cache_wait_for (c, x);
      g_assert_cmpuint (calls, ==, 2);
      g_assert_false (x->fetch_deferred);
      st_module_cache_free (c);
      st_module_cache_free (probe);
    }
}

/* A finder that stops at a gate, then finds ELF_A, and says where it
   ran.  */
typedef struct
{
  TestGate *gate;
  GThread *thread;
  guint calls;
} GatedFinder;

static char *
find_gated (StModuleFileKind kind, const char *path, const uint8_t *build_id,
            guint build_id_len, char **why, void *user_data)
{
  GatedFinder *f = user_data;

  f->thread = g_thread_self ();
  f->calls++;
  test_gate_pass (f->gate);
  return g_strdup (ELF_A);
}

/* Preparation on workers: the main thread never waits for a module it
   did not ask to wait for, a module being prepared is never evicted
   (whatever the bounds), and it becomes ready when taken back.  */
static void
test_workers (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-modcache-XXXXXX", NULL);
  StModuleCache *c = st_module_cache_new (NULL);
  GatedFinder f = { test_gate_new () };

  st_module_cache_set_finder (c, find_gated, &f);
  st_module_cache_set_workers (c, 2, FALSE);
  g_assert_cmpuint (st_module_cache_workers (c), ==, 2);
  st_module_cache_set_limits (c, 1, 0);

  /* The slow one: its file is missing, the finder blocks.  */
  StMap slow_map = map_of ("/nonexistent/st-test/slow", 1, NULL);
  st_module_cache_prime (c, &slow_map);
  StModule *slow = st_module_cache_get (c, &slow_map);
  g_assert_false (st_module_ready (slow));
  g_assert_null (st_module_cache_get_ready (c, &slow_map));
  g_assert_cmpuint (st_module_cache_preparing (c), ==, 1);
  test_gate_wait_arrived (f.gate, 1);
  g_assert_true (f.thread != g_thread_self ());

  /* Others come and go past the bound of one module: they are prepared,
     evicted, and the slow one stays.  */
  uint64_t gen = st_module_cache_ready_generation (c);
  for (int i = 0; i < 4; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "f%d", i);
      g_autofree char *path = copy_to (dir, name, i % 2 ? ELF_A : ELF_B);
      StMap m = map_of (path, 10 + i, NULL);
      StModule *x = st_module_cache_acquire (c, &m);
      st_module_cache_wait_for (c, x);
      g_assert_true (st_module_ready (x));
      g_assert_nonnull (x->elf);
      st_module_cache_release (c, x);
      g_unlink (path);
    }
  g_assert_cmpuint (st_module_cache_ready_generation (c), !=, gen);
  g_assert_cmpuint (st_module_cache_evictions (c), >=, 3);
  g_assert_true (st_module_cache_get (c, &slow_map) == slow);
  g_assert_false (st_module_ready (slow));
  g_assert_cmpuint (st_module_cache_collect (c), ==, 0);

  /* Taken while preparing, released: still never evicted.  */
  g_assert_true (st_module_cache_acquire (c, &slow_map) == slow);
  st_module_cache_release (c, slow);

  gen = st_module_cache_ready_generation (c);
  test_gate_open (f.gate);
  st_module_cache_wait_for (c, slow);
  g_assert_true (st_module_ready (slow));
  g_assert_nonnull (slow->elf);
  g_assert_cmpstr (slow->path, ==, ELF_A);
  g_assert_cmpuint (st_module_cache_ready_generation (c), !=, gen);
  g_assert_cmpuint (st_module_cache_preparing (c), ==, 0);
  g_assert_cmpuint (st_module_cache_prepared_by_workers (c), ==, 5);
  g_assert_true (st_module_cache_get_ready (c, &slow_map) == slow);
  g_assert_false (st_module_cache_wait_any (c));   /* none in flight */
  g_assert_cmpuint (f.calls, ==, 1);

  st_module_cache_free (c);
  test_gate_free (f.gate);
  g_rmdir (dir);
}

/* With READS_WAIT, reading a module being prepared waits for it, but
   not while it is in the finder (a download); freeing the cache waits
   for a preparation that runs.  */
static void
test_workers_wait (void)
{
  StModuleCache *c = st_module_cache_new (NULL);
  GatedFinder f = { test_gate_new () };
  TestGate *first = f.gate;

  st_module_cache_set_finder (c, find_gated, &f);
  st_module_cache_set_workers (c, 1, TRUE);
  StMap m = map_of ("/nonexistent/st-test/slow2", 1, NULL);
  StModule *x = st_module_cache_get (c, &m);
  g_assert_false (st_module_ready (x));
  test_gate_wait_arrived (f.gate, 1);
  g_assert_true (st_module_fetching (x));
  g_assert_null (st_module_cache_get_ready (c, &m));
  g_assert_false (st_module_cache_wait_local (c, x));
  g_assert_false (st_module_cache_wait_any_timeout (c, 1000));
  GThread *opener = test_gate_open_later (f.gate);
  st_module_cache_wait_for (c, x);
  g_assert_true (st_module_ready (x));
  g_assert_false (st_module_fetching (x));
  g_assert_true (st_module_cache_get_ready (c, &m) == x);
  g_assert_true (st_module_cache_wait_local (c, x));
  g_assert_nonnull (x->elf);
  g_thread_join (opener);

  /* Prepared from a local file: waited for.  */
  StMap local = map_of (ELF_B, 3, NULL);
  StModule *y = st_module_cache_get_ready (c, &local);
  g_assert_nonnull (y);
  g_assert_true (st_module_ready (y));
  g_assert_nonnull (y->elf);

  /* One more, still in the finder when the cache goes.  */
  TestGate *second = test_gate_new ();
  f.gate = second;
  StMap m2 = map_of ("/nonexistent/st-test/slow3", 2, NULL);
  g_assert_false (st_module_ready (st_module_cache_get (c, &m2)));
  test_gate_wait_arrived (second, 1);
  opener = test_gate_open_later (second);
  st_module_cache_free (c);
  g_thread_join (opener);
  test_gate_free (second);
  test_gate_free (first);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!g_file_test (ELF_A, G_FILE_TEST_EXISTS)
      || !g_file_test (ELF_B, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs " ELF_A " and " ELF_B);
      return 77;
    }
  g_test_add_func ("/module-cache/identity", test_identity);
  g_test_add_func ("/module-cache/read-and-fds", test_read_and_fds);
  g_test_add_func ("/module-cache/bounds", test_bounds);
  g_test_add_func ("/module-cache/unused-bound", test_unused_bound);
  g_test_add_func ("/module-cache/finder", test_finder);
  g_test_add_func ("/module-cache/lazy-fetch", test_lazy_fetch);
  g_test_add_func ("/module-cache/workers", test_workers);
  g_test_add_func ("/module-cache/workers-wait", test_workers_wait);
  return g_test_run ();
}
