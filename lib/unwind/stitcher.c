/* Stitcher: tid -> the frames its stack was last seen to hold, sorted by
   stack address, in an LRU list.  Frames rather than the stack words
   themselves: ~40 bytes a frame instead of the whole stack (a 140-frame
   recursion of 130-byte frames: 5.6 KiB against 18 KiB per thread), and
   the same reach, since both only know what some chain or copy covered
   (doc/ARCHITECTURE, "Stitching and the frame-pointer chain").  */
#include "config.h"

#include <string.h>

#include "unwind/stitcher.h"

/* Words of each frame's stack memory kept, from its stack pointer up:
   what a cut chain's copy must still hold there to borrow.  */
#define KNOWN_WORDS 2

/* Frames compared before borrowing: the joined one and a few below.  */
#define CHECKED_FRAMES 4

enum
{
  FRAME_LINKED = 1 << 0,  /* CALLER_PC at CALLER_SP called this frame */
  FRAME_ROOT = 1 << 1,    /* the outermost frame of the thread */
};

typedef struct
{
  uint64_t sp;
  uint64_t pc;
  uint64_t caller_sp;     /* with FRAME_LINKED */
  uint64_t caller_pc;
  /* The PC the frame before this one at the same place, called from the
     same caller, was at (so the same function), or 0: what that frame's
     stale callees link to.  */
  uint64_t alt_pc;
  uint64_t words[KNOWN_WORDS];
  uint8_t n_words;        /* of WORDS, those the copy held */
  uint8_t flags;
} KnownFrame;

/* A chain that reached the root, not merged yet: learning costs a pass
   over the frames, and a later chain whose leaf lies as deep or deeper
   replaces all it would have taught.  So complete chains wait, the
   newest with the shallowest leaf last, and are merged when a cut
   chain needs the knowledge or when there are too many (without their
   stack words then: only chains merged at once keep them).  */
#define PENDING_CHAINS 8

typedef struct
{
  uint64_t leaf_sp;       /* SPS[0], read without the chain */
  uint64_t *words;        /* one block: CAP ips, then CAP sps */
  uint32_t m;
  uint32_t cap;
} PendingChain;

#define PENDING_IPS(c) ((c)->words)
#define PENDING_SPS(c) ((c)->words + (c)->cap)

typedef struct
{
  int32_t pid;
  int32_t tid;
  uint32_t exec_count;
  uint32_t n;
  uint32_t cap;
  KnownFrame *frames;     /* ascending stack address: the leaf first */
  uint32_t n_pending;
  PendingChain pending[PENDING_CHAINS];  /* oldest first */
  uint32_t pending_units;  /* their room, in KnownFrame sizes */
  GList lru_link;         /* in StStitcher.lru; data = this entry */
} Thread;

/* A waiting chain whose words are still the caller's.  */
typedef struct
{
  const uint64_t *ips;
  const uint64_t *sps;
  uint64_t learnt;         /* its call of st_stitcher_learn_lent */
} LentChain;

struct StStitcher
{
  guint max_threads;
  guint max_frames;
  guint n_frames;          /* known in all threads, and the room of
                              their waiting chains (in frames) */
  GHashTable *by_tid;      /* tid -> Thread* */
  GQueue lru;              /* most recently used first */
  /* The newest waiting chains of LENT_THREAD, its last N_LENT, may
     still be in the caller's arrays (st_stitcher_learn_lent): their
     words are copied when due or when something reads them, unless a
     later chain drops them first, as most are.  */
  Thread *lent_thread;
  uint32_t n_lent;
  LentChain lent[ST_STITCH_LENT_CHAINS + 1];  /* oldest first */
  uint64_t n_learnt;       /* calls of st_stitcher_learn_lent */
  KnownFrame scratch[ST_STITCH_THREAD_FRAMES];
};

/* Copies the oldest lent chain's words to their place.  */
static void
settle_oldest (StStitcher *s)
{
  Thread *t = s->lent_thread;
  PendingChain *c = &t->pending[t->n_pending - s->n_lent];

  memcpy (PENDING_IPS (c), s->lent[0].ips, c->m * sizeof *s->lent[0].ips);
  memcpy (PENDING_SPS (c), s->lent[0].sps, c->m * sizeof *s->lent[0].sps);
  s->n_lent--;
  memmove (s->lent, s->lent + 1, s->n_lent * sizeof *s->lent);
}

