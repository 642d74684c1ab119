/* JIT names per process from real files in a scratch directory: the
   perf map of the process (under the symfs directory first), the
   jitdump files its mappings name, what a live JIT appends read after
   ST_JIT_NAMES_RECHECK misses, bad lines reported with file and line,
   other processes' maps never used, and the bound on processes.  */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "report/jit-names.h"
#include "report/jitdump.h"

typedef struct
{
  char *dir;                  /* scratch: DIR/tmp holds the perf maps */
  char *tmp;
  char *symfs;                /* DIR/symfs */
  GPtrArray *messages;
} Fixture;

static void
collect (const char *message, void *user)
{
  g_ptr_array_add (user, g_strdup (message));
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("st-jit-names-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->tmp = g_build_filename (f->dir, "tmp", NULL);
  f->symfs = g_build_filename (f->dir, "symfs", NULL);
  g_assert_cmpint (g_mkdir (f->tmp, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->symfs, 0700), ==, 0);
  f->messages = g_ptr_array_new_with_free_func (g_free);
}

static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);

  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *sub = g_build_filename (path, name, NULL);
          remove_tree (sub);
        }
      g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->tmp);
  g_free (f->symfs);
  g_ptr_array_unref (f->messages);
}

static void
write_file (const char *path, const char *text, gboolean append)
{
  FILE *fp = fopen (path, append ? "a" : "w");

  g_assert_nonnull (fp);
  fputs (text, fp);
  fclose (fp);
}

static char *
perf_map_path (const char *dir, int pid)
{
  g_autofree char *name = g_strdup_printf ("perf-%d.map", pid);
  return g_build_filename (dir, name, NULL);
}

static void
test_perf_map (Fixture *f, gconstpointer data)
{
  g_autofree char *map = perf_map_path (f->tmp, 100);
  g_autofree char *other = perf_map_path (f->tmp, 101);
  write_file (map, "1000 100 JS:*sorter bench.js:3:16\nzzz line\n", FALSE);
  write_file (other, "1000 100 another process\n", FALSE);
  StJitNames *j = st_jit_names_new (NULL, f->tmp, collect, f->messages);

  g_assert_cmpstr (st_jit_names_lookup (j, 100, 0x1010), ==,
                   "JS:*sorter bench.js:3:16");
  g_assert_null (st_jit_names_lookup (j, 100, 0x2000));
  g_assert_null (st_jit_names_lookup (j, 102, 0x1010));
  g_assert_cmpstr (st_jit_names_lookup (j, 101, 0x1010), ==,
                   "another process");
  g_assert_cmpuint (f->messages->len, ==, 1);
  g_autofree char *want = g_strdup_printf ("%s:2: no hexadecimal start "
                                           "address; line skipped", map);
  g_assert_cmpstr (f->messages->pdata[0], ==, want);
  StJitNamesCounts c;
  st_jit_names_counts (j, &c);
  g_assert_cmpuint (c.perf_maps, ==, 2);
  g_assert_cmpuint (c.named, ==, 2);
  st_jit_names_free (j);
}

/* Under --symfs, SYMFS/TMP/perf-PID.map comes first (the recording
   machine's map copied along); /tmp's is the fallback.  */
static void
test_symfs (Fixture *f, gconstpointer data)
{
  g_autofree char *under = g_build_filename (f->symfs, f->tmp, NULL);
  g_assert_cmpint (g_mkdir_with_parents (under, 0700), ==, 0);
  g_autofree char *copied = perf_map_path (under, 200);
  g_autofree char *local = perf_map_path (f->tmp, 200);
  g_autofree char *local_only = perf_map_path (f->tmp, 201);
  write_file (copied, "1000 10 recorded\n", FALSE);
  write_file (local, "1000 10 local\n", FALSE);
  write_file (local_only, "1000 10 local only\n", FALSE);
  StJitNames *j = st_jit_names_new (f->symfs, f->tmp, NULL, NULL);

  g_assert_cmpstr (st_jit_names_lookup (j, 200, 0x1000), ==, "recorded");
  g_assert_cmpstr (st_jit_names_lookup (j, 201, 0x1000), ==, "local only");
  st_jit_names_free (j);
}

/* A live JIT appends: after ST_JIT_NAMES_RECHECK misses, the lines
   added since are read (and a line cut at the first read is read
   whole).  */
static void
test_appended (Fixture *f, gconstpointer data)
{
  g_autofree char *map = perf_map_path (f->tmp, 300);
  write_file (map, "1000 10 first\n2000 10 sec", FALSE);
  StJitNames *j = st_jit_names_new (NULL, f->tmp, collect, f->messages);

  g_assert_cmpstr (st_jit_names_lookup (j, 300, 0x1000), ==, "first");
  g_assert_null (st_jit_names_lookup (j, 300, 0x2000));
  write_file (map, "ond\n3000 10 third\n", TRUE);
  guint misses = 1;
  while (st_jit_names_lookup (j, 300, 0x3000) == NULL)
    g_assert_cmpuint (++misses, <=, ST_JIT_NAMES_RECHECK + 1);
  g_assert_cmpuint (misses, ==, ST_JIT_NAMES_RECHECK);
  g_assert_cmpstr (st_jit_names_lookup (j, 300, 0x2000), ==, "second");
  g_assert_cmpuint (f->messages->len, ==, 0);
  st_jit_names_free (j);
}

