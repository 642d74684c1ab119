/* debuginfod queries by build-id, each asked once, from any thread.  */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/debuginfod-fetch.h"
#include "model/debuginfod-library.h"

typedef struct
{
  gboolean done;
  char *path;      /* NULL: not found */
  char *why;       /* why not found */
} Answer;

struct StDebuginfod
{
  /* pthread rather than GMutex: ThreadSanitizer sees these (GLib's are
     futex-based inside libglib), and with them that a client handed from
     one worker to another through IDLE is used by one at a time.  */
  pthread_mutex_t lock;
  pthread_cond_t answered; /* some Answer became done */
  gint cancelled;          /* atomic: queries are abandoned */
  GPtrArray *idle;         /* debuginfod_client* not in use */
  GHashTable *answers;     /* "KIND:HEXID" -> Answer* */
  StDebuginfodStats stats;
};

static void
answer_free (gpointer data)
{
  Answer *a = data;

  g_free (a->path);
  g_free (a->why);
  g_free (a);
}

StDebuginfod *
st_debuginfod_new (const char *urls)
{
  if (urls == NULL || urls[strspn (urls, " \t")] == '\0')
    return NULL;

  /* Loaded here, on the caller's (main) thread; a failure is reported
     by each query (ask).  */
  st_debuginfod_library (NULL);
  StDebuginfod *d = g_new0 (StDebuginfod, 1);
  pthread_mutex_init (&d->lock, NULL);
  pthread_cond_init (&d->answered, NULL);
  d->idle = g_ptr_array_new ();
  d->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      answer_free);
  return d;
}

void
st_debuginfod_free (StDebuginfod *d)
{
  if (d == NULL)
    return;
  /* Clients exist only if the library was loaded.  */
  for (guint i = 0; i < d->idle->len; i++)
    st_debuginfod_library (NULL)->end (d->idle->pdata[i]);
  g_ptr_array_free (d->idle, TRUE);
  g_hash_table_destroy (d->answers);
  pthread_cond_destroy (&d->answered);
  pthread_mutex_destroy (&d->lock);
  g_free (d);
}

static char *
answer_key (StDebuginfodKind kind, const uint8_t *id, size_t len)
{
  GString *s = g_string_new (kind == ST_DEBUGINFOD_EXECUTABLE ? "x:" : "d:");

  for (size_t i = 0; i < len; i++)
    g_string_append_printf (s, "%02x", id[i]);
  return g_string_free (s, FALSE);
}

/* libdebuginfod calls this while a query runs (from its transfer loop,
   at least once a second): nonzero abandons the query.  */
static int
progress (debuginfod_client *client, long done, long total)
{
  StDebuginfod *d = st_debuginfod_library (NULL)->get_user_data (client);

  return g_atomic_int_get (&d->cancelled);
}

/* One query, outside the lock, on a client nobody else uses meanwhile.  */
static void
ask (StDebuginfod *d, StDebuginfodKind kind, const uint8_t *id, size_t len,
     Answer *a)
{
  const StDebuginfodLibrary *lib;
  const char *load_error = NULL;
  debuginfod_client *client;
  char *path = NULL;
  int fd;

  if ((lib = st_debuginfod_library (&load_error)) == NULL)
    {
      a->why = g_strdup_printf ("cannot load libdebuginfod: %s", load_error);
      return;
    }
  pthread_mutex_lock (&d->lock);
  client = d->idle->len > 0 ? g_ptr_array_steal_index_fast (d->idle,
                                                            d->idle->len - 1)
                            : NULL;
  pthread_mutex_unlock (&d->lock);
  if (client == NULL && (client = lib->begin ()) != NULL)
    {
      lib->set_user_data (client, d);
      lib->set_progressfn (client, progress);
    }
  if (client == NULL)
    {
      a->why = g_strdup ("cannot create a debuginfod client");
      return;
    }

  if (kind == ST_DEBUGINFOD_EXECUTABLE)
    fd = lib->find_executable (client, id, (int) len, &path);
  else
    fd = lib->find_debuginfo (client, id, (int) len, &path);
  if (fd >= 0)
    {
      close (fd);
      a->path = g_strdup (path);
    }
  else
    a->why = g_strdup_printf ("debuginfod: %s", g_strerror (-fd));
  free (path);

  pthread_mutex_lock (&d->lock);
  g_ptr_array_add (d->idle, client);
  pthread_mutex_unlock (&d->lock);
}

char *
st_debuginfod_find (StDebuginfod *d, StDebuginfodKind kind,
                    const uint8_t *build_id, size_t build_id_len, char **why)
{
  char *key;
  Answer *a;
  char *result;

  if (d == NULL || build_id_len == 0)
    {
      if (why != NULL)
        *why = g_strdup (d == NULL ? "debuginfod is off" : "no build-id");
      return NULL;
    }

  key = answer_key (kind, build_id, build_id_len);
  pthread_mutex_lock (&d->lock);
  a = g_hash_table_lookup (d->answers, key);
  if (a == NULL)
    {
      a = g_new0 (Answer, 1);
      g_hash_table_insert (d->answers, key, a);
      d->stats.queries++;
      pthread_mutex_unlock (&d->lock);

      Answer got = { 0 };
      if (g_atomic_int_get (&d->cancelled))
        got.why = g_strdup ("debuginfod: abandoned");
      else
        ask (d, kind, build_id, build_id_len, &got);

      pthread_mutex_lock (&d->lock);
      a->path = got.path;
      a->why = got.why;
      a->done = TRUE;
      if (a->path != NULL)
        d->stats.found++;
      pthread_cond_broadcast (&d->answered);
    }
  else
    {
      g_free (key);
      while (!a->done)
        pthread_cond_wait (&d->answered, &d->lock);
    }
  /* Answers are never removed: A stays valid under the lock.  */
  result = g_strdup (a->path);
  if (result == NULL && why != NULL)
    *why = g_strdup (a->why);
  pthread_mutex_unlock (&d->lock);
  return result;
}

void
st_debuginfod_cancel (StDebuginfod *d)
{
  if (d != NULL)
    g_atomic_int_set (&d->cancelled, 1);
}

void
st_debuginfod_get_stats (StDebuginfod *d, StDebuginfodStats *stats)
{
  memset (stats, 0, sizeof *stats);
  if (d == NULL)
    return;
  pthread_mutex_lock (&d->lock);
  *stats = d->stats;
  pthread_mutex_unlock (&d->lock);
}

char *
st_debuginfod_module_finder (StModuleFileKind kind, const char *path,
                             const uint8_t *build_id, guint build_id_len,
                             char **why, void *user_data)
{
  StDebuginfod *d = user_data;

  if (d == NULL || build_id_len == 0)
    return NULL;
  return st_debuginfod_find (d, kind == ST_MODULE_FILE_DEBUGINFO
                                ? ST_DEBUGINFOD_DEBUGINFO
                                : ST_DEBUGINFOD_EXECUTABLE,
                             build_id, build_id_len, why);
}
