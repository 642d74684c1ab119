/* Unit tests: the worker pool (jobs on threads, completions collected
   without blocking, waiting, the wake-up descriptor, cancellation).  */
#include "config.h"

#include <poll.h>

#include "util/worker-pool.h"
#include "test-gate.h"

typedef struct
{
  int id;
  int result;               /* written by the worker */
  gboolean ran_cancelled;
  GThread *thread;          /* where it ran */
} Job;

static void
work (void *data, gboolean cancelled, void *user)
{
  Job *j = data;

  j->thread = g_thread_self ();
  j->ran_cancelled = cancelled;
  if (cancelled)
    return;
  test_gate_pass (user);
  j->result = j->id * 10;
}

static gboolean
readable (int fd, int timeout_ms)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  return poll (&pfd, 1, timeout_ms) == 1;
}

static void
test_collect (void)
{
  TestGate *g = test_gate_new ();
  StWorkerPool *w = st_worker_pool_new (2, work, g);
  Job jobs[6];

  g_assert_null (st_worker_pool_collect (w));
  g_assert_null (st_worker_pool_wait (w));   /* nothing pushed */
  for (int i = 0; i < 6; i++)
    {
      jobs[i] = (Job) { .id = i + 1 };
      st_worker_pool_push (w, &jobs[i]);
    }
  g_assert_cmpuint (st_worker_pool_pending (w), ==, 6);
  /* Both workers hold a job and wait at the gate: nothing finished, and
     collecting does not block.  */
  test_gate_wait_arrived (g, 2);
  g_assert_null (st_worker_pool_collect (w));
  g_assert_false (readable (st_worker_pool_wake_fd (w), 0));

  test_gate_open (g);
  Job *first = st_worker_pool_wait (w);
  g_assert_nonnull (first);
  g_assert_cmpint (first->result, ==, first->id * 10);
  g_assert_true (first->thread != g_thread_self ());
  g_assert_true (readable (st_worker_pool_wake_fd (w), 1000));

  guint seen = 1u << first->id;
  while (st_worker_pool_pending (w) > 0)
    {
      Job *j = st_worker_pool_collect (w);
      if (j == NULL)
        j = st_worker_pool_wait (w);
      g_assert_cmpint (j->result, ==, j->id * 10);
      g_assert_false (seen & (1u << j->id));
      seen |= 1u << j->id;
    }
  g_assert_cmpuint (seen, ==, 0x7e);
  g_assert_null (st_worker_pool_collect (w));
  g_assert_null (st_worker_pool_wait (w));
  st_worker_pool_free (w, NULL);
  test_gate_free (g);
}

static guint freed;

static void
count_free (gpointer job)
{
  freed++;
}

static void
test_cancel (void)
{
  TestGate *g = test_gate_new ();
  StWorkerPool *w = st_worker_pool_new (1, work, g);
  Job jobs[4];

  for (int i = 0; i < 4; i++)
    {
      jobs[i] = (Job) { .id = i + 1 };
      st_worker_pool_push (w, &jobs[i]);
    }
  test_gate_wait_arrived (g, 1);
  /* The running job finishes (the gate opens while the pool is being
     freed, once the others are marked cancelled); the queued ones run
     cancelled; every job not collected is handed back.  */
  GThread *opener = test_gate_open_later (g);
  freed = 0;
  st_worker_pool_free (w, count_free);
  g_thread_join (opener);
  g_assert_cmpuint (freed, ==, 4);
  g_assert_false (jobs[0].ran_cancelled);
  g_assert_cmpint (jobs[0].result, ==, 10);
  for (int i = 1; i < 4; i++)
    g_assert_true (jobs[i].ran_cancelled);
  test_gate_free (g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/worker-pool/collect", test_collect);
  g_test_add_func ("/worker-pool/cancel", test_cancel);
  return g_test_run ();
}