static void
put32 (GByteArray *b, uint32_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put64 (GByteArray *b, uint64_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

/* A jitdump of one CODE_LOAD, written to PATH.  */
static void
write_jitdump (const char *path, uint64_t addr, const char *name)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  size_t name_len = strlen (name) + 1;

  put32 (b, ST_JITDUMP_MAGIC);
  put32 (b, 1);
  put32 (b, 40);
  put32 (b, 62);
  put32 (b, 0);
  put32 (b, 400);
  put64 (b, 0);
  put64 (b, 0);
  put32 (b, 0);
  put32 (b, (uint32_t) (16 + 40 + name_len + 4));
  put64 (b, 0);
  put32 (b, 400);
  put32 (b, 400);
  put64 (b, addr);
  put64 (b, addr);
  put64 (b, 4);
  put64 (b, 1);
  g_byte_array_append (b, (const guint8 *) name, (guint) name_len);
  g_byte_array_append (b, (const guint8 *) "\xc3\xc3\xc3\xc3", 4);
  g_assert_true (g_file_set_contents (path, (const char *) b->data,
                                      (gssize) b->len, NULL));
}

/* The jitdump a process mapped gives names; a file that is not one is
   reported once, with its name; other mappings are ignored.  */
static void
test_jitdump (Fixture *f, gconstpointer data)
{
  g_autofree char *dump = g_build_filename (f->dir, "jit-400.dump", NULL);
  g_autofree char *bad = g_build_filename (f->dir, "jit-401.dump", NULL);
  write_jitdump (dump, 0x7000, "Ljava/util/HashMap;get(Ljava/lang/Object;)");
  write_file (bad, "not a jitdump at all, but long enough for a header\n",
              FALSE);
  StJitNames *j = st_jit_names_new (NULL, f->tmp, collect, f->messages);

  st_jit_names_map (j, 400, "/usr/lib/libc.so.6");
  st_jit_names_map (j, 400, dump);
  st_jit_names_map (j, 401, bad);
  g_assert_cmpstr (st_jit_names_lookup (j, 400, 0x7002), ==,
                   "Ljava/util/HashMap;get(Ljava/lang/Object;)");
  g_assert_null (st_jit_names_lookup (j, 400, 0x7004));
  g_assert_null (st_jit_names_lookup (j, 401, 0x7002));
  g_assert_cmpuint (f->messages->len, ==, 1);
  g_autofree char *want = g_strdup_printf ("%s: offset 0: not a jitdump "
                                           "file (bad magic)", bad);
  g_assert_cmpstr (f->messages->pdata[0], ==, want);
  /* Asked again: not read (or reported) again.  */
  for (guint i = 0; i < 2 * ST_JIT_NAMES_RECHECK; i++)
    st_jit_names_lookup (j, 401, 0x7002);
  g_assert_cmpuint (f->messages->len, ==, 1);
  StJitNamesCounts c;
  st_jit_names_counts (j, &c);
  g_assert_cmpuint (c.jitdumps, ==, 2);
  st_jit_names_free (j);
}

/* More processes than the bound: the oldest make room, and are read
   again when asked.  */
static void
test_bound (Fixture *f, gconstpointer data)
{
  g_autofree char *map = perf_map_path (f->tmp, 1);
  write_file (map, "1000 10 one\n", FALSE);
  StJitNames *j = st_jit_names_new (NULL, f->tmp, NULL, NULL);

  g_assert_cmpstr (st_jit_names_lookup (j, 1, 0x1000), ==, "one");
  for (int pid = 2; pid < 2 + 2 * ST_JIT_NAMES_PROCESSES; pid++)
    g_assert_null (st_jit_names_lookup (j, pid, 0x1000));
  g_assert_cmpstr (st_jit_names_lookup (j, 1, 0x1000), ==, "one");
  st_jit_names_free (j);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/jit-names/perf-map", Fixture, NULL, fixture_set_up,
              test_perf_map, fixture_tear_down);
  g_test_add ("/jit-names/symfs", Fixture, NULL, fixture_set_up,
              test_symfs, fixture_tear_down);
  g_test_add ("/jit-names/appended", Fixture, NULL, fixture_set_up,
              test_appended, fixture_tear_down);
  g_test_add ("/jit-names/jitdump", Fixture, NULL, fixture_set_up,
              test_jitdump, fixture_tear_down);
  g_test_add ("/jit-names/bound", Fixture, NULL, fixture_set_up,
              test_bound, fixture_tear_down);
  return g_test_run ();
}
