/* Samples walked on workers, concluded in order (parallel-unwind.h).

   Jobs are numbered in submission order and held in a ring of
   ST_PARALLEL_IN_FLIGHT slots (job K in slot K mod the size); at most
   IN_FLIGHT of them are used, 64 per worker.  Few, so that a worker
   walks samples the pipeline's thread read a moment ago, their records
   still in the caches, and the results in flight between the threads
   stay few: with 1,024 for one worker, the 6.3 GB recording took 14 %
   more time and CPU time at --jobs 2, its walks' loads from the stack
   copies twice as costly as at --jobs 1.  The pipeline's thread
   publishes each job at once (one atomic store) and wakes a worker
   asleep for a batch's worth (a quarter of IN_FLIGHT) or as soon as a
   result is wanted.  Any thread takes the next published job by raising
   CLAIMED (compare-and-swap on a number: a stale read only fails) and
   marks it walked with one store.  Neither side takes a lock while
   the other is busy: a worker with nothing to take spins for up to
   SPIN_US, then sleeps on a condition variable and is signalled only
   when it said so (a wake is a system call, on a busy machine a lost
   time slice).  The pipeline's thread, when it needs a result not
   walked yet, walks the next published jobs itself (its model is the
   replicas' own), and only waits for those a worker is walking: at
   worst it unwinds as --jobs 1 would.  */
#include "config.h"

#include <pthread.h>

#include "parallel-unwind.h"

/* How long a worker waits awake for more before sleeping, and the
   pipeline's thread for a walk: some walks' time.  (100 us cost cc1.data
   a fifth more CPU time at --jobs 2 on a loaded machine, for no less
   wall time.)  */
#define SPIN_US 20
/* Bytes of a stack copy asked for ahead: the top, where a walk reads
   most.  */
#define PREFETCH_STACK_BYTES 2048

struct StParallelJob
{
  const StEvent *ev;
  StWalk *walk;              /* until concluded */
  StUnwound *u;              /* once concluded */
  guint64 seq;               /* its number, in submission order */
  int walked;                /* (atomic) WALK is done */
  StParallelJob *next_free;
  StParallelJob *next_made;  /* every job made, to free them all */
  gboolean taken;            /* its result given out (or free) */
};

typedef struct
{
  StParallelUnwind *pu;
  pthread_t thread;
  gboolean started;
  StProcessTable *processes;
  StModuleCache *modules;
  StCaptureMounts *mounts;
  StSampleUnwinder *unwinder;  /* the replica: walks only */
} Worker;

struct StParallelUnwind
{
  StSampleUnwinder *main;
  Worker *workers;
  guint n_workers;
  guint in_flight;           /* jobs submitted and not concluded, at most */

  /* Job K is RING[K % ST_PARALLEL_IN_FLIGHT] from its submission to its
     conclusion; written by the pipeline's thread before publication.  */
  StParallelJob *ring[ST_PARALLEL_IN_FLIGHT];
  /* (Atomic) jobs published, and taken: [CLAIMED, PUBLISHED) are to
     walk.  */
  guint64 published;
  guint64 claimed;
  int stop;                  /* (atomic) */
  /* (Atomic) who sleeps, to be signalled: set under LOCK.  */
  int sleeping_workers;
  int main_sleeps;

  /* pthread rather than GMutex: ThreadSanitizer sees it.  Only for
     sleeping and waking.  */
  pthread_mutex_t lock;
  pthread_cond_t todo_cond;    /* a job published, or STOP */
  pthread_cond_t walked_cond;  /* a job walked */

  /* The pipeline's thread only: */
  guint64 submitted;
  guint64 concluded;
  StParallelJob *free_jobs;
  StParallelJob *made_jobs;
  StWalk *free_walks[ST_PARALLEL_IN_FLIGHT];
  guint n_free_walks;
};

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

