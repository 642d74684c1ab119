/* A least-recently-used list of whole pages, found through a hash table.
   Page buffers are allocated as the cache fills, so a run that reads
   little code holds little; at the bound the oldest page is reused.  */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "model/code-pages.h"

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

static GMutex lock;
static GHashTable *pages;  /* (LOCK) PageKey * -> the Page holding it */
static Page *newest;       /* (LOCK) */
static Page *oldest;       /* (LOCK) */
static size_t n_pages;     /* (LOCK) */
static uint64_t n_reads;   /* (LOCK) */
static uint64_t last_file_id;  /* atomic */

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

uint64_t
st_code_pages_file_id (void)
{
  return __atomic_add_fetch (&last_file_id, 1, __ATOMIC_RELAXED);
}

static void
unlink_page (Page *p)
{
  if (p->newer != NULL)
    p->newer->older = p->older;
  else
    newest = p->older;
  if (p->older != NULL)
    p->older->newer = p->newer;
  else
    oldest = p->newer;
  p->newer = p->older = NULL;
}

static void
push_newest (Page *p)
{
  p->older = newest;
  p->newer = NULL;
  if (newest != NULL)
    newest->newer = p;
  newest = p;
  if (oldest == NULL)
    oldest = p;
}

/* Reads page KEY of FD into P (short at the file's end; an error reads
   as nothing: the caller then reads through the mapping, whose guard
   tells a file that shrank).  */
static void
fill (Page *p, const PageKey *key, int fd)
{
  ssize_t got;

  p->key = *key;
  do
    got = pread (fd, p->bytes, ST_CODE_PAGE_SIZE,
                 (off_t) (key->index * ST_CODE_PAGE_SIZE));
  while (got < 0 && errno == EINTR);
  p->valid = got > 0 ? (size_t) got : 0;
  n_reads++;
}

/* The page KEY of FD, read if need be; the newest page now.  */
static Page *
get_page (const PageKey *key, int fd)
{
  Page *p = g_hash_table_lookup (pages, key);

  if (p != NULL)
    {
      if (p != newest)
        {
          unlink_page (p);
          push_newest (p);
        }
      return p;
    }
  if (n_pages < MAX_PAGES)
    {
      p = g_new0 (Page, 1);
      n_pages++;
    }
  else
    {
      p = oldest;
      g_hash_table_remove (pages, &p->key);
      unlink_page (p);
    }
  fill (p, key, fd);
  g_hash_table_add (pages, &p->key);
  push_newest (p);
  return p;
}

gboolean
st_code_pages_read (uint64_t file_id, int fd, uint64_t offset, void *buf,
                    size_t len)
{
  uint8_t *out = buf;
  gboolean ok = TRUE;

  if (offset > (uint64_t) G_MAXINT64 - len)
    return FALSE;
  g_mutex_lock (&lock);
  if (pages == NULL)
    pages = g_hash_table_new (key_hash, key_equal);
  while (len > 0)
    {
      PageKey key = { file_id, offset / ST_CODE_PAGE_SIZE };
      size_t at = (size_t) (offset % ST_CODE_PAGE_SIZE);
      size_t n = MIN (len, ST_CODE_PAGE_SIZE - at);
      const Page *p = get_page (&key, fd);

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
  g_mutex_unlock (&lock);
  return ok;
}

size_t
st_code_pages_bytes (void)
{
  g_mutex_lock (&lock);
  size_t bytes = n_pages * sizeof (Page);
  g_mutex_unlock (&lock);
  return bytes;
}

uint64_t
st_code_pages_reads (void)
{
  g_mutex_lock (&lock);
  uint64_t n = n_reads;
  g_mutex_unlock (&lock);
  return n;
}
