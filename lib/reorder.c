/* Reordering window: a queue in input order, processed in time order.
   Each held event is one block: its Pending record followed by its copy.
   With a mapped input (STABLE accepts the event's memory) the copy is
   just the StEvent; from a pipe it holds the record too.  Blocks are
   recycled through free lists by power-of-two size: no allocation per
   event once the window has been as full as it gets.

   Processing may have to wait (JIT-style priming, --priming defer): the
   events released so far form a to-do list in processing order, each
   release's batch sorted by time and appended, exactly the order in
   which they are processed when nothing waits.  When PROCESS answers
   ST_REORDER_LATER, that event and every one after it in the to-do list
   wait, so that the process model never runs ahead of it, and the
   events before it in input order that are processed are still
   emitted.  */
#include "config.h"

#include "reorder.h"

const char st_reorder_later;

typedef struct Pending Pending;
struct Pending
{
  Pending *prev, *next;   /* the queue, input order */
  StEvent *ev;            /* the copy, right after this record */
  size_t bytes;           /* of the block */
  size_t held;            /* counted against MAX_BYTES */
  int64_t key;            /* time, or the last time seen when it has none */
  uint64_t seq;           /* input order, to keep the sort stable */
  gboolean queued;        /* in the to-do list (or processed) */
  gboolean processed;
  void *result;
};

/* Blocks of 2^POOL_MIN_BITS .. 2^POOL_MAX_BITS bytes are recycled.  */
#define POOL_MIN_BITS 9
#define POOL_MAX_BITS 17
#define POOL_CLASSES (POOL_MAX_BITS - POOL_MIN_BITS + 1)

struct StReorder
{
  StReorderProcess process;
  StReorderEmit emit;
  void *user;
  size_t max_bytes;
  gboolean emit_in_time_order;
  StEventStable stable;
  void *stable_user;

  Pending *head, *tail;     /* input order */
  Pending *pool[POOL_CLASSES];  /* free blocks by size class */
  size_t bytes;
  uint64_t seq;
  int64_t last_time;        /* newest time seen so far */
  int64_t watermark;        /* newest time seen before the last round_end */
  gboolean have_watermark;
  gboolean as_read;         /* key = seq, released when pushed */
  guint overflows;
  GPtrArray *todo;          /* released, to process in this order */
  guint todo_next;          /* index of the next one to process */
  gboolean waiting;         /* PROCESS said ST_REORDER_LATER for it */
};

StReorder *
st_reorder_new (StReorderProcess process, StReorderEmit emit, void *user,
                size_t max_bytes, gboolean emit_in_time_order)
{
  StReorder *r = g_new0 (StReorder, 1);
  r->process = process;
  r->emit = emit;
  r->user = user;
  r->max_bytes = max_bytes;
  r->emit_in_time_order = emit_in_time_order;
  r->todo = g_ptr_array_new ();
  return r;
}

void
st_reorder_set_as_read (StReorder *r)
{
  r->as_read = TRUE;
}

void
st_reorder_set_stable (StReorder *r, StEventStable stable, void *user)
{
  r->stable = stable;
  r->stable_user = user;
}

/* The size class of a block of BYTES, or -1 when too big to recycle.  */
static int
size_class (size_t bytes)
{
  int k = 0;

  while (((size_t) 1 << (POOL_MIN_BITS + k)) < bytes)
    if (++k == POOL_CLASSES)
      return -1;
  return k;
}

static Pending *
block_new (StReorder *r, size_t *bytes)
{
  int k = size_class (*bytes);
  Pending *p;

  if (k < 0)
    return g_malloc (*bytes);
  *bytes = (size_t) 1 << (POOL_MIN_BITS + k);
  p = r->pool[k];
  if (p == NULL)
    return g_malloc (*bytes);
  r->pool[k] = p->next;
  return p;
}

static void
block_free (StReorder *r, Pending *p)
{
  int k = size_class (p->bytes);

  if (k < 0)
    {
      g_free (p);
      return;
    }
  p->next = r->pool[k];
  r->pool[k] = p;
}

void
st_reorder_free (StReorder *r)
{
  if (r == NULL)
    return;
  /* Unflushed events are dropped only when the caller chose not to flush
     (e.g. after a write error).  */
  while (r->head != NULL)
    {
      Pending *p = r->head;
      r->head = p->next;
      g_free (p);
    }
  for (int k = 0; k < POOL_CLASSES; k++)
    while (r->pool[k] != NULL)
      {
        Pending *p = r->pool[k];
        r->pool[k] = p->next;
        g_free (p);
      }
  g_ptr_array_unref (r->todo);
  g_free (r);
}

static void
unlink_pending (StReorder *r, Pending *p)
{
  if (p->prev != NULL)
    p->prev->next = p->next;
  else
    r->head = p->next;
  if (p->next != NULL)
    p->next->prev = p->prev;
  else
    r->tail = p->prev;
}