/* Copies all lent chains: before anything reads the waiting chains or
   drops a thread, and before the caller may change its arrays.  */
static inline void
settle_lent (StStitcher *s)
{
  while (s->n_lent > 0)
    settle_oldest (s);
}

static void
thread_free (gpointer data)
{
  Thread *t = data;
  g_free (t->frames);
  for (guint i = 0; i < PENDING_CHAINS; i++)
    if (t->pending[i].words != NULL)
      g_free (t->pending[i].words);
  g_free (t);
}

StStitcher *
st_stitcher_new (guint max_threads, guint max_frames)
{
  StStitcher *s = g_new0 (StStitcher, 1);
  s->max_threads = MAX (max_threads, 1);
  s->max_frames = MAX (max_frames, ST_STITCH_THREAD_FRAMES);
  s->by_tid = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     thread_free);
  g_queue_init (&s->lru);
  return s;
}

void
st_stitcher_free (StStitcher *s)
{
  if (s == NULL)
    return;
  /* The list's links live in the threads: no g_queue_clear.  */
  g_hash_table_destroy (s->by_tid);
  g_free (s);
}

/* TID's knowledge or NULL; samples come in runs of one thread, and the
   most recently used heads the LRU list.  */
static Thread *
find_thread (StStitcher *s, int32_t tid)
{
  if (s->lru.head != NULL && ((Thread *) s->lru.head->data)->tid == tid)
    return s->lru.head->data;
  return g_hash_table_lookup (s->by_tid, GINT_TO_POINTER (tid));
}

static void
drop_thread (StStitcher *s, Thread *t)
{
  s->n_frames -= t->n + t->pending_units;
  g_queue_unlink (&s->lru, &t->lru_link);
  g_hash_table_remove (s->by_tid, GINT_TO_POINTER (t->tid));
}

void
st_stitcher_forget_thread (StStitcher *s, int32_t tid)
{
  settle_lent (s);
  Thread *t = find_thread (s, tid);

  if (t != NULL)
    drop_thread (s, t);
}

