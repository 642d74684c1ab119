/* Known call paths: three threads, each start_thread -> st_thread_main
   -> st_thread_a -> st_thread_leaf_N (N = 0, 1, 2), while the main
   thread runs main -> st_thread_main -> st_thread_a -> st_thread_leaf_3.
   Usage: [ST_MIGRATE_CPU=N] threads [MILLISECONDS]  */
#include "st-work.h"
#include <pthread.h>
#include <stdio.h>

#define ST_N_THREADS 3

volatile unsigned long st_sink;

typedef struct
{
  int id;
  long long end_ms;
  unsigned long result;
} StWorker;

ST_FRAME unsigned long st_thread_leaf_0 (unsigned long n);
ST_FRAME unsigned long st_thread_leaf_1 (unsigned long n);
ST_FRAME unsigned long st_thread_leaf_2 (unsigned long n);
ST_FRAME unsigned long st_thread_leaf_3 (unsigned long n);
ST_FRAME unsigned long st_thread_a (int id, unsigned long n);
ST_FRAME void *st_thread_main (void *data);

unsigned long
st_thread_leaf_0 (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_thread_leaf_1 (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_thread_leaf_2 (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_thread_leaf_3 (unsigned long n)
{
  return st_spin (n);
}

unsigned long
st_thread_a (int id, unsigned long n)
{
  unsigned long r;

  switch (id)
    {
    case 0:
      r = st_thread_leaf_0 (n);
      break;
    case 1:
      r = st_thread_leaf_1 (n);
      break;
    case 2:
      r = st_thread_leaf_2 (n);
      break;
    default:
      r = st_thread_leaf_3 (n);
      break;
    }
  st_sink = r;
  return r;
}

void *
st_thread_main (void *data)
{
  StWorker *w = data;

  do
    w->result += st_thread_a (w->id, ST_SPIN_ITERATIONS);
  while (st_cpu_ms () < w->end_ms);
  st_sink = w->result;
  return w;
}

int
main (int argc, char **argv)
{
  StWorker workers[ST_N_THREADS + 1];
  pthread_t threads[ST_N_THREADS];
  long long ms = st_start (argc, argv);
  long long end = st_cpu_ms () + ms;
  int i;

  for (i = 0; i <= ST_N_THREADS; i++)
    {
      workers[i].id = i;
      workers[i].end_ms = end;
      workers[i].result = 0;
    }
  for (i = 0; i < ST_N_THREADS; i++)
    if (pthread_create (&threads[i], NULL, st_thread_main, &workers[i]) != 0)
      {
        perror ("pthread_create");
        return 1;
      }
  /* The main thread works too, with its own leaf.  */
  st_thread_main (&workers[ST_N_THREADS]);
  for (i = 0; i < ST_N_THREADS; i++)
    pthread_join (threads[i], NULL);
  st_sink = workers[0].result;
  return 0;
}
