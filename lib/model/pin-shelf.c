/* First-sight pins lent to the workers' caches (pin-shelf.h).

   A hash table by key for the lookups and a queue in order of putting
   for the bound: both hold the same entries.  */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "model/pin-shelf.h"

typedef struct
{
  char *key;
  StFilePins pins;       /* the shelf's own descriptors */
  guint64 taken_by;      /* one bit per taker */
  GList link;            /* in ORDER; data: the entry */
} Entry;

struct StPinShelf
{
  pthread_mutex_t lock;
  guint64 all_takers;
  guint max_entries;
  GHashTable *by_key;    /* key -> Entry (owned) */
  GQueue order;          /* oldest first */
};

/* A copy of FD (-1 stays -1, and so does a copy that failed).  */
static int
copy_fd (int fd)
{
  return fd >= 0 ? fcntl (fd, F_DUPFD_CLOEXEC, 0) : -1;
}

static void
entry_free (void *data)
{
  Entry *e = data;

  st_file_pins_close (&e->pins);
  g_free (e->key);
  g_free (e);
}

StPinShelf *
st_pin_shelf_new (guint n_takers, guint max_entries)
{
  g_return_val_if_fail (n_takers > 0 && n_takers <= ST_PIN_SHELF_MAX_TAKERS,
                        NULL);

  StPinShelf *s = g_new0 (StPinShelf, 1);
  pthread_mutex_init (&s->lock, NULL);
  s->all_takers = n_takers == 64 ? G_MAXUINT64
                                 : (G_GUINT64_CONSTANT (1) << n_takers) - 1;
  s->max_entries = MAX (max_entries, 1);
  s->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                     entry_free);
  g_queue_init (&s->order);
  return s;
}

void
st_pin_shelf_free (StPinShelf *s)
{
  if (s == NULL)
    return;
  g_hash_table_destroy (s->by_key);
  pthread_mutex_destroy (&s->lock);
  g_free (s);
}

/* E out of the shelf, its descriptors closed.  (LOCK held.)  */
static void
remove_locked (StPinShelf *s, Entry *e)
{
  g_queue_unlink (&s->order, &e->link);
  g_hash_table_remove (s->by_key, e->key);
}

void
st_pin_shelf_put (StPinShelf *s, const char *key, const StFilePins *pins)
{
  if (!st_file_pins_any (pins))
    return;
  pthread_mutex_lock (&s->lock);
  if (g_hash_table_contains (s->by_key, key))
    {
      pthread_mutex_unlock (&s->lock);
      return;
    }
  if (g_queue_get_length (&s->order) >= s->max_entries)
    remove_locked (s, g_queue_peek_head (&s->order));
  Entry *e = g_new0 (Entry, 1);
  e->key = g_strdup (key);
  e->pins.root_fd = copy_fd (pins->root_fd);
  e->pins.map_fd = copy_fd (pins->map_fd);
  e->link.data = e;
  g_queue_push_tail_link (&s->order, &e->link);
  g_hash_table_insert (s->by_key, e->key, e);
  pthread_mutex_unlock (&s->lock);
}

gboolean
st_pin_shelf_take (StPinShelf *s, const char *key, guint taker,
                   StFilePins *pins)
{
  guint64 bit = G_GUINT64_CONSTANT (1) << taker;

  *pins = ST_FILE_PINS_NONE;
  g_return_val_if_fail (taker < ST_PIN_SHELF_MAX_TAKERS, FALSE);
  pthread_mutex_lock (&s->lock);
  Entry *e = g_hash_table_lookup (s->by_key, key);
  if (e == NULL || (e->taken_by & bit) != 0)
    {
      pthread_mutex_unlock (&s->lock);
      return FALSE;
    }
  pins->root_fd = copy_fd (e->pins.root_fd);
  pins->map_fd = copy_fd (e->pins.map_fd);
  e->taken_by |= bit;
  if ((e->taken_by & s->all_takers) == s->all_takers)
    remove_locked (s, e);
  pthread_mutex_unlock (&s->lock);
  return st_file_pins_any (pins);
}

guint
st_pin_shelf_size (StPinShelf *s)
{
  pthread_mutex_lock (&s->lock);
  guint n = g_queue_get_length (&s->order);
  pthread_mutex_unlock (&s->lock);
  return n;
}
