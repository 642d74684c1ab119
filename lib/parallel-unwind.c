/* Samples walked on workers, concluded in order (parallel-unwind.h).  */
#include "config.h"

#include <pthread.h>

#include "parallel-unwind.h"

/* The most jobs a worker takes at once, and how many wake one.  */
#define CHUNK_MAX 32
#define CHUNK_WAKE 8

typedef enum
{
  JOB_QUEUED,        /* waits for a worker */
  JOB_WALKING,
  JOB_WALKED,        /* WALK holds the chain, to conclude */
  JOB_CONCLUDED,     /* U holds the result, to take */
} JobState;

struct StParallelJob
{
  const StEvent *ev;
  StWalk *walk;              /* until concluded */
  StUnwound *u;              /* once concluded */
  JobState state;            /* (LOCK) */
  StParallelJob *next_todo;  /* (LOCK) the workers' queue */
  StParallelJob *next_order; /* submitted, not concluded: in order */
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

  /* pthread rather than GMutex: ThreadSanitizer sees it.  */
  pthread_mutex_t lock;
  pthread_cond_t todo_cond;    /* a job queued, or STOP */
  pthread_cond_t walked_cond;  /* a job walked */
  StParallelJob *todo_head, *todo_tail;  /* (LOCK) */
  guint n_todo;                          /* (LOCK) */
  gboolean stop;                         /* (LOCK) */
  /* (LOCK) who waits: signals only then (a wake is a system call).  */
  guint idle_workers;
  gboolean main_waits;

  /* The pipeline's thread only: */
  StParallelJob *order_head, *order_tail;
  guint in_flight;             /* submitted, not concluded */
  StParallelJob *free_jobs;
  StParallelJob *made_jobs;
  StWalk *free_walks[ST_PARALLEL_IN_FLIGHT];
  guint n_free_walks;
};

static void *
worker_run (void *data)
{
  Worker *w = data;
  StParallelUnwind *pu = w->pu;

  pthread_mutex_lock (&pu->lock);
  for (;;)
    {
      while (pu->todo_head == NULL && !pu->stop)
        {
          pu->idle_workers++;
          pthread_cond_wait (&pu->todo_cond, &pu->lock);
          pu->idle_workers--;
        }
      if (pu->todo_head == NULL)
        break;
      /* A share of what is queued, taken at once: a sample is walked in
         microseconds, one lock round and wake per sample would cost as
         much.  */
      guint n = CLAMP (pu->n_todo / (2 * pu->n_workers), 1, CHUNK_MAX);
      StParallelJob *first = pu->todo_head, *last = first;
      first->state = JOB_WALKING;
      for (guint i = 1; i < n; i++)
        {
          last = last->next_todo;
          last->state = JOB_WALKING;
        }
      pu->todo_head = last->next_todo;
      if (pu->todo_head == NULL)
        pu->todo_tail = NULL;
      pu->n_todo -= n;
      pthread_mutex_unlock (&pu->lock);

      /* (NEXT_TODO of the chunk is only read here until it is walked.)  */
      for (StParallelJob *job = first;; job = job->next_todo)
        {
          st_sample_unwinder_walk (w->unwinder, job->ev, job->walk);
          if (job == last)
            break;
        }

      pthread_mutex_lock (&pu->lock);
      for (StParallelJob *job = first;; job = job->next_todo)
        {
          job->state = JOB_WALKED;
          if (job == last)
            break;
        }
      if (pu->main_waits)
        pthread_cond_signal (&pu->walked_cond);
    }
  pthread_mutex_unlock (&pu->lock);
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
      w->modules = make_cache (make_cache_data);
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
  pthread_mutex_lock (&pu->lock);
  pu->stop = TRUE;
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

/* The oldest job not concluded, concluded (waiting for its walk).  */
static void
conclude_oldest (StParallelUnwind *pu)
{
  StParallelJob *job = pu->order_head;

  pthread_mutex_lock (&pu->lock);
  /* Whatever is queued is to be walked now.  */
  if (job->state != JOB_WALKED && pu->n_todo > 0 && pu->idle_workers > 0)
    pthread_cond_broadcast (&pu->todo_cond);
  while (job->state != JOB_WALKED)
    {
      pu->main_waits = TRUE;
      pthread_cond_wait (&pu->walked_cond, &pu->lock);
      pu->main_waits = FALSE;
    }
  pthread_mutex_unlock (&pu->lock);

  job->u = st_sample_unwinder_conclude (pu->main, job->ev, job->walk);
  job->state = JOB_CONCLUDED;
  pu->free_walks[pu->n_free_walks++] = job->walk;
  job->walk = NULL;
  pu->order_head = job->next_order;
  if (pu->order_head == NULL)
    pu->order_tail = NULL;
  pu->in_flight--;
}

StParallelJob *
st_parallel_unwind_submit (StParallelUnwind *pu, const StEvent *ev)
{
  if (pu->in_flight == ST_PARALLEL_IN_FLIGHT)
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
  job->next_order = NULL;
  if (pu->order_tail != NULL)
    pu->order_tail->next_order = job;
  else
    pu->order_head = job;
  pu->order_tail = job;
  pu->in_flight++;

  pthread_mutex_lock (&pu->lock);
  job->state = JOB_QUEUED;
  job->next_todo = NULL;
  if (pu->todo_tail != NULL)
    pu->todo_tail->next_todo = job;
  else
    pu->todo_head = job;
  pu->todo_tail = job;
  pu->n_todo++;
  /* Woken for a chunk's worth (or when the results are wanted:
     wake_workers).  */
  if (pu->idle_workers > 0 && pu->n_todo >= CHUNK_WAKE)
    pthread_cond_signal (&pu->todo_cond);
  pthread_mutex_unlock (&pu->lock);
  return job;
}

StUnwound *
st_parallel_unwind_result (StParallelUnwind *pu, StParallelJob *job)
{
  /* (Concluded jobs are only touched by this thread: no lock.)  */
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
  while (pu->order_head != NULL)
    conclude_oldest (pu);
}

void
st_parallel_unwind_apply (StParallelUnwind *pu, const StEvent *ev)
{
  /* Settled: every worker waits for a job, its replica is ours until
     the next is queued (under the lock, which orders the two).  */
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
