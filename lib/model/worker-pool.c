/* Worker threads and a completion list.  The pool is exclusive: its
   threads start at once, from the thread that creates it, with every
   signal blocked (they inherit the mask), and stay until it is freed;
   then they exit (GLib keeps no unused threads: one handed to another
   pool later would come through GLib's internal queue, an ordering
   ThreadSanitizer cannot see, and stacktrace frees its pool only at the
   end anyway).  */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "model/worker-pool.h"

struct StWorkerPool
{
  GThreadPool *pool;
  StWorkFunc work;
  void *user;
  guint n_threads;
  int wake_fd;

  pthread_mutex_t lock;
  pthread_cond_t finished;  /* a job joined DONE */
  GQueue done;              /* finished jobs, not collected (LOCK) */
  gboolean cancelled;       /* the pool is being freed (LOCK) */
  gint n_finished;          /* atomic: jobs finished so far */

  /* Main thread only.  */
  guint n_pushed;
  guint n_collected;
};

/* On a worker thread.  */
static void
run (gpointer job, gpointer data)
{
  StWorkerPool *w = data;

  /* Taking the lock orders this job after everything the main thread
     wrote before pushing it (it released the lock in between).  */
  pthread_mutex_lock (&w->lock);
  gboolean cancelled = w->cancelled;
  pthread_mutex_unlock (&w->lock);

  w->work (job, cancelled, w->user);

  /* The job's last access to the pool is under the lock, which the
     main thread takes after the pool is freed: everything a worker did
     is ordered before what the main thread does then.  */
  pthread_mutex_lock (&w->lock);
  g_queue_push_tail (&w->done, job);
  g_atomic_int_inc (&w->n_finished);
  pthread_cond_signal (&w->finished);
  if (w->wake_fd >= 0)
    {
      uint64_t one = 1;
      /* Never blocks (EFD_NONBLOCK); fails only when the counter is
         about to overflow, and then it is readable anyway.  */
      if (write (w->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
        g_warning ("worker pool: wake-up write failed: %s",
                   g_strerror (errno));
    }
  pthread_mutex_unlock (&w->lock);
}

StWorkerPool *
st_worker_pool_new (guint n_threads, StWorkFunc work, void *user)
{
  StWorkerPool *w = g_new0 (StWorkerPool, 1);
  sigset_t all, old;
  GError *error = NULL;

  w->work = work;
  w->user = user;
  w->n_threads = MAX (n_threads, 1);
  w->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  pthread_mutex_init (&w->lock, NULL);
  pthread_cond_init (&w->finished, NULL);
  g_queue_init (&w->done);

  g_thread_pool_set_max_unused_threads (0);
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  w->pool = g_thread_pool_new (run, w, (gint) w->n_threads, TRUE, &error);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (w->pool == NULL)
    g_error ("cannot start %u worker threads: %s", w->n_threads,
             error->message);
  return w;
}

void
st_worker_pool_free (StWorkerPool *w, GDestroyNotify free_job)
{
  if (w == NULL)
    return;
  pthread_mutex_lock (&w->lock);
  w->cancelled = TRUE;
  pthread_mutex_unlock (&w->lock);
  /* Every queued job still runs (cancelled, so at once); wait for all.  */
  g_thread_pool_free (w->pool, FALSE, TRUE);
  pthread_mutex_lock (&w->lock);    /* see the end of run () */
  pthread_mutex_unlock (&w->lock);

  void *job;
  while ((job = g_queue_pop_head (&w->done)) != NULL)
    if (free_job != NULL)
      free_job (job);
  pthread_cond_destroy (&w->finished);
  pthread_mutex_destroy (&w->lock);
  if (w->wake_fd >= 0)
    close (w->wake_fd);
  g_free (w);
}

void
st_worker_pool_push (StWorkerPool *w, void *job)
{
  /* Releases what the main thread wrote into JOB to its worker (see
     run): the critical section itself is empty.  */
  pthread_mutex_lock (&w->lock);
  pthread_mutex_unlock (&w->lock);
  w->n_pushed++;
  g_thread_pool_push (w->pool, job, NULL);
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
