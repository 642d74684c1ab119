/* Reordering window: a queue in input order, processed in time order.
   Each held event is one block: its Pending record followed by its copy.
   With a mapped input (STABLE accepts the event's memory) the copy is
   just the StEvent; from a pipe it holds the record too.  Blocks are
   cut one after the other from chunks of CHUNK_BYTES (their exact size:
   a sample with an 8 KiB stack copy takes 8.5 KiB, not a 16 KiB size
   class), and a chunk goes back when its last block is done: blocks
   leave nearly in the order they came, so chunks empty as the window
   moves on.  Up to SPARE_CHUNKS empty chunks are kept for the next
   (with --jobs the window holds a thousand samples waiting for their
   walks, and a chunk that empties is soon wanted again: unmapped and
   mapped afresh, each cost 256 page faults and zeroing, a tenth of a
   piped run at --jobs 2 while a pipe's events were copied here; they
   still are where the reader made them, perf's compressed records);
   the others are unmapped, and st_reorder_trim
   gives back all but one, so that what a burst took (a wait for
   priming holds up to --priming-cap) goes back to the system once the
   input is idle.

   Processing may have to wait (JIT-style priming, --priming defer): the
   events released so far form a to-do list in processing order, each
   release's batch sorted by time and appended, exactly the order in
   which they are processed when nothing waits.  When PROCESS answers
   ST_REORDER_LATER, that event and every one after it in the to-do list
   wait, so that the process model never runs ahead of it, and the
   events before it in input order that are processed are still
   emitted.  */
#include "config.h"

#include <errno.h>
#include <sys/mman.h>

#include "reorder.h"

/* Bytes of the next raw-stack event's copy asked for ahead: the top of
   the stack, where the walk reads most.  */
#define PREFETCH_STACK_BYTES 2048

const char st_reorder_later;

typedef struct Chunk Chunk;
typedef struct Pending Pending;
struct Pending
{
  Pending *prev, *next;   /* the queue, input order */
  Chunk *chunk;           /* where the block is; NULL: a block of its own */
  StEvent *ev;            /* the copy, right after this record */
  size_t bytes;           /* of the block */
  size_t held;            /* counted against MAX_BYTES */
  int64_t key;            /* time, or the last time seen when it has none */
  uint64_t seq;           /* input order, to keep the sort stable */
  gboolean queued;        /* in the to-do list (or processed) */
  gboolean processed;
  void *result;
  Pending *next_emit;     /* with READY, in time order: to emit */
};

/* Chunks are mapped (not malloc'ed: glibc would raise its mapping
   threshold after the first free and keep the next ones in the heap,
   never given back); a block bigger than a quarter of a chunk is
   allocated alone.  */
#define CHUNK_BYTES ((size_t) 1 << 20)
#define BLOCK_ALIGN 16
#define SPARE_CHUNKS 8

struct Chunk
{
  size_t used;              /* bytes cut, from the chunk's start */
  size_t live;              /* blocks not done */
  Chunk *next_spare;        /* in SPARES */
};
#define CHUNK_HEAD ((sizeof (Chunk) + BLOCK_ALIGN - 1) & ~(size_t) (BLOCK_ALIGN - 1))

struct StReorder
{
  StReorderProcess process;
  StReorderEmit emit;
  void *user;
  size_t max_bytes;
  gboolean emit_in_time_order;
  StReorderReady ready;     /* emitted once READY says so (or forced) */
  Pending *emit_head, *emit_tail;  /* with READY, in time order: processed,
                                      to emit */
  StEventStable stable;
  void *stable_user;

