/* StDebuginfod without a server: off when DEBUGINFOD_URLS names none;
   against a closed port on 127.0.0.1, misses are reported, remembered
   (one query per file and kind) and shared by concurrent askers.  The
   real server is exercised by debuginfod-fallback.sh.  */
#include "config.h"

#include <arpa/inet.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model/debuginfod-fetch.h"

static const uint8_t id_a[20] = { 0x12, 0xfc, 0xe3, 0x0a, 1, 2, 3, 4, 5, 6,
                                  7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t id_b[20] = { 0xab, 0xcd };

static void
test_off (void)
{
  g_assert_null (st_debuginfod_new (NULL));
  g_assert_null (st_debuginfod_new ("  "));

  /* A NULL StDebuginfod is "off" everywhere.  */
  char *why = NULL;
  g_assert_null (st_debuginfod_find (NULL, ST_DEBUGINFOD_EXECUTABLE, id_a,
                                     sizeof id_a, &why));
  g_assert_nonnull (why);
  g_free (why);
  StDebuginfodStats stats;
  st_debuginfod_get_stats (NULL, &stats);
  g_assert_cmpuint (stats.queries, ==, 0);
}

/* Port 1 on the loopback: nothing listens there.  */
static StDebuginfod *
new_unreachable (char **cache)
{
  GError *error = NULL;

  *cache = g_dir_make_tmp ("st-debuginfod-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("DEBUGINFOD_URLS", "http://127.0.0.1:1", TRUE);
  g_setenv ("DEBUGINFOD_CACHE_PATH", *cache, TRUE);
  g_setenv ("DEBUGINFOD_TIMEOUT", "5", TRUE);
  StDebuginfod *d = st_debuginfod_new ("http://127.0.0.1:1");
  g_assert_nonnull (d);
  return d;
}

static void
remove_tree (const char *path)
{
  char *argv[] = { "rm", "-rf", (char *) path, NULL };

  g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                NULL, NULL, NULL);
}

static void
test_miss_remembered (void)
{
  char *cache = NULL;
  StDebuginfod *d = new_unreachable (&cache);
  StDebuginfodStats stats;
  char *why = NULL;

  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_EXECUTABLE, id_a,
                                     sizeof id_a, &why));
  g_assert_nonnull (why);
  g_assert_true (g_str_has_prefix (why, "debuginfod: "));
  g_clear_pointer (&why, g_free);
  /* Asked again: the remembered answer, no new query.  */
  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_EXECUTABLE, id_a,
                                     sizeof id_a, &why));
  g_assert_nonnull (why);
  g_clear_pointer (&why, g_free);
  st_debuginfod_get_stats (d, &stats);
  g_assert_cmpuint (stats.queries, ==, 1);
  g_assert_cmpuint (stats.found, ==, 0);

  /* Another kind or another build-id is another file.  */
  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_DEBUGINFO, id_a,
                                     sizeof id_a, NULL));
  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_EXECUTABLE, id_b,
                                     sizeof id_b, NULL));
  st_debuginfod_get_stats (d, &stats);
  g_assert_cmpuint (stats.queries, ==, 3);

  /* No build-id: nothing to ask.  */
  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_EXECUTABLE, id_a, 0,
                                     &why));
  g_assert_nonnull (why);
  g_free (why);
  st_debuginfod_get_stats (d, &stats);
  g_assert_cmpuint (stats.queries, ==, 3);

  st_debuginfod_free (d);
  remove_tree (cache);
  g_free (cache);
}

static gpointer
ask_a (gpointer data)
{
  StDebuginfod *d = data;

  for (int i = 0; i < 20; i++)
    g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_DEBUGINFO, id_a,
                                       sizeof id_a, NULL));
  return NULL;
}

/* Threads asking for the same file at once: one query, every thread gets
   its answer.  */
static void
test_concurrent (void)
{
  char *cache = NULL;
  StDebuginfod *d = new_unreachable (&cache);
  GThread *threads[8];
  StDebuginfodStats stats;

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("ask", ask_a, d);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  st_debuginfod_get_stats (d, &stats);
  g_assert_cmpuint (stats.queries, ==, 1);

  st_debuginfod_free (d);
  remove_tree (cache);
  g_free (cache);
}

static gpointer
ask_debuginfo (gpointer data)
{
  char *why = NULL;

  g_assert_null (st_debuginfod_find (data, ST_DEBUGINFOD_DEBUGINFO, id_b,
                                     sizeof id_b, &why));
  return why;
}

/* A server that takes the connection and never answers: a query waits
   until DEBUGINFOD_TIMEOUT, unless abandoned, and any later query is
   abandoned at once.  */
static void
test_cancel (void)
{
  int listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in addr = { .sin_family = AF_INET };
  socklen_t len = sizeof addr;
  char *cache = NULL;

  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (listener, >=, 0);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &addr, sizeof addr),
                   ==, 0);
  g_assert_cmpint (listen (listener, 4), ==, 0);
  g_assert_cmpint (getsockname (listener, (struct sockaddr *) &addr, &len),
                   ==, 0);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%d",
                                          ntohs (addr.sin_port));
  cache = g_dir_make_tmp ("st-debuginfod-XXXXXX", NULL);
  g_assert_nonnull (cache);
  /* setenv, not g_setenv (which warns once threads were started): the
     threads of the earlier cases are gone.  */
  setenv ("DEBUGINFOD_URLS", url, 1);
  setenv ("DEBUGINFOD_CACHE_PATH", cache, 1);
  setenv ("DEBUGINFOD_TIMEOUT", "60", 1);
  StDebuginfod *d = st_debuginfod_new (url);
  g_assert_nonnull (d);

  gint64 start = g_get_monotonic_time ();
  GThread *asker = g_thread_new ("ask", ask_debuginfo, d);
  g_usleep (300 * 1000);
  st_debuginfod_cancel (d);
  g_autofree char *why = g_thread_join (asker);
  /* A liveness check with a generous limit (the query gives up within a
     second or so), not a timing.  */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_assert_nonnull (why);

  g_autofree char *later = NULL;
  g_assert_null (st_debuginfod_find (d, ST_DEBUGINFOD_EXECUTABLE, id_b,
                                     sizeof id_b, &later));
  g_assert_cmpstr (later, ==, "debuginfod: abandoned");
  st_debuginfod_free (d);
  close (listener);
  remove_tree (cache);
  g_free (cache);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/debuginfod/off", test_off);
  g_test_add_func ("/debuginfod/miss-remembered", test_miss_remembered);
  g_test_add_func ("/debuginfod/concurrent", test_concurrent);
  g_test_add_func ("/debuginfod/cancel", test_cancel);
  return g_test_run ();
}
