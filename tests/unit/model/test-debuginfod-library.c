/* libdebuginfod loaded with dlopen (model/debuginfod-library.c).

   Present (Debian's libdebuginfod1): every function is there and does
   what libdebuginfod documents (debuginfod_begin gives a client, the
   user data set is the user data got, a query without DEBUGINFOD_URLS
   fails with -ENOSYS and writes no path); loaded once, the same table
   for every thread.  Skipped when the library is not installed.

   Absent or broken, in a child process whose LD_LIBRARY_PATH puts a
   libdebuginfod.so.1 of our making first (the loader searches it before
   its cache): a file that is not ELF, and a real shared library without
   libdebuginfod's symbols (a copy of libelf).  Then NULL, with the
   loader's message in *WHY, and NULL again on later calls.  */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/debuginfod-library.h"

#define CHILD_ENV "ST_TEST_DEBUGINFOD_CHILD"

static int
remove_one (const char *path, const struct stat *st, int flag,
            struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  return remove (path);
}

static void
remove_tree (const char *dir)
{
  g_assert_cmpint (nftw (dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), ==, 0);
}

static void
test_present (void)
{
  const char *why = "untouched";
  const StDebuginfodLibrary *lib = st_debuginfod_library (&why);

  if (lib == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("libdebuginfod not loadable: "
                                              "%s", why);
      g_test_skip (msg);
      return;
    }
  g_assert_cmpstr (why, ==, "untouched");
  g_assert_true (st_debuginfod_library (NULL) == lib);
  g_assert_nonnull (lib->begin);
  g_assert_nonnull (lib->end);
  g_assert_nonnull (lib->find_executable);
  g_assert_nonnull (lib->find_debuginfo);
  g_assert_nonnull (lib->set_progressfn);
  g_assert_nonnull (lib->set_user_data);
  g_assert_nonnull (lib->get_user_data);

  /* No server, a cache of our own: nothing leaves this machine.  */
  g_autofree char *cache = g_dir_make_tmp ("st-debuginfod-XXXXXX", NULL);
  g_setenv ("DEBUGINFOD_CACHE_PATH", cache, TRUE);
  g_unsetenv ("DEBUGINFOD_URLS");

  debuginfod_client *client = lib->begin ();
  g_assert_nonnull (client);
  int mark = 0;
  lib->set_user_data (client, &mark);
  g_assert_true (lib->get_user_data (client) == &mark);
  lib->set_progressfn (client, NULL);

  static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
  char *path = (char *) "untouched";
  g_assert_cmpint (lib->find_executable (client, id, sizeof id, &path), ==,
                   -ENOSYS);
  g_assert_cmpstr (path, ==, "untouched");
  g_assert_cmpint (lib->find_debuginfo (client, id, sizeof id, &path), ==,
                   -ENOSYS);
  g_assert_cmpstr (path, ==, "untouched");
  lib->end (client);
  remove_tree (cache);
}

static gpointer
load_in_thread (gpointer data)
{
  (void) data;
  return (gpointer) st_debuginfod_library (NULL);
}

/* Loaded once: every thread sees the same answer.  */
static void
test_threads (void)
{
  GThread *threads[8];
  gpointer first = (gpointer) st_debuginfod_library (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("load", load_in_thread, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (g_thread_join (threads[i]) == first);
}

/* Runs this program as the child with DIR first in the loader's path;
   returns what the child printed.  */
static char *
run_child (const char *dir)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  char *argv[] = { self, NULL };
  g_auto (GStrv) env = g_get_environ ();
  char *out = NULL;
  int status;

  env = g_environ_setenv (env, "LD_LIBRARY_PATH", dir, TRUE);
  env = g_environ_setenv (env, CHILD_ENV, "1", TRUE);
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

/* The child: what the loader said, twice.  */
static int
child_main (void)
{
  const char *why = NULL;
  const StDebuginfodLibrary *lib = st_debuginfod_library (&why);
  const char *again = NULL;
  const StDebuginfodLibrary *lib2 = st_debuginfod_library (&again);

  printf ("%s|%s|%s\n", lib == NULL ? "null" : "loaded",
          why != NULL ? why : "(none)", lib2 == NULL && again == why
                                        ? "same" : "different");
  return 0;
}

static void
test_not_elf (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-debuginfod-XXXXXX", NULL);
  g_autofree char *fake = g_build_filename (dir, "libdebuginfod.so.1", NULL);

  g_assert_true (g_file_set_contents (fake, "not a library", -1, NULL));
  g_autofree char *out = run_child (dir);
  g_autofree char *expected = g_strdup_printf ("null|%s: file too short|"
                                               "same\n", fake);
  g_assert_cmpstr (out, ==, expected);
  remove_tree (dir);
}

static void
test_no_symbols (void)
{
  Dl_info info;
  g_autofree char *dir = g_dir_make_tmp ("st-debuginfod-XXXXXX", NULL);
  g_autofree char *fake = g_build_filename (dir, "libdebuginfod.so.1", NULL);
  g_autofree char *copy = NULL;
  gsize len;

  /* libelf's own file: a shared library without debuginfod_*.  */
  g_assert_cmpint (dladdr ((void *) elf_version, &info), !=, 0);
  g_assert_true (g_file_get_contents (info.dli_fname, &copy, &len, NULL));
  g_assert_true (g_file_set_contents (fake, copy, len, NULL));
  g_autofree char *out = run_child (dir);
  g_assert_true (g_str_has_prefix (out, "null|"));
  g_assert_nonnull (strstr (out, "undefined symbol: debuginfod_begin"));
  g_assert_true (g_str_has_suffix (out, "|same\n"));
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  if (g_getenv (CHILD_ENV) != NULL)
    return child_main ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/debuginfod-library/present", test_present);
  g_test_add_func ("/debuginfod-library/threads", test_threads);
  g_test_add_func ("/debuginfod-library/not-elf", test_not_elf);
  g_test_add_func ("/debuginfod-library/no-symbols", test_no_symbols);
  return g_test_run ();
}
