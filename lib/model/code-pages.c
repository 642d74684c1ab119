/* A least-recently-used list of whole pages, found through a hash table.
   Page buffers are allocated as the cache fills, so a run that reads
   little code holds little; at the bound the oldest page is reused.  */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/code-pages.h"
#include "model/module-cache.h"

#define MAX_PAGES (ST_CODE_PAGES_MAX_BYTES / ST_CODE_PAGE_SIZE)

typedef struct
{
  uint64_t file_id;
  uint64_t index;          /* the page's file offset / ST_CODE_PAGE_SIZE */
} PageKey;

typedef struct Page Page;
struct Page
{
  PageKey key;             /* first: the table's key points here */
  size_t valid;            /* bytes the file held in it when read */
  Page *newer, *older;
  uint8_t bytes[ST_CODE_PAGE_SIZE];
};

struct StCodePages
{
  pthread_mutex_t lock;
  GHashTable *pages;     /* (LOCK) PageKey * -> the Page holding it */
  Page *newest;          /* (LOCK) */
  Page *oldest;          /* (LOCK) */
  size_t n_pages;        /* (LOCK) */
  uint64_t n_reads;      /* (LOCK) */
  uint64_t last_file_id; /* atomic */
  gint kept_fds;         /* atomic: descriptors taken */
  gint max_kept_fds;
};

static guint
key_hash (gconstpointer p)
{
  const PageKey *k = p;
  return (guint) (((k->file_id * 0x9e3779b97f4a7c15ull) ^ k->index)
                  * 0xff51afd7ed558ccdull >> 32);
}

static gboolean
key_equal (gconstpointer a, gconstpointer b)
{
  const PageKey *x = a, *y = b;
  return x->file_id == y->file_id && x->index == y->index;
}

StCodePages *
st_code_pages_new (void)
{
  StCodePages *cp = g_new0 (StCodePages, 1);
  struct rlimit rl;

  pthread_mutex_init (&cp->lock, NULL);
  cp->pages = g_hash_table_new (key_hash, key_equal);
  /* A sixteenth of what the process may open, so that the modules'
     descriptors never crowd out the caller's.  */
  cp->max_kept_fds = ST_MODULE_MAX_KEPT_FDS;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    cp->max_kept_fds = (gint) MIN ((rlim_t) cp->max_kept_fds,
                                   rl.rlim_cur / 16);
  cp->max_kept_fds = MAX (cp->max_kept_fds, 1);
  return cp;
}

void
st_code_pages_free (StCodePages *cp)
{
  if (cp == NULL)
    return;
  for (Page *p = cp->newest, *next; p != NULL; p = next)
    {
      next = p->older;
      g_free (p);
    }
  g_hash_table_destroy (cp->pages);
  pthread_mutex_destroy (&cp->lock);
  g_free (cp);
}

uint64_t
st_code_pages_file_id (StCodePages *cp)
{
  return __atomic_add_fetch (&cp->last_file_id, 1, __ATOMIC_RELAXED);
}

gboolean
st_code_pages_take_fd (StCodePages *cp)
{
  if (g_atomic_int_add (&cp->kept_fds, 1) < cp->max_kept_fds)
    return TRUE;
  g_atomic_int_add (&cp->kept_fds, -1);
  return FALSE;
}

void
st_code_pages_drop_fd (StCodePages *cp)
{
  g_atomic_int_add (&cp->kept_fds, -1);
}

static void
unlink_page (StCodePages *cp, Page *p)
{
  if (p->newer != NULL)
    p->newer->older = p->older;
  else
    cp->newest = p->older;
  if (p->older != NULL)
    p->older->newer = p->newer;
  else
    cp->oldest = p->newer;
  p->newer = p->older = NULL;
}

static void
push_newest (StCodePages *cp, Page *p)
{
  p->older = cp->newest;
  p->newer = NULL;
  if (cp->newest != NULL)
    cp->newest->newer = p;
  cp->newest = p;
  if (cp->oldest == NULL)
    cp->oldest = p;
}

/* Reads page KEY of FD into P (short at the file's end; an error reads
   as nothing: the caller then reads through the mapping, whose guard
   tells a file that shrank).  */
static void
fill (StCodePages *cp, Page *p, const PageKey *key, int fd)
{
  ssize_t got;

  p->key = *key;
  do
    got = pread (fd, p->bytes, ST_CODE_PAGE_SIZE,
                 (off_t) (key->index * ST_CODE_PAGE_SIZE));
  while (got < 0 && errno == EINTR);
  p->valid = got > 0 ? (size_t) got : 0;
  cp->n_reads++;
}

/* The page KEY of FD, read if need be; the newest page now.  */
static Page *
get_page (StCodePages *cp, const PageKey *key, int fd)
{
  Page *p = g_hash_table_lookup (cp->pages, key);

  if (p != NULL)
    {
      if (p != cp->newest)
        {
          unlink_page (cp, p);
          push_newest (cp, p);
        }
      return p;
    }
  if (cp->n_pages < MAX_PAGES)
    {
      p = g_new0 (Page, 1);
      cp->n_pages++;
    }
  else
    {
      p = cp->oldest;
      g_hash_table_remove (cp->pages, &p->key);
      unlink_page (cp, p);
    }
  fill (cp, p, key, fd);
  g_hash_table_add (cp->pages, &p->key);
  push_newest (cp, p);
  return p;
}

gboolean
st_code_pages_read (StCodePages *cp, uint64_t file_id, int fd,
                    uint64_t offset, void *buf, size_t len)
{
  uint8_t *out = buf;
  gboolean ok = TRUE;

  if (offset > (uint64_t) G_MAXINT64 - len)
    return FALSE;
  pthread_mutex_lock (&cp->lock);
  while (len > 0)
    {
      PageKey key = { file_id, offset / ST_CODE_PAGE_SIZE };
      size_t at = (size_t) (offset % ST_CODE_PAGE_SIZE);
      size_t n = MIN (len, ST_CODE_PAGE_SIZE - at);
      const Page *p = get_page (cp, &key, fd);

      if (p->valid < at + n)
        {
          ok = FALSE;
          break;
        }
      memcpy (out, p->bytes + at, n);
      out += n;
      offset += n;
      len -= n;
    }
  pthread_mutex_unlock (&cp->lock);
  return ok;
}

size_t
st_code_pages_bytes (StCodePages *cp)
{
  pthread_mutex_lock (&cp->lock);
  size_t bytes = cp->n_pages * sizeof (Page);
  pthread_mutex_unlock (&cp->lock);
  return bytes;
}

uint64_t
st_code_pages_reads (StCodePages *cp)
{
  pthread_mutex_lock (&cp->lock);
  uint64_t n = cp->n_reads;
  pthread_mutex_unlock (&cp->lock);
  return n;
}
