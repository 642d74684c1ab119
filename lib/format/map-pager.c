#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include "format/map-pager.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Filled in steps of this much, so that a release asked for meanwhile
   is not kept waiting behind a long fill.  */
#define POPULATE_STEP (4u << 20)
/* Pages asked to be given back and still mapped, at most: beyond, the
   reader waits for the thread (starved of a processor, say), so that
   what stays resident is bounded whatever the machine's load.  */
#define MAX_RELEASE_LAG (16u << 20)

struct StMapPager
{
  uint8_t *map;
  size_t len;
  pthread_t thread;

  /* pthread rather than GMutex: ThreadSanitizer sees it.  */
  pthread_mutex_t lock;
  pthread_cond_t asked;
  pthread_cond_t released_cond;  /* RELEASED moved */
  /* Under LOCK: what the reader asked for, and how far the thread got.  */
  uint64_t want_populated;
  uint64_t want_released;
  uint64_t populated;
  uint64_t released;
  gboolean stop;
  int met_end;                  /* (atomic) */
};

static void *
pager_run (void *data)
{
  StMapPager *p = data;
  struct sched_param idle = { 0 };

  /* Only a processor nobody else wants: the reader and --jobs' workers
     are what the run waits for.  Should the pager starve, the reader
     faults pages in itself, and waits only for pages to be given back
     (its processor then idle, the pager runs there).  Refused (a
     sandbox): the ordinary policy.  */
  pthread_setschedparam (pthread_self (), SCHED_IDLE, &idle);
  pthread_mutex_lock (&p->lock);
  for (;;)
    {
      if (p->stop)
        break;
      if (p->released < p->want_released)
        {
          /* Given back first: the bound on what stays mapped.  */
          uint64_t from = p->released, to = p->want_released;
          pthread_mutex_unlock (&p->lock);
          madvise (p->map + from, to - from, MADV_DONTNEED);
          pthread_mutex_lock (&p->lock);
          p->released = to;
          /* (Filling below what is given back would map it again.)  */
          p->populated = MAX (p->populated, to);
          pthread_cond_signal (&p->released_cond);
          continue;
        }
      if (p->populated < p->want_populated
          && !__atomic_load_n (&p->met_end, __ATOMIC_RELAXED))
        {
          /* (madvise wants a page-aligned start.)  */
          uint64_t from = p->populated & ~(uint64_t) 4095;
          size_t n = MIN ((size_t) POPULATE_STEP,
                          (size_t) (p->want_populated - from));
          pthread_mutex_unlock (&p->lock);
          if (madvise (p->map + from, n, MADV_POPULATE_READ) != 0
              && errno == EFAULT)
            __atomic_store_n (&p->met_end, 1, __ATOMIC_RELEASE);
          pthread_mutex_lock (&p->lock);
          p->populated = MAX (p->populated, from + n);
          continue;
        }
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
  pthread_cond_init (&p->released_cond, NULL);
  if (pthread_create (&p->thread, NULL, pager_run, p) != 0)
    {
      pthread_cond_destroy (&p->released_cond);
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
  pthread_cond_destroy (&p->released_cond);
  pthread_cond_destroy (&p->asked);
  pthread_mutex_destroy (&p->lock);
  g_free (p);
}

void
st_map_pager_populate (StMapPager *p, uint64_t upto)
{
  upto = MIN (upto, (uint64_t) p->len);
  pthread_mutex_lock (&p->lock);
  if (upto > p->want_populated)
    {
      p->want_populated = upto;
      pthread_cond_signal (&p->asked);
    }
  pthread_mutex_unlock (&p->lock);
}

void
st_map_pager_release (StMapPager *p, uint64_t offset)
{
  pthread_mutex_lock (&p->lock);
  if (offset > p->want_released)
    {
      p->want_released = offset;
      pthread_cond_signal (&p->asked);
    }
  while (p->want_released - p->released > MAX_RELEASE_LAG)
    pthread_cond_wait (&p->released_cond, &p->lock);
  pthread_mutex_unlock (&p->lock);
}

gboolean
st_map_pager_met_end (StMapPager *p)
{
  return __atomic_load_n (&p->met_end, __ATOMIC_ACQUIRE);
}
