/* A gate for the tests of worker threads: threads wait at it until the
   test opens it (pthread primitives, which ThreadSanitizer sees).  */
#ifndef ST_TEST_GATE_H
#define ST_TEST_GATE_H

#include <glib.h>
#include <pthread.h>

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  gboolean open;
  guint arrived;            /* threads that reached the gate */
} TestGate;

static inline TestGate *
test_gate_new (void)
{
  TestGate *g = g_new0 (TestGate, 1);
  pthread_mutex_init (&g->lock, NULL);
  pthread_cond_init (&g->cond, NULL);
  return g;
}

static inline void
test_gate_free (TestGate *g)
{
  pthread_cond_destroy (&g->cond);
  pthread_mutex_destroy (&g->lock);
  g_free (g);
}

/* Waits until the gate is open.  */
static inline void
test_gate_pass (TestGate *g)
{
  pthread_mutex_lock (&g->lock);
  g->arrived++;
  pthread_cond_broadcast (&g->cond);
  while (!g->open)
    pthread_cond_wait (&g->cond, &g->lock);
  pthread_mutex_unlock (&g->lock);
}

static inline void
test_gate_open (TestGate *g)
{
  pthread_mutex_lock (&g->lock);
  g->open = TRUE;
  pthread_cond_broadcast (&g->cond);
  pthread_mutex_unlock (&g->lock);
}

/* Waits until N threads reached the gate.  */
static inline void
test_gate_wait_arrived (TestGate *g, guint n)
{
  pthread_mutex_lock (&g->lock);
  while (g->arrived < n)
    pthread_cond_wait (&g->cond, &g->lock);
  pthread_mutex_unlock (&g->lock);
}

static inline gpointer
test_gate_open_later_thread (gpointer g)
{
  g_usleep (100 * 1000);
  test_gate_open (g);
  return NULL;
}

/* Opens the gate from another thread after 100 ms (join the thread).  */
static inline GThread *
test_gate_open_later (TestGate *g)
{
  return g_thread_new ("gate-opener", test_gate_open_later_thread, g);
}

#endif /* ST_TEST_GATE_H */
