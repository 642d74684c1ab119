/* Reordering window: a queue in input order, processed in time order.  */
#include "config.h"

#include "reorder.h"

typedef struct
{
  StEvent *ev;        /* owned copy */
  int64_t key;        /* time, or the last time seen when it has none */
  uint64_t seq;       /* input order, to keep the sort stable */
  gboolean processed;
  void *result;
  GList *link;        /* in StReorder.queue */
} Pending;

struct StReorder
{
  StReorderProcess process;
  StReorderEmit emit;
  void *user;
  size_t max_bytes;
  gboolean emit_in_time_order;

  GQueue queue;             /* Pending*, input order */
  size_t bytes;
  uint64_t seq;
  int64_t last_time;        /* newest time seen so far */
  int64_t watermark;        /* newest time seen before the last round_end */
  gboolean have_watermark;
  guint overflows;
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
  g_queue_init (&r->queue);
  return r;
}

void
st_reorder_free (StReorder *r)
{
  if (r == NULL)
    return;
  /* Unflushed events are dropped only when the caller chose not to flush
     (e.g. after a write error).  */
  Pending *p;
  while ((p = g_queue_pop_head (&r->queue)) != NULL)
    {
      g_free (p->ev);
      g_free (p);
    }
  g_free (r);
}

/* Emits P and forgets it.  */
static void
done (StReorder *r, Pending *p)
{
  g_queue_delete_link (&r->queue, p->link);
  r->emit (p->ev, p->result, r->user);
  r->bytes -= sizeof *p + sizeof *p->ev + p->ev->raw_len;
  g_free (p->ev);
  g_free (p);
}

static gint
by_key (gconstpointer a, gconstpointer b)
{
  const Pending *x = *(Pending *const *) a, *y = *(Pending *const *) b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Processes the unprocessed events with key <= LIMIT (all when ALL), in
   time order, then emits the processed prefix of the queue.  */
static void
release (StReorder *r, int64_t limit, gboolean all)
{
  GPtrArray *ready = g_ptr_array_new ();

  for (GList *l = r->queue.head; l != NULL; l = l->next)
    {
      Pending *p = l->data;
      if (!p->processed && (all || p->key <= limit))
        g_ptr_array_add (ready, p);
    }
  g_ptr_array_sort (ready, by_key);
  for (guint i = 0; i < ready->len; i++)
    {
      Pending *p = ready->pdata[i];
      p->result = r->process (p->ev, r->user);
      p->processed = TRUE;
      if (r->emit_in_time_order)
        done (r, p);
    }
  g_ptr_array_unref (ready);

  Pending *p;
  while ((p = g_queue_peek_head (&r->queue)) != NULL && p->processed)
    done (r, p);
}

void
st_reorder_push (StReorder *r, const StEvent *ev)
{
  Pending *p = g_new0 (Pending, 1);

  p->ev = st_event_copy (ev);
  p->seq = r->seq++;
  if (ev->time > 0)
    r->last_time = MAX (r->last_time, ev->time);
  p->key = ev->time > 0 ? ev->time : r->last_time;
  g_queue_push_tail (&r->queue, p);
  p->link = r->queue.tail;
  r->bytes += sizeof *p + sizeof *p->ev + ev->raw_len;

  if (ev->round_end)
    {
      if (r->have_watermark)
        release (r, r->watermark, FALSE);
      r->watermark = r->last_time;
      r->have_watermark = TRUE;
    }
  if (r->bytes > r->max_bytes)
    {
      r->overflows++;
      release (r, 0, TRUE);
    }
}

void
st_reorder_flush (StReorder *r)
{
  release (r, 0, TRUE);
}

guint
st_reorder_overflows (const StReorder *r)
{
  return r->overflows;
}