/* Emits P and forgets it.  */
static void
done (StReorder *r, Pending *p)
{
  unlink_pending (r, p);
  r->emit (p->ev, p->result, r->user);
  r->bytes -= p->held;
  block_free (r, p);
}

static gint
by_key (gconstpointer a, gconstpointer b)
{
  const Pending *x = *(Pending *const *) a, *y = *(Pending *const *) b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the N events of A by key (then input order).  perf writes a
   round nearly in order (one buffer per CPU, each in order): insertion
   sort while that holds, qsort (which allocates) past a few moves.  */
static void
sort_batch (gpointer *a, guint n)
{
  guint moves = 0;

  for (guint i = 1; i < n; i++)
    {
      gpointer x = a[i];
      guint j = i;
      while (j > 0 && by_key (&a[j - 1], &x) > 0)
        {
          a[j] = a[j - 1];
          j--;
          if (++moves > 4 * n)
            {
              a[j] = x;
              qsort (a, n, sizeof (gpointer), by_key);
              return;
            }
        }
      a[j] = x;
    }
}

/* Processes the to-do list in order until its end or an event that must
   wait (FORCE: the first one may not), then emits the processed prefix
   of the queue.  */
static void
run (StReorder *r, gboolean force)
{
  GPtrArray *todo = r->todo;

  r->waiting = FALSE;
  while (r->todo_next < todo->len)
    {
      Pending *p = todo->pdata[r->todo_next];
      void *result = r->process (p->ev, force, r->user);
      force = FALSE;
      if (result == ST_REORDER_LATER)
        {
          r->waiting = TRUE;
          break;
        }
      r->todo_next++;
      p->result = result;
      p->processed = TRUE;
      if (r->emit_in_time_order)
        done (r, p);
    }
  if (!r->waiting)
    {
      g_ptr_array_set_size (todo, 0);
      r->todo_next = 0;
    }

  while (r->head != NULL && r->head->processed)
    done (r, r->head);
}

/* Appends the events with key <= LIMIT (all when ALL) not released yet
   to the to-do list, in time order, and processes.  */
static void
release (StReorder *r, int64_t limit, gboolean all)
{
  GPtrArray *todo = r->todo;
  guint batch = todo->len;

  for (Pending *p = r->head; p != NULL; p = p->next)
    if (!p->queued && (all || p->key <= limit))
      {
        p->queued = TRUE;
        g_ptr_array_add (todo, p);
      }
  /* Sorted within the batch only: what an earlier release queued comes
     first, as it would have been processed first.  */
  if (todo->len - batch > 1)
    sort_batch (todo->pdata + batch, todo->len - batch);
  if (!r->waiting)
    run (r, FALSE);
}

void
st_reorder_push (StReorder *r, const StEvent *ev)
{
  size_t head = (sizeof (Pending) + 7) & ~(size_t) 7;
  size_t bytes = head + st_event_copy_size (ev, r->stable, r->stable_user);
  Pending *p = block_new (r, &bytes);

  p->bytes = bytes;
  p->ev = st_event_copy_to (ev, (uint8_t *) p + head, r->stable,
                            r->stable_user);
  p->queued = FALSE;
  p->processed = FALSE;
  p->result = NULL;
  p->seq = r->seq++;
  if (ev->time > 0)
    r->last_time = MAX (r->last_time, ev->time);
  p->key = r->as_read ? (int64_t) p->seq
           : ev->time > 0 ? ev->time : r->last_time;
  p->next = NULL;
  p->prev = r->tail;
  if (r->tail != NULL)
    r->tail->next = p;
  else
    r->head = p;
  r->tail = p;
  /* Held input counts even when it stays in the mapped file.  */
  p->held = bytes + (p->ev->raw == ev->raw ? ev->raw_len : 0);
  r->bytes += p->held;

  if (r->as_read)
    release (r, 0, TRUE);
  else if (ev->round_end)
    {
      if (r->have_watermark)
        release (r, r->watermark, FALSE);
      r->watermark = r->last_time;
      r->have_watermark = TRUE;
    }
  /* (While processing waits, the caller bounds what is held.)  */
  if (r->bytes > r->max_bytes && !r->waiting)
    {
      r->overflows++;
      release (r, 0, TRUE);
    }
}

gboolean
st_reorder_resume (StReorder *r, gboolean force)
{
  if (r->waiting)
    run (r, force);
  return !r->waiting;
}

gboolean
st_reorder_waiting (const StReorder *r)
{
  return r->waiting;
}

size_t
st_reorder_bytes (const StReorder *r)
{
  return r->bytes;
}

void
st_reorder_flush (StReorder *r)
{
  release (r, 0, TRUE);
  if (r->waiting)
    run (r, FALSE);
}

guint
st_reorder_overflows (const StReorder *r)
{
  return r->overflows;
}

uint64_t
st_reorder_oldest_offset (const StReorder *r)
{
  return r->head != NULL ? r->head->ev->offset : G_MAXUINT64;
}
