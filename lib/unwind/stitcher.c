/* Stitcher: tid -> last complete chain, in an LRU list.  */
#include "config.h"

#include <string.h>

#include "unwind/stitcher.h"

typedef struct
{
  int32_t pid;
  int32_t tid;
  uint32_t exec_count;
  uint32_t n;
  uint32_t cap;        /* room in IPS and SPS: kept, chains vary */
  uint64_t *ips;
  uint64_t *sps;
  GList *lru_link;     /* in StStitcher.lru; data = this entry */
} Chain;

struct StStitcher
{
  guint max_threads;
  GHashTable *by_tid;  /* tid -> Chain* */
  GQueue lru;          /* most recently used first */
};

static void
chain_free (gpointer data)
{
  Chain *c = data;
  g_free (c->ips);
  g_free (c->sps);
  g_free (c);
}

StStitcher *
st_stitcher_new (guint max_threads)
{
  StStitcher *s = g_new0 (StStitcher, 1);
  s->max_threads = MAX (max_threads, 1);
  s->by_tid = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     chain_free);
  g_queue_init (&s->lru);
  return s;
}

void
st_stitcher_free (StStitcher *s)
{
  if (s == NULL)
    return;
  g_queue_clear (&s->lru);
  g_hash_table_destroy (s->by_tid);
  g_free (s);
}

/* TID's chain or NULL; samples come in runs of one thread, and the
   most recently remembered chain heads the LRU list.  */
static Chain *
find_chain (StStitcher *s, int32_t tid)
{
  if (s->lru.head != NULL && ((Chain *) s->lru.head->data)->tid == tid)
    return s->lru.head->data;
  return g_hash_table_lookup (s->by_tid, GINT_TO_POINTER (tid));
}

void
st_stitcher_forget_thread (StStitcher *s, int32_t tid)
{
  Chain *c = find_chain (s, tid);
  if (c == NULL)
    return;
  g_queue_delete_link (&s->lru, c->lru_link);
  g_hash_table_remove (s->by_tid, GINT_TO_POINTER (tid));
}

void
st_stitcher_remember (StStitcher *s, int32_t pid, int32_t tid,
                      uint32_t exec_count, const uint64_t *ips,
                      const uint64_t *sps, uint32_t n)
{
  Chain *c = find_chain (s, tid);

  if (c == NULL)
    {
      if (g_hash_table_size (s->by_tid) >= s->max_threads)
        st_stitcher_forget_thread (s, ((Chain *) g_queue_peek_tail (&s->lru))->tid);
      c = g_new0 (Chain, 1);
      c->tid = tid;
      g_queue_push_head (&s->lru, c);
      c->lru_link = s->lru.head;
      g_hash_table_insert (s->by_tid, GINT_TO_POINTER (tid), c);
    }
  else if (s->lru.head != c->lru_link)
    {
      g_queue_unlink (&s->lru, c->lru_link);
      g_queue_push_head_link (&s->lru, c->lru_link);
    }
  c->pid = pid;
  c->exec_count = exec_count;
  if (c->cap < n || c->ips == NULL)
    {
      c->cap = MAX (n, 32);
      c->ips = g_renew (uint64_t, c->ips, c->cap);
      c->sps = g_renew (uint64_t, c->sps, c->cap);
    }
  c->n = n;
  memcpy (c->ips, ips, n * sizeof *ips);
  memcpy (c->sps, sps, n * sizeof *sps);
}

uint32_t
st_stitcher_stitch (StStitcher *s, int32_t pid, int32_t tid,
                    uint32_t exec_count, uint64_t *ips, uint64_t *sps,
                    uint32_t *n, uint32_t max)
{
  Chain *c = find_chain (s, tid);

  if (c == NULL || *n == 0 || c->pid != pid || c->exec_count != exec_count)
    return 0;

  uint64_t pc = ips[*n - 1], sp = sps[*n - 1];
  if (sp == 0)
    return 0;
  /* The stack grows down: the matching frame, if any, is the one at the
     same stack address; search from the root end, callers are few.  */
  for (uint32_t j = c->n; j-- > 0;)
    {
      if (c->sps[j] < sp)
        break;
      if (c->sps[j] != sp || c->ips[j] != pc)
        continue;
      uint32_t added = 0;
      for (uint32_t k = j + 1; k < c->n && *n < max; k++, added++)
        {
          ips[*n] = c->ips[k];
          sps[*n] = c->sps[k];
          (*n)++;
        }
      return added;
    }
  return 0;
}

guint
st_stitcher_size (const StStitcher *s)
{
  return g_hash_table_size (s->by_tid);
}
