/* Jobs run on worker threads (pthreads, joined when the pool is freed),
   their completions collected on the main thread, which never blocks
   unless it asks to.

   Hand-off and memory ordering.  Whatever the main thread wrote into a
   job before st_worker_pool_push is visible to the worker that runs it,
   and whatever the worker wrote is visible to the main thread once
   st_worker_pool_collect or st_worker_pool_wait returned that job: both
   directions go through one mutex (a pthread mutex, so that
   ThreadSanitizer sees the hand-off).  A job belongs to its worker
   from the push until it is collected: the main thread must not touch
   what the job's work writes meanwhile.

   Polling is cheap: an atomic count of finished jobs is compared with
   the count collected, no lock taken when nothing finished.  A wake-up
   descriptor (an eventfd) becomes readable when a job finishes, for a
   main loop waiting in poll() on its input.

   Worker threads block every signal, so that signals reach the main
   thread (and interrupt its blocking reads and polls).  */
#ifndef ST_WORKER_POOL_H
#define ST_WORKER_POOL_H

#include <glib.h>

typedef struct StWorkerPool StWorkerPool;

/* Runs JOB on a worker thread.  CANCELLED is TRUE when the pool is being
   freed and the job was not started yet: do nothing but what the job's
   collection needs.  */
typedef void (*StWorkFunc) (void *job, gboolean cancelled, void *user);

/* N_THREADS workers at most (at least 1): as many as could be started;
   NULL when not one could (then run the work on the calling thread).  */
StWorkerPool *st_worker_pool_new (guint n_threads, StWorkFunc work,
                                  void *user);
/* Waits for the job running, runs the others cancelled, and hands every
   job not collected yet to FREE_JOB (may be NULL).  */
void st_worker_pool_free (StWorkerPool *w, GDestroyNotify free_job);

void st_worker_pool_push (StWorkerPool *w, void *job);

/* A finished job, or NULL when none finished since the last collection.
   Never blocks.  */
void *st_worker_pool_collect (StWorkerPool *w);
/* A finished job, waiting for one if needed; NULL when no job is pushed
   and not collected (nothing to wait for).  */
void *st_worker_pool_wait (StWorkerPool *w);
/* Same, waiting at most TIMEOUT_US microseconds (NULL then).  */
void *st_worker_pool_wait_timeout (StWorkerPool *w, gint64 timeout_us);

/* Jobs pushed and not collected yet.  */
guint st_worker_pool_pending (const StWorkerPool *w);
guint st_worker_pool_threads (const StWorkerPool *w);

/* Readable when a job finished; reading it (8 bytes) clears it.  -1 when
   the system has no eventfd: then only polling tells.  */
int st_worker_pool_wake_fd (const StWorkerPool *w);

#endif /* ST_WORKER_POOL_H */
