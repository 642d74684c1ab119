/* Worker threads and a completion list.  The threads are plain
   pthreads, started at once from the thread that creates the pool,
   with every signal blocked (they inherit the mask), and joined when it
   is freed: a worker's thread-exit handlers (e.g. the TLS library's,
   once libdebuginfod used it there) have then run before the main
   thread goes on to exit.  GLib's thread pool neither joins its threads
   nor hands jobs over in a way ThreadSanitizer sees (its queue's lock
   is futex-based inside libglib); here every hand-off is under one
   pthread mutex.  */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/worker-pool.h"

struct StWorkerPool
{
  pthread_t *threads;
  StWorkFunc work;
  void *user;
  guint n_threads;
  int wake_fd;

  pthread_mutex_t lock;
  pthread_cond_t work_ready;  /* a job joined TODO, or CANCELLED is set */
  pthread_cond_t finished;    /* a job joined DONE */
  GQueue todo;                /* jobs pushed, not started (LOCK) */
  GQueue done;                /* finished jobs, not collected (LOCK) */
  gboolean cancelled;         /* the pool is being freed (LOCK) */
  gint n_finished;            /* atomic: jobs finished so far */

  /* Main thread only.  */
  guint n_pushed;
  guint n_collected;
};

/* Runs JOB on a worker thread; the lock is not held.  */
static void
run (StWorkerPool *w, void *job, gboolean cancelled)
{
  w->work (job, cancelled, w->user);

  /* The job's last access to the pool is under the lock, which the
     main thread takes to collect it.  */
  pthread_mutex_lock (&w->lock);
  g_queue_push_tail (&w->done, job);
  g_atomic_int_inc (&w->n_finished);
  pthread_cond_signal (&w->finished);
  if (w->wake_fd >= 0)
    {
      uint64_t one = 1;
      /* Never blocks (EFD_NONBLOCK); fails only when the counter is
         about to overflow, and then it is readable anyway: nothing to
         report.  */
      ssize_t ignored = write (w->wake_fd, &one, sizeof one);
      (void) ignored;
    }
  pthread_mutex_unlock (&w->lock);
}

/* A worker thread: jobs in the order pushed, until the pool is freed
   and no job is left (those run cancelled).  */
static void *
worker (void *data)
{
  StWorkerPool *w = data;

  pthread_mutex_lock (&w->lock);
  for (;;)
    {
      void *job = g_queue_pop_head (&w->todo);
      if (job != NULL)
        {
          gboolean cancelled = w->cancelled;
          pthread_mutex_unlock (&w->lock);
          run (w, job, cancelled);
          pthread_mutex_lock (&w->lock);
        }
      else if (w->cancelled)
        break;
      else
        pthread_cond_wait (&w->work_ready, &w->lock);
    }
  pthread_mutex_unlock (&w->lock);
  return NULL;
}

StWorkerPool *
st_worker_pool_new (guint n_threads, StWorkFunc work, void *user)
{
  StWorkerPool *w = g_new0 (StWorkerPool, 1);
  sigset_t all, old;

  w->work = work;
  w->user = user;
  w->n_threads = MAX (n_threads, 1);
  w->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  pthread_mutex_init (&w->lock, NULL);
  pthread_cond_init (&w->work_ready, NULL);
  pthread_cond_init (&w->finished, NULL);
  g_queue_init (&w->todo);
  g_queue_init (&w->done);

  w->threads = g_new0 (pthread_t, w->n_threads);
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  /* The threads that could be started (a library never aborts its
     host for want of threads): none, and there is no pool.  */
  guint started = 0;
  while (started < w->n_threads
         && pthread_create (&w->threads[started], NULL, worker, w) == 0)
    started++;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  w->n_threads = started;
  if (started == 0)
    {
      st_worker_pool_free (w, NULL);
      return NULL;
    }
  return w;
}

void
st_worker_pool_free (StWorkerPool *w, GDestroyNotify free_job)
{
  if (w == NULL)
    return;
  /* Every queued job still runs (cancelled, so at once); then the
     workers exit, and joining them orders all they did before what
     follows.  */
  pthread_mutex_lock (&w->lock);
  w->cancelled = TRUE;
  pthread_cond_broadcast (&w->work_ready);
  pthread_mutex_unlock (&w->lock);
  for (guint i = 0; i < w->n_threads; i++)
    pthread_join (w->threads[i], NULL);
  g_free (w->threads);

  void *job;
  while ((job = g_queue_pop_head (&w->done)) != NULL)
    if (free_job != NULL)
      free_job (job);
  pthread_cond_destroy (&w->work_ready);
  pthread_cond_destroy (&w->finished);
  pthread_mutex_destroy (&w->lock);
  if (w->wake_fd >= 0)
    close (w->wake_fd);
  g_free (w);
}

void
st_worker_pool_push (StWorkerPool *w, void *job)
{
  /* Under the lock: what the main thread wrote into JOB is visible to
     the worker that pops it.  */
  pthread_mutex_lock (&w->lock);
  g_queue_push_tail (&w->todo, job);
  pthread_cond_signal (&w->work_ready);
  pthread_mutex_unlock (&w->lock);
  w->n_pushed++;
}

void *
st_worker_pool_collect (StWorkerPool *w)
{
  if ((guint) g_atomic_int_get (&w->n_finished) == w->n_collected)
    return NULL;
  pthread_mutex_lock (&w->lock);
  void *job = g_queue_pop_head (&w->done);
  pthread_mutex_unlock (&w->lock);
  if (job != NULL)
    w->n_collected++;
  return job;
}

/* Waits for a finished job until DEADLINE (CLOCK_REALTIME, as
   pthread_cond_timedwait wants it), or for ever when NULL.  */
static void *
wait_until (StWorkerPool *w, const struct timespec *deadline)
{
  if (w->n_pushed == w->n_collected)
    return NULL;
  pthread_mutex_lock (&w->lock);
  while (w->done.length == 0)
    if (deadline == NULL)
      pthread_cond_wait (&w->finished, &w->lock);
    else if (pthread_cond_timedwait (&w->finished, &w->lock, deadline) != 0)
      break;
  void *job = g_queue_pop_head (&w->done);
  pthread_mutex_unlock (&w->lock);
  if (job != NULL)
    w->n_collected++;
  return job;
}

void *
st_worker_pool_wait (StWorkerPool *w)
{
  return wait_until (w, NULL);
}

void *
st_worker_pool_wait_timeout (StWorkerPool *w, gint64 timeout_us)
{
  struct timespec deadline;

  clock_gettime (CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_us / G_USEC_PER_SEC;
  deadline.tv_nsec += (timeout_us % G_USEC_PER_SEC) * 1000;
  if (deadline.tv_nsec >= 1000000000)
    {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000;
    }
  return wait_until (w, &deadline);
}

guint
st_worker_pool_pending (const StWorkerPool *w)
{
  return w->n_pushed - w->n_collected;
}

guint
st_worker_pool_threads (const StWorkerPool *w)
{
  return w->n_threads;
}

int
st_worker_pool_wake_fd (const StWorkerPool *w)
{
  return w->wake_fd;
}