/* The first frame of T at stack address SP or above.  */
static uint32_t
lower_bound (const Thread *t, uint64_t sp)
{
  uint32_t lo = 0, hi = t->n;

  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (t->frames[mid].sp < sp)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The frame of T with PC at stack address SP, or NULL.  */
static const KnownFrame *
find_frame (const Thread *t, uint64_t pc, uint64_t sp, uint32_t *index)
{
  for (uint32_t j = lower_bound (t, sp); j < t->n && t->frames[j].sp == sp;
       j++)
    if (t->frames[j].pc == pc)
      {
        *index = j;
        return &t->frames[j];
      }
  return NULL;
}

static void merge (StStitcher *s, Thread *t, const StStackCopy *copy,
                   const uint64_t *ips, const uint64_t *sps, uint32_t m,
                   gboolean rooted);

/* Merges T's waiting chains, oldest first.  */
static void
flush_pending (StStitcher *s, Thread *t)
{
  for (uint32_t i = 0; i < t->n_pending; i++)
    {
      PendingChain *c = &t->pending[i];
      merge (s, t, NULL, PENDING_IPS (c), PENDING_SPS (c), c->m, TRUE);
    }
  t->n_pending = 0;
}

/* Merges T's oldest waiting chain, to make room for another.  */
G_GNUC_NO_INLINE static void
merge_oldest (StStitcher *s, Thread *t)
{
  PendingChain oldest = t->pending[0];

  merge (s, t, NULL, PENDING_IPS (&oldest), PENDING_SPS (&oldest), oldest.m,
         TRUE);
  memmove (t->pending, t->pending + 1,
           (PENDING_CHAINS - 1) * sizeof *t->pending);
  t->pending[PENDING_CHAINS - 1] = oldest;
  t->n_pending--;
}

/* Gives waiting chain C of T room for M frames.  */
G_GNUC_NO_INLINE static void
grow_pending (StStitcher *s, Thread *t, PendingChain *c, uint32_t m)
{
  /* Counted in the bound by the room it takes (16 bytes a frame).  Its
     old words need not move: they are replaced.  */
  uint32_t units = (2 * sizeof (uint64_t) * c->cap
                    + sizeof (KnownFrame) - 1) / sizeof (KnownFrame);
  c->cap = MAX (m, 32);
  g_free (c->words);
  c->words = g_new (uint64_t, 2 * (gsize) c->cap);
  uint32_t grown = (2 * sizeof (uint64_t) * c->cap
                    + sizeof (KnownFrame) - 1) / sizeof (KnownFrame);
  t->pending_units += grown - units;
  s->n_frames += grown - units;
}

/* Makes chain (IPS, SPS, M), rooted, wait, its words lent; drops those
   it replaces.  */
static inline void
add_pending (StStitcher *s, Thread *t, const uint64_t *ips,
             const uint64_t *sps, uint32_t m)
{
  uint32_t n_pending = t->n_pending;

  while (n_pending > 0 && t->pending[n_pending - 1].leaf_sp >= sps[0])
    n_pending--;
  /* Those dropped: the newest, the lent ones first (never copied).  */
  s->n_lent -= MIN (s->n_lent, t->n_pending - n_pending);
  t->n_pending = n_pending;
  if (G_UNLIKELY (n_pending == PENDING_CHAINS))
    merge_oldest (s, t);
  PendingChain *c = &t->pending[t->n_pending++];
  if (G_UNLIKELY (c->cap < m))
    grow_pending (s, t, c, m);
  c->leaf_sp = sps[0];
  c->m = m;
  /* Its words stay lent until due: the caller may change the arrays
     of a chain ST_STITCH_LENT_CHAINS calls later.  */
  s->lent_thread = t;
  s->lent[s->n_lent++] = (LentChain) { ips, sps, s->n_learnt };
  while (s->lent[0].learnt + ST_STITCH_LENT_CHAINS <= s->n_learnt)
    settle_oldest (s);
}

void
st_stitcher_learn (StStitcher *s, int32_t pid, int32_t tid,
                   uint32_t exec_count, const StStackCopy *copy,
                   const uint64_t *ips, const uint64_t *sps, uint32_t n,
                   gboolean rooted)
{
  st_stitcher_learn_lent (s, pid, tid, exec_count, copy, ips, sps, n,
                          rooted);
  settle_lent (s);
}

/* Whether rooted chain (SPS, M) waits to be merged.  (A chain that went
   beyond its copy, stitched, is merged at once: its frames are where
   later cut chains join.)  */
static inline gboolean
waits (const StStackCopy *copy, const uint64_t *sps, uint32_t m,
       gboolean rooted)
{
  return rooted && (copy == NULL || sps[m - 1] - copy->sp < copy->size);
}

/* Evicts the least recently used threads, never T (just used), while
   the frames held are over the bound.  */
static inline void
keep_bound (StStitcher *s, const Thread *t)
{
  while (s->n_frames > s->max_frames && s->lru.tail != &t->lru_link)
    drop_thread (s, g_queue_peek_tail (&s->lru));
}

/* Learns what st_stitcher_learn_lent does not learn inline.  */
G_GNUC_NO_INLINE static void
learn (StStitcher *s, int32_t pid, int32_t tid, uint32_t exec_count,
       const StStackCopy *copy, const uint64_t *ips, const uint64_t *sps,
       uint32_t n, gboolean rooted)
{
  /* The walks check that known stack addresses never go down; an
     unknown one (0) in the middle is rare (libdwfl without the SP): the
     frames from there on are not learnt.  */
  uint32_t m = MIN (n, ST_STITCH_THREAD_FRAMES);
  if (m > 0 && (sps[0] == 0 || sps[m - 1] == 0))
    {
      uint32_t known = 0;
      while (known < m && sps[known] != 0)
        known++;
      m = known;
    }
  settle_lent (s);
  if (m == 0)
    return;
  rooted = rooted && m == n;
  gboolean wait = waits (copy, sps, m, rooted);

  Thread *t = find_thread (s, tid);
  if (t == NULL)
    {
      if (g_hash_table_size (s->by_tid) >= s->max_threads)
        drop_thread (s, g_queue_peek_tail (&s->lru));
      t = g_new0 (Thread, 1);
      t->tid = tid;
      t->lru_link.data = t;
      g_queue_push_head_link (&s->lru, &t->lru_link);
      g_hash_table_insert (s->by_tid, GINT_TO_POINTER (tid), t);
    }
  else if (s->lru.head != &t->lru_link)
    {
      g_queue_unlink (&s->lru, &t->lru_link);
      g_queue_push_head_link (&s->lru, &t->lru_link);
    }
  if (t->pid != pid || t->exec_count != exec_count)
    {
      /* Another process with this tid, or a new image: start afresh.  */
      s->n_frames -= t->n;
      t->n = 0;
      t->n_pending = 0;
      t->pid = pid;
      t->exec_count = exec_count;
    }

  if (wait)
    add_pending (s, t, ips, sps, m);
  else
    {
      flush_pending (s, t);
      merge (s, t, copy, ips, sps, m, rooted);
    }
  keep_bound (s, t);
}

void
st_stitcher_learn_lent (StStitcher *s, int32_t pid, int32_t tid,
                        uint32_t exec_count, const StStackCopy *copy,
                        const uint64_t *ips, const uint64_t *sps, uint32_t n,
                        gboolean rooted)
{
  s->n_learnt++;
  /* Most samples: a complete chain of the thread learnt last, every
     stack address known, within its copy, made to wait (what learn
     does then, in fewer steps).  */
  GList *head = s->lru.head;
  Thread *t;
  if (rooted && n - 1 < ST_STITCH_THREAD_FRAMES && head != NULL
      && (t = head->data)->tid == tid && t->pid == pid
      && t->exec_count == exec_count && sps[0] != 0 && sps[n - 1] != 0
      && waits (copy, sps, n, rooted))
    {
      if (s->n_lent > 0 && s->lent_thread != t)
        settle_lent (s);
      add_pending (s, t, ips, sps, n);
      keep_bound (s, t);
      return;
    }
  learn (s, pid, tid, exec_count, copy, ips, sps, n, rooted);
}

/* The frame of T that F links to (its PC, or ALT_PC, equal to F's
   CALLER_PC at CALLER_SP): in *INDEX.  */
static gboolean
find_caller (const Thread *t, const KnownFrame *f, uint32_t *index)
{
  for (uint32_t j = lower_bound (t, f->caller_sp);
       j < t->n && t->frames[j].sp == f->caller_sp; j++)
    if (t->frames[j].pc == f->caller_pc || t->frames[j].alt_pc == f->caller_pc)
      {
        *index = j;
        return TRUE;
      }
  return FALSE;
}

/* The words of COPY from SP up (at most KNOWN_WORDS, while it has them).  */
static inline uint8_t
copy_words (const StStackCopy *copy, uint64_t sp, uint64_t *words)
{
  uint8_t k = 0;

  if (copy == NULL || sp < copy->sp)
    return 0;
  if (sp - copy->sp < copy->size
      && copy->size - (sp - copy->sp) >= 8 * KNOWN_WORDS)
    {
      memcpy (words, copy->bytes + (sp - copy->sp), 8 * KNOWN_WORDS);
      return KNOWN_WORDS;
    }
  for (; k < KNOWN_WORDS; k++)
    {
      uint64_t at = sp - copy->sp + 8 * (uint64_t) k;
      if (at + 8 > copy->size || at + 8 < at)
        break;
      memcpy (&words[k], copy->bytes + at, 8);
    }
  return k;
}

/* Merges chain (IPS, SPS, M) into T's knowledge.  */
static void
merge (StStitcher *s, Thread *t, const StStackCopy *copy,
       const uint64_t *ips, const uint64_t *sps, uint32_t m, gboolean rooted)
{
  /* The new chain replaces everything from its leaf to its outermost
     frame; the frames below its leaf are stale (the thread returned past
     them, though it may have built the same ones again: they serve only
     through their links, see st_stitcher_stitch); the frames above it
     stay, unless it reached the root.  In place: the replaced frames
     are read from a copy.  */
  uint32_t lo = lower_bound (t, sps[0]);
  uint32_t hi = rooted ? t->n : lower_bound (t, sps[m - 1] + 1);
  uint32_t n_new = m;

  /* The outer frames known as they are now stay as they are (their
     words too): the next sample of a thread mostly differs near the
     leaf.  The outermost must end the chain as it does; each one below
     must link to the one above.  */
  if (hi > lo && t->frames[hi - 1].sp == sps[m - 1]
      && t->frames[hi - 1].pc == ips[m - 1]
      && t->frames[hi - 1].flags == (rooted ? FRAME_ROOT : 0))
    {
      /* Pointers only here: T->frames is NULL while the thread knows
         no frame, and NULL + 0 is undefined.  */
      const KnownFrame *o = t->frames + hi - 1, *o_lo = t->frames + lo;
      const uint64_t *sp = sps + m - 1, *pc = ips + m - 1;
      while (sp > sps && o > o_lo && o[-1].sp == sp[-1] && o[-1].pc == pc[-1]
             && (o[-1].flags & FRAME_LINKED) && o[-1].caller_sp == *sp
             && o[-1].caller_pc == *pc)
        {
          sp--;
          pc--;
          o--;
        }
      n_new = sp - sps;
      hi = o - t->frames;
    }

  uint32_t n_old = hi - lo, old_n = t->n;
  KnownFrame *old = s->scratch;
  if (n_old > 0)
    memcpy (old, t->frames + lo, n_old * sizeof *old);

  /* Too many: the deepest stale frames go first, then the highest.  */
  uint32_t n_above = t->n - hi;
  uint32_t want = lo + n_new + n_above;
  if (want > ST_STITCH_THREAD_FRAMES)
    {
      uint32_t drop = MIN (lo, want - ST_STITCH_THREAD_FRAMES);
      if (drop > 0)
        memmove (t->frames, t->frames + drop,
                 (t->n - drop) * sizeof *t->frames);
      lo -= drop;
      hi -= drop;
      n_above = MIN (n_above, ST_STITCH_THREAD_FRAMES - lo - n_new);
    }
  uint32_t new_n = lo + n_new + n_above;
  if (t->cap < new_n)
    {
      t->cap = MIN (MAX (new_n, MAX (t->cap * 2, 32)),
                    ST_STITCH_THREAD_FRAMES);
      t->frames = g_renew (KnownFrame, t->frames, t->cap);
    }
  if (lo + n_new != hi)
    memmove (t->frames + lo + n_new, t->frames + hi,
             n_above * sizeof *t->frames);

  /* Each new frame linked to its caller takes over, from the replaced
     frame at its place called from the same place, the PC it had (or
     the one before) and, past the copy, the words.  */
  KnownFrame *f = t->frames + lo;
  uint32_t n_linked = MIN (n_new, m - 1);
  for (uint32_t i = 0, j = 0; i < n_linked; i++, f++)
    {
      uint64_t sp = sps[i];
      f->sp = sp;
      f->pc = ips[i];
      f->caller_sp = sps[i + 1];
      f->caller_pc = ips[i + 1];
      f->alt_pc = 0;
      f->flags = FRAME_LINKED;
      f->n_words = copy != NULL ? copy_words (copy, sp, f->words) : 0;
      while (j < n_old && old[j].sp < sp)
        j++;
      for (const KnownFrame *q = old + j; q < old + n_old && q->sp == sp; q++)
        if ((q->flags & FRAME_LINKED) && q->caller_sp == f->caller_sp
            && q->caller_pc == f->caller_pc)
          {
            /* The same caller at the same place: the same function.  */
            f->alt_pc = q->pc != f->pc ? q->pc : q->alt_pc;
            /* Beyond the copy (borrowed): the words last seen there.  */
            if (q->pc == f->pc && q->n_words > f->n_words)
              {
                memcpy (f->words, q->words, sizeof f->words);
                f->n_words = q->n_words;
              }
            break;
          }
    }
  if (n_new == m)
    {
      /* The outermost frame, new: nothing to take over (it links to no
         caller).  */
      f->sp = sps[m - 1];
      f->pc = ips[m - 1];
      f->alt_pc = 0;
      f->flags = rooted ? FRAME_ROOT : 0;
      f->n_words = copy_words (copy, f->sp, f->words);
    }
  s->n_frames = s->n_frames - old_n + new_n;
  t->n = new_n;

}

static gboolean
is_code (const StAddressSpace *maps, uint64_t w)
{
  const StMap *m = st_address_space_find (maps, w);

  return m != NULL && st_map_maybe_code (m);
}

/* Whether COPY holds at F what F remembers, as far as code addresses go
   (any word when MAPS is NULL).  */
static gboolean
words_agree (const KnownFrame *f, const StStackCopy *copy,
             const StAddressSpace *maps)
{
  uint64_t words[KNOWN_WORDS];
  uint8_t n = MIN (copy_words (copy, f->sp, words), f->n_words);

  for (uint8_t k = 0; k < n; k++)
    if (words[k] != f->words[k]
        && (maps == NULL || is_code (maps, words[k])
            || is_code (maps, f->words[k])))
      return FALSE;
  return TRUE;
}

StStitchOutcome
st_stitcher_stitch (StStitcher *s, int32_t pid, int32_t tid,
                    uint32_t exec_count, const StStackCopy *copy,
                    const StAddressSpace *maps, uint64_t *ips,
                    uint64_t *sps, uint32_t *n, uint32_t max)
{
  Thread *t = find_thread (s, tid);
  uint32_t j;

  settle_lent (s);
  if (t == NULL || *n == 0 || sps[*n - 1] == 0 || t->pid != pid
      || t->exec_count != exec_count)
    return ST_STITCH_UNKNOWN;
  flush_pending (s, t);

  const KnownFrame *join = find_frame (t, ips[*n - 1], sps[*n - 1], &j);
  if (join == NULL)
    return ST_STITCH_UNKNOWN;

  /* The borrowed frames must go on up to the thread's root, each one
     the caller its callee last saw: stale frames too, but only where
     they lead, frame by frame, to the frames the thread has now.  */
  uint32_t path[ST_STITCH_THREAD_FRAMES];
  uint32_t n_path = 0, at = j;
  while (!(t->frames[at].flags & FRAME_ROOT))
    {
      const KnownFrame *f = &t->frames[at];
      if (!(f->flags & FRAME_LINKED) || *n + n_path >= max
          || n_path >= ST_STITCH_THREAD_FRAMES)
        return (f->flags & FRAME_LINKED) ? ST_STITCH_TOO_DEEP
                                         : ST_STITCH_UNROOTED;
      if (!find_caller (t, f, &at))
        return ST_STITCH_UNROOTED;
      /* (The frame's PC as its callee saw it, which may be ALT_PC.)  */
      path[n_path++] = at;
      ips[*n + n_path - 1] = f->caller_pc;
    }

  /* What both hold must agree: the code addresses (return addresses,
     function pointers: they tell call paths apart, where locals only
     tell activations apart) in the remembered words of the joined frame
     and of the frames below it known at the same place, against the
     copy.  */
  uint32_t checked = 0;
  for (uint32_t i = *n; i-- > 1 && checked < CHECKED_FRAMES;)
    {
      uint32_t q;
      const KnownFrame *f = i + 1 == *n ? join
                            : find_frame (t, ips[i], sps[i], &q);
      if (f == NULL)
        continue;
      checked++;
      if (!words_agree (f, copy, maps))
        return ST_STITCH_REFUSED;
    }

  for (uint32_t q = 0; q < n_path; q++)
    {
      sps[*n] = t->frames[path[q]].sp;
      (*n)++;
    }
  return ST_STITCH_DONE;
}

guint
st_stitcher_size (const StStitcher *s)
{
  return g_hash_table_size (s->by_tid);
}

guint
st_stitcher_frames (const StStitcher *s)
{
  return s->n_frames;
}