  Pending *head, *tail;     /* input order */
  /* The first not yet queued (every one before it is): where a release
     looks from.  With READY the events processed wait in the queue for
     their results; a release walking them all each time cost a fifth of
     the pipeline's thread at --jobs 2 on a 6 GB recording.  */
  Pending *unqueued;
  Chunk *current;           /* blocks are cut from it */
  Chunk *spares;            /* empty, kept for the next (a stack) */
  guint n_spares;
  guint chunks;             /* mapped, CURRENT and SPARES included */
  size_t bytes;
  uint64_t seq;
  int64_t last_time;        /* newest time seen so far */
  int64_t watermark;        /* newest time seen before the last round_end */
  gboolean have_watermark;
  gboolean as_read;         /* key = seq, released when pushed */
  guint as_read_batch;      /* ... or when that many are unreleased */
  guint unreleased;
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
st_reorder_set_as_read_batch (StReorder *r, guint n_events)
{
  r->as_read_batch = n_events;
}

void
st_reorder_set_emit_when_ready (StReorder *r, StReorderReady ready)
{
  r->ready = ready;
}

void
st_reorder_set_stable (StReorder *r, StEventStable stable, void *user)
{
  r->stable = stable;
  r->stable_user = user;
}

/* A new chunk, or NULL when it cannot be mapped (the block is then
   allocated on its own).  */
static Chunk *
chunk_new (StReorder *r)
{
  void *m = mmap (NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  r->chunks++;
  return m;
}

/* CHUNK has no block left and is not CURRENT.  */
static void
chunk_release (StReorder *r, Chunk *c)
{
  if (r->n_spares < SPARE_CHUNKS)
    {
      c->next_spare = r->spares;
      r->spares = c;
      r->n_spares++;
      return;
    }
  munmap (c, CHUNK_BYTES);
  r->chunks--;
}

/* A block of BYTES (rounded up), cut from the current chunk.  */
static Pending *
block_new (StReorder *r, size_t bytes)
{
  bytes = (bytes + BLOCK_ALIGN - 1) & ~(size_t) (BLOCK_ALIGN - 1);
  if (bytes > CHUNK_BYTES / 4)
    {
      Pending *p = g_malloc (bytes);
      p->chunk = NULL;
      return p;
    }

  Chunk *c = r->current;
  if (c == NULL || c->used + bytes > CHUNK_BYTES)
    {
      if (c != NULL && c->live == 0)
        c->used = CHUNK_HEAD;       /* all done: reuse it from the start */
      else
        {
          if (c != NULL)
            r->current = NULL;      /* released by its last block */
          if (r->spares != NULL)
            {
              c = r->spares;
              r->spares = c->next_spare;
              r->n_spares--;
            }
          else if ((c = chunk_new (r)) == NULL)
            {
              Pending *p = g_malloc (bytes);
              p->chunk = NULL;
              return p;
            }
          c->used = CHUNK_HEAD;
          c->live = 0;
          r->current = c;
        }
    }
  Pending *p = (Pending *) ((uint8_t *) c + c->used);
  c->used += bytes;
  c->live++;
  p->chunk = c;
  return p;
}

static void
block_free (StReorder *r, Pending *p)
{
  Chunk *c = p->chunk;

  if (c == NULL)
    g_free (p);
  else if (--c->live == 0)
    {
      if (c == r->current)
        c->used = CHUNK_HEAD;
      else
        chunk_release (r, c);
    }
}

/* Unmaps the spare chunks but KEEP.  */
static void
release_spares (StReorder *r, guint keep)
{
  while (r->n_spares > keep)
    {
      Chunk *c = r->spares;
      r->spares = c->next_spare;
      r->n_spares--;
      munmap (c, CHUNK_BYTES);
      r->chunks--;
    }
}

void
st_reorder_trim (StReorder *r)
{
  if (r != NULL)
    release_spares (r, 1);
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
      block_free (r, p);
    }
  if (r->current != NULL)
    munmap (r->current, CHUNK_BYTES);
  release_spares (r, 0);
  g_ptr_array_unref (r->todo);
  g_free (r);
}

static void
unlink_pending (StReorder *r, Pending *p)
{
  if (r->unqueued == p)
    r->unqueued = p->next;
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

/* Whether P's result may be emitted now: always without READY.  */
static gboolean
ready (StReorder *r, const Pending *p)
{
  return r->ready == NULL || r->ready (p->result, r->user);
}

/* Emits what is processed, in its order, up to the first result READY
   says is not ready (FORCE: all of it).  */
static void
emit_ready (StReorder *r, gboolean force)
{
  if (r->emit_in_time_order)
    while (r->emit_head != NULL && (force || ready (r, r->emit_head)))
      {
        Pending *p = r->emit_head;
        r->emit_head = p->next_emit;
        if (r->emit_head == NULL)
          r->emit_tail = NULL;
        done (r, p);
      }
  else
    while (r->head != NULL && r->head->processed
           && (force || ready (r, r->head)))
      done (r, r->head);
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
      /* The next event's stack copy, asked for while this one is
         processed: held for a whole round, it is no longer cached when
         its turn comes, and the walk's first reads of it were the
         costliest loads of a whole run.  (Written out here: in an
         inline function GCC 12 deems the prefetches pure and drops
         them.)  */
      if (r->todo_next + 1 < todo->len)
        {
          const StEvent *next = ((Pending *) todo->pdata[r->todo_next + 1])->ev;
          if (next->kind == ST_EVENT_STACK_USER)
            /* Four lines a turn (past a short copy's end is harmless:
               prefetches never fault).  */
            for (guint at = 0; at < PREFETCH_STACK_BYTES
                               && at < next->stack.stack_size; at += 256)
              {
                __builtin_prefetch (next->stack.stack + at);
                __builtin_prefetch (next->stack.stack + at + 64);
                __builtin_prefetch (next->stack.stack + at + 128);
                __builtin_prefetch (next->stack.stack + at + 192);
              }
        }
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
        {
          if (r->ready == NULL)
            done (r, p);
          else
            {
              p->next_emit = NULL;
              if (r->emit_tail != NULL)
                r->emit_tail->next_emit = p;
              else
                r->emit_head = p;
              r->emit_tail = p;
            }
        }
    }
  if (!r->waiting)
    {
      g_ptr_array_set_size (todo, 0);
      r->todo_next = 0;
    }

  emit_ready (r, FALSE);
}

/* Appends the events with key <= LIMIT (all when ALL) not released yet
   to the to-do list, in time order, and processes.  */
static void
release (StReorder *r, int64_t limit, gboolean all)
{
  GPtrArray *todo = r->todo;
  guint batch = todo->len;

  Pending *first_left = NULL;

  if (all)
    r->unreleased = 0;
  for (Pending *p = r->unqueued; p != NULL; p = p->next)
    if (!p->queued && (all || p->key <= limit))
      {
        p->queued = TRUE;
        g_ptr_array_add (todo, p);
      }
    else if (first_left == NULL && !p->queued)
      first_left = p;
  r->unqueued = first_left;
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
  Pending *p = block_new (r, bytes);

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
  if (r->unqueued == NULL)
    r->unqueued = p;
  /* Held input counts even when it stays in the mapped file.  */
  p->held = bytes + (p->ev->raw == ev->raw ? ev->raw_len : 0);
  r->bytes += p->held;

  if (r->as_read)
    {
      if (++r->unreleased >= r->as_read_batch)
        release (r, 0, TRUE);
    }
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
      /* (What is processed and held only for READY is not the round's:
         without READY it would be gone.)  */
      if (r->ready != NULL)
        emit_ready (r, TRUE);
      if (r->bytes > r->max_bytes)
        {
          r->overflows++;
          release (r, 0, TRUE);
        }
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
  if (r->ready != NULL)
    emit_ready (r, TRUE);
}

void
st_reorder_emit_processed (StReorder *r)
{
  if (r->ready != NULL)
    emit_ready (r, TRUE);
}

size_t
st_reorder_mapped_bytes (const StReorder *r)
{
  return (size_t) r->chunks * CHUNK_BYTES;
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
