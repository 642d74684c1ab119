#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include "format/map-pager.h"

/* Filled in steps of this much, so that a release asked for meanwhile
   is not kept waiting behind a long fill.  */
#define POPULATE_STEP (4u << 20)
/* Pages asked to be given back and still mapped, at most: beyond, the
   reader gives them back itself (the thread starved of a processor,
   say), so that what stays resident is bounded whatever the load.  */
#define MAX_RELEASE_LAG (16u << 20)

struct StMapPager
{
  uint8_t *map;
  size_t len;
  pthread_t thread;

  /* pthread rather than GMutex: ThreadSanitizer sees it.  */
  pthread_mutex_t lock;
  pthread_cond_t asked;
  /* Under LOCK: what the reader asked for, and how far the page tables
     are filled and the pages given back (by either thread: both calls
     may be made twice, each is idempotent).  */
  uint64_t want_populated;
  uint64_t want_released;
  uint64_t populated;
  uint64_t released;
  gboolean stop;
  gboolean held;                /* st_map_pager_set_held */
  int met_end;                  /* (atomic) */
};

static void
fill (StMapPager *p, uint64_t from, size_t n)
{
  if (madvise (p->map + from, n, MADV_POPULATE_READ) != 0 && errno == EFAULT)
    __atomic_store_n (&p->met_end, 1, __ATOMIC_RELEASE);
}

static void *
pager_run (void *data)
{
  StMapPager *p = data;
  struct sched_param idle = { 0 };

  /* Only a processor nobody else wants: the reader and --jobs' workers
     are what the run waits for, and the reader does whatever the pager
     is late for itself.  Refused (a sandbox): the ordinary policy.  */
  pthread_setschedparam (pthread_self (), SCHED_IDLE, &idle);
  pthread_mutex_lock (&p->lock);
  while (!p->stop)
    {
      if (!p->held && p->released < p->want_released)
        {
          /* Given back first: the bound on what stays mapped.  */
          uint64_t from = p->released, to = p->want_released;
          pthread_mutex_unlock (&p->lock);
          madvise (p->map + from, to - from, MADV_DONTNEED);
          pthread_mutex_lock (&p->lock);
          p->released = MAX (p->released, to);
          /* (Filling below what is given back would map it again.)  */
          p->populated = MAX (p->populated, p->released);
        }
      else if (!p->held && p->populated < p->want_populated
               && !__atomic_load_n (&p->met_end, __ATOMIC_RELAXED))
        {
          /* (madvise wants a page-aligned start.)  */
          uint64_t from = p->populated & ~(uint64_t) 4095;
          size_t n = MIN ((size_t) POPULATE_STEP,
                          (size_t) (p->want_populated - from));
          pthread_mutex_unlock (&p->lock);
          fill (p, from, n);
          pthread_mutex_lock (&p->lock);
          p->populated = MAX (p->populated, from + n);
          if (from < p->released)
            {
              /* The reader gave back part of it meanwhile (this thread
                 was late): again, or it would stay mapped.  */
              uint64_t to = MIN (from + n, p->released);
              pthread_mutex_unlock (&p->lock);
              madvise (p->map + from, to - from, MADV_DONTNEED);
              pthread_mutex_lock (&p->lock);
            }
        }
      else
        pthread_cond_wait (&p->asked, &p->lock);
    }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

StMapPager *
st_map_pager_new (uint8_t *map, size_t len, uint64_t populated,
                  uint64_t released)
{
  StMapPager *p = g_new0 (StMapPager, 1);

  p->map = map;
  p->len = len;
  p->populated = p->want_populated = populated;
  p->released = p->want_released = released;
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->asked, NULL);
  if (pthread_create (&p->thread, NULL, pager_run, p) != 0)
    {
      pthread_cond_destroy (&p->asked);
      pthread_mutex_destroy (&p->lock);
      g_free (p);
      return NULL;
    }
  return p;
}

void
st_map_pager_free (StMapPager *p)
{
  if (p == NULL)
    return;
  pthread_mutex_lock (&p->lock);
  p->stop = TRUE;
  pthread_cond_signal (&p->asked);
  pthread_mutex_unlock (&p->lock);
  pthread_join (p->thread, NULL);
  pthread_cond_destroy (&p->asked);
  pthread_mutex_destroy (&p->lock);
  g_free (p);
}

void
st_map_pager_populate (StMapPager *p, uint64_t upto, uint64_t ahead)
{
  gboolean late = FALSE;
  uint64_t from = 0;

  upto = MIN (upto, (uint64_t) p->len);
  pthread_mutex_lock (&p->lock);
  if (p->populated < upto && !__atomic_load_n (&p->met_end, __ATOMIC_RELAXED))
    {
      /* The thread is late: what is needed now, filled here.  */
      late = TRUE;
      from = MAX (p->populated, p->released) & ~(uint64_t) 4095;
      p->populated = upto;
    }
  uint64_t want = MIN (upto + ahead, (uint64_t) p->len);
  if (want > p->want_populated)
    {
      p->want_populated = want;
      pthread_cond_signal (&p->asked);
    }
  pthread_mutex_unlock (&p->lock);
  if (late && from < upto)
    fill (p, from, upto - from);
}

void
st_map_pager_release (StMapPager *p, uint64_t offset)
{
  uint64_t from = 0, to = 0;

  pthread_mutex_lock (&p->lock);
  if (offset > p->want_released)
    {
      p->want_released = offset;
      pthread_cond_signal (&p->asked);
    }
  if (p->want_released - p->released > MAX_RELEASE_LAG)
    {
      /* The thread is late: given back here.  */
      from = p->released;
      to = p->want_released;
      p->released = to;
      p->populated = MAX (p->populated, to);
    }
  pthread_mutex_unlock (&p->lock);
  if (to > from)
    madvise (p->map + from, to - from, MADV_DONTNEED);
}

void
st_map_pager_set_held (StMapPager *p, gboolean held)
{
  pthread_mutex_lock (&p->lock);
  p->held = held;
  pthread_cond_signal (&p->asked);
  pthread_mutex_unlock (&p->lock);
}

gboolean
st_map_pager_met_end (StMapPager *p)
{
  return __atomic_load_n (&p->met_end, __ATOMIC_ACQUIRE);
}