/* The next published job, taken, or NULL when there is none.  */
static StParallelJob *
claim (StParallelUnwind *pu)
{
  guint64 c = __atomic_load_n (&pu->claimed, __ATOMIC_RELAXED);

  while (c < __atomic_load_n (&pu->published, __ATOMIC_ACQUIRE))
    if (__atomic_compare_exchange_n (&pu->claimed, &c, c + 1, FALSE,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return pu->ring[c % ST_PARALLEL_IN_FLIGHT];
  return NULL;
}

/* JOB walked by SU, and said so; nothing when it was walked at its
   submission (AS_IS).  */
static void
walk (StSampleUnwinder *su, StParallelJob *job)
{
  if (__atomic_load_n (&job->walked, __ATOMIC_ACQUIRE))
    return;
  st_sample_unwinder_walk (su, job->ev, job->walk, FALSE);
  __atomic_store_n (&job->walked, 1, __ATOMIC_SEQ_CST);
}

/* Whether SINCE (0: not yet set) is SPIN_US ago; the clock read every
   64 turns, being dearer than a turn.  */
static gboolean
spun_enough (guint turn, gint64 *since)
{
  if (turn % 64 != 63)
    {
      cpu_relax ();
      return FALSE;
    }
  gint64 now = g_get_monotonic_time ();
  if (*since == 0)
    *since = now;
  return now - *since >= SPIN_US;
}

/* The next job to walk, NULL at STOP.  */
static StParallelJob *
next_job (StParallelUnwind *pu)
{
  gint64 since = 0;

  for (guint turn = 0;; turn++)
    {
      StParallelJob *job = claim (pu);
      if (job != NULL)
        return job;
      if (__atomic_load_n (&pu->stop, __ATOMIC_ACQUIRE))
        return NULL;
      if (!spun_enough (turn, &since))
        continue;
      /* Asleep: the sleeper count is raised before PUBLISHED is read
         again, the publisher stores PUBLISHED before reading the count
         (both sequentially consistent), so one sees the other.  */
      pthread_mutex_lock (&pu->lock);
      __atomic_add_fetch (&pu->sleeping_workers, 1, __ATOMIC_SEQ_CST);
      while (__atomic_load_n (&pu->claimed, __ATOMIC_SEQ_CST)
               == __atomic_load_n (&pu->published, __ATOMIC_SEQ_CST)
             && !__atomic_load_n (&pu->stop, __ATOMIC_SEQ_CST))
        pthread_cond_wait (&pu->todo_cond, &pu->lock);
      __atomic_sub_fetch (&pu->sleeping_workers, 1, __ATOMIC_SEQ_CST);
      pthread_mutex_unlock (&pu->lock);
      since = 0;
    }
}

/* The top of JOB's stack copy asked for ahead (a walk's first reads of
   it are its costliest loads, from memory another thread wrote).  */
static void
prefetch_stack (const StParallelJob *job)
{
  const StEvent *ev = job->ev;

  /* (Past a short copy's end is harmless: prefetches never fault.)  */
  for (guint at = 0; at < PREFETCH_STACK_BYTES && at < ev->stack.stack_size;
       at += 256)
    {
      __builtin_prefetch (ev->stack.stack + at);
      __builtin_prefetch (ev->stack.stack + at + 64);
      __builtin_prefetch (ev->stack.stack + at + 128);
      __builtin_prefetch (ev->stack.stack + at + 192);
    }
}

static void *
worker_run (void *data)
{
  Worker *w = data;
  StParallelUnwind *pu = w->pu;
  StParallelJob *job, *next = NULL;

  /* One job held ahead, when there is one, its stack prefetched while
     this one is walked.  */
  while ((job = next != NULL ? next : next_job (pu)) != NULL)
    {
      next = claim (pu);
      if (next != NULL)
        prefetch_stack (next);
      walk (w->unwinder, job);
      if (__atomic_load_n (&pu->main_sleeps, __ATOMIC_SEQ_CST))
        {
          pthread_mutex_lock (&pu->lock);
          pthread_cond_signal (&pu->walked_cond);
          pthread_mutex_unlock (&pu->lock);
        }
    }
  return NULL;
}

static void
worker_clear (Worker *w)
{
  /* Processes hold Dwfls that reference the cached Elfs: first.  */
  st_process_table_free (w->processes);
  st_sample_unwinder_free (w->unwinder);
  st_capture_mounts_free (w->mounts);
  st_module_cache_free (w->modules);
}

StParallelUnwind *
st_parallel_unwind_new (guint n_workers, StSampleUnwinder *main,
                        StModuleCacheMaker make_cache, void *make_cache_data,
                        const StSampleUnwinderOptions *o)
{
  StParallelUnwind *pu = g_new0 (StParallelUnwind, 1);
  /* A replica walks: no stitching, no messages (the main service says
     what is to be said, once, in order).  */
  StSampleUnwinderOptions wo = *o;

  wo.stitch = FALSE;
  wo.debug = FALSE;
  wo.report = NULL;
  wo.report_data = NULL;
  pu->main = main;
  pu->n_workers = n_workers;
  pu->in_flight = MIN (ST_PARALLEL_IN_FLIGHT,
                       ST_PARALLEL_IN_FLIGHT_PER_WORKER * MAX (n_workers, 1));
  pu->workers = g_new0 (Worker, n_workers);
  pthread_mutex_init (&pu->lock, NULL);
  pthread_cond_init (&pu->todo_cond, NULL);
  pthread_cond_init (&pu->walked_cond, NULL);
  for (guint i = 0; i < n_workers; i++)
    {
      Worker *w = &pu->workers[i];
      w->pu = pu;
      w->processes = st_process_table_new ();
      /* It forgets what the pipeline's table forgets, when it does
         (st_parallel_unwind_forget), never on its own.  */
      st_process_table_set_unbounded (w->processes);
      w->modules = make_cache (i, make_cache_data);
      w->mounts = st_capture_mounts_new (st_module_cache_resolver (w->modules));
      w->unwinder = st_sample_unwinder_new (w->processes, w->modules, NULL,
                                            NULL, NULL, NULL, &wo);
    }
  for (guint i = 0; i < n_workers; i++)
    {
      Worker *w = &pu->workers[i];
      if (pthread_create (&w->thread, NULL, worker_run, w) != 0)
        {
          st_parallel_unwind_free (pu);
          return NULL;
        }
      w->started = TRUE;
    }
  return pu;
}

void
st_parallel_unwind_free (StParallelUnwind *pu)
{
  if (pu == NULL)
    return;
  __atomic_store_n (&pu->stop, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_lock (&pu->lock);
  pthread_cond_broadcast (&pu->todo_cond);
  pthread_mutex_unlock (&pu->lock);
  for (guint i = 0; i < pu->n_workers; i++)
    if (pu->workers[i].started)
      pthread_join (pu->workers[i].thread, NULL);
  /* (The workers ended their last walk.)  Jobs not concluded, or whose
     result was never taken (an abandoned output), go with the rest.  */
  while (pu->made_jobs != NULL)
    {
      StParallelJob *job = pu->made_jobs;
      pu->made_jobs = job->next_made;
      if (job->walk != NULL)
        {
          st_walk_clear (job->walk);
          g_free (job->walk);
        }
      if (!job->taken && job->u != NULL)
        st_sample_unwinder_release (pu->main, job->u);
      g_free (job);
    }
  for (guint i = 0; i < pu->n_free_walks; i++)
    {
      st_walk_clear (pu->free_walks[i]);
      g_free (pu->free_walks[i]);
    }
  for (guint i = 0; i < pu->n_workers; i++)
    worker_clear (&pu->workers[i]);
  g_free (pu->workers);
  pthread_cond_destroy (&pu->walked_cond);
  pthread_cond_destroy (&pu->todo_cond);
  pthread_mutex_destroy (&pu->lock);
  g_free (pu);
}

/* A worker asleep woken, when there is something to take.  */
static void
wake_worker (StParallelUnwind *pu)
{
  if (__atomic_load_n (&pu->sleeping_workers, __ATOMIC_SEQ_CST) > 0
      && __atomic_load_n (&pu->claimed, __ATOMIC_RELAXED) < pu->published)
    {
      pthread_mutex_lock (&pu->lock);
      pthread_cond_signal (&pu->todo_cond);
      pthread_mutex_unlock (&pu->lock);
    }
}

/* What is submitted, to the workers.  A worker asleep is woken when
   WAKE, or for a batch's worth.  */
static void
publish (StParallelUnwind *pu, gboolean wake)
{
  /* (Release: the jobs, their events, and any change of the replicas
     made since they were last idle, before the jobs.)  */
  if (pu->published != pu->submitted)
    __atomic_store_n (&pu->published, pu->submitted, __ATOMIC_SEQ_CST);
  if (__atomic_load_n (&pu->sleeping_workers, __ATOMIC_SEQ_CST) > 0
      && (wake || pu->submitted - __atomic_load_n (&pu->claimed,
                                                   __ATOMIC_RELAXED)
                  >= pu->in_flight / 4))
    wake_worker (pu);
}

/* Until JOB is walked: walks what it can take, else waits.  */
static void
wait_walked (StParallelUnwind *pu, StParallelJob *job)
{
  gint64 since = 0;

  for (guint turn = 0; !__atomic_load_n (&job->walked, __ATOMIC_ACQUIRE);
       turn++)
    {
      StParallelJob *other = claim (pu);
      if (other != NULL)
        {
          walk (pu->main, other);
          since = 0;
          continue;
        }
      if (!spun_enough (turn, &since))
        continue;
      /* (JOB was claimed: it is being walked.)  */
      pthread_mutex_lock (&pu->lock);
      __atomic_store_n (&pu->main_sleeps, 1, __ATOMIC_SEQ_CST);
      while (!__atomic_load_n (&job->walked, __ATOMIC_SEQ_CST))
        pthread_cond_wait (&pu->walked_cond, &pu->lock);
      __atomic_store_n (&pu->main_sleeps, 0, __ATOMIC_SEQ_CST);
      pthread_mutex_unlock (&pu->lock);
      break;
    }
}

/* The oldest job not concluded, walked: concluded.  */
static void
conclude_walked (StParallelUnwind *pu, StParallelJob *job)
{
  job->u = st_sample_unwinder_conclude (pu->main, job->ev, job->walk);
  pu->free_walks[pu->n_free_walks++] = job->walk;
  job->walk = NULL;
  pu->concluded++;
}

/* The oldest job not concluded, concluded (waiting for its walk).  */
static void
conclude_oldest (StParallelUnwind *pu)
{
  StParallelJob *job = pu->ring[pu->concluded % ST_PARALLEL_IN_FLIGHT];

  publish (pu, TRUE);
  wait_walked (pu, job);
  conclude_walked (pu, job);
}

guint
st_parallel_unwind_in_flight (const StParallelUnwind *pu)
{
  return pu->in_flight;
}

StParallelJob *
st_parallel_unwind_submit (StParallelUnwind *pu, const StEvent *ev,
                           gboolean as_is)
{
  /* What is walked is concluded as it goes, so that the ring holds
     what is still to walk.  */
  while (pu->concluded < pu->submitted)
    {
      StParallelJob *oldest = pu->ring[pu->concluded % ST_PARALLEL_IN_FLIGHT];
      if (!__atomic_load_n (&oldest->walked, __ATOMIC_ACQUIRE))
        break;
      conclude_walked (pu, oldest);
    }
  if (pu->submitted - pu->concluded == pu->in_flight)
    conclude_oldest (pu);

  StParallelJob *job = pu->free_jobs;
  if (job != NULL)
    pu->free_jobs = job->next_free;
  else
    {
      job = g_new (StParallelJob, 1);
      job->next_made = pu->made_jobs;
      pu->made_jobs = job;
    }
  job->ev = ev;
  job->u = NULL;
  job->taken = FALSE;
  job->walk = pu->n_free_walks > 0 ? pu->free_walks[--pu->n_free_walks]
                                   : g_new0 (StWalk, 1);
  job->seq = pu->submitted;
  __atomic_store_n (&job->walked, 0, __ATOMIC_RELAXED);
  if (as_is)
    {
      /* Here and now, on the pipeline's model and caches as they are
         (published after: a worker that takes it skips it).  */
      st_sample_unwinder_walk (pu->main, ev, job->walk, TRUE);
      __atomic_store_n (&job->walked, 1, __ATOMIC_RELAXED);
    }
  pu->ring[pu->submitted++ % ST_PARALLEL_IN_FLIGHT] = job;
  /* At once: a worker awake takes it now (a store, and a load).  */
  publish (pu, FALSE);
  return job;
}

gboolean
st_parallel_unwind_ready (StParallelUnwind *pu, StParallelJob *job)
{
  if (job->walk == NULL)
    return TRUE;

  /* Concluded in order as far as walked: a result is only had once
     every earlier one is.  */
  while (pu->concluded <= job->seq)
    {
      StParallelJob *oldest = pu->ring[pu->concluded % ST_PARALLEL_IN_FLIGHT];
      if (!__atomic_load_n (&oldest->walked, __ATOMIC_ACQUIRE))
        {
          /* Wanted: a worker asleep is woken for it.  */
          wake_worker (pu);
          return FALSE;
        }
      conclude_walked (pu, oldest);
    }
  return TRUE;
}

StUnwound *
st_parallel_unwind_result (StParallelUnwind *pu, StParallelJob *job)
{
  /* (Concluded jobs are only touched by this thread.)  */
  while (job->walk != NULL)
    conclude_oldest (pu);

  StUnwound *u = job->u;
  job->taken = TRUE;
  job->next_free = pu->free_jobs;
  pu->free_jobs = job;
  return u;
}

void
st_parallel_unwind_settle (StParallelUnwind *pu)
{
  while (pu->concluded < pu->submitted)
    conclude_oldest (pu);
}

gboolean
st_parallel_unwind_changes_model (const StEvent *ev)
{
  return ev->kind == ST_EVENT_MAP || ev->kind == ST_EVENT_PROCESS
         || ev->kind == ST_EVENT_FORK || ev->kind == ST_EVENT_EXIT;
}

void
st_parallel_unwind_apply (StParallelUnwind *pu, const StEvent *ev)
{
  /* Settled: every worker waits for a job, its replica is ours until
     the next is published (PUBLISHED's store and load order the two).  */
  st_parallel_unwind_settle (pu);
  for (guint i = 0; i < pu->n_workers; i++)
    st_sample_unwinder_apply (pu->workers[i].unwinder, ev);
}

void
st_parallel_unwind_forget (StParallelUnwind *pu, int32_t pid)
{
  st_parallel_unwind_settle (pu);
  for (guint i = 0; i < pu->n_workers; i++)
    st_process_table_forget (pu->workers[i].processes, pid);
}

void
st_parallel_unwind_feed_mounts (StParallelUnwind *pu, const StEvent *ev)
{
  st_parallel_unwind_settle (pu);
  for (guint i = 0; i < pu->n_workers; i++)
    st_capture_mounts_feed (pu->workers[i].mounts, ev);
}
