/* A multi-threaded process that starts a child later, for
   integration/record.sh's -p: two threads spin in st_later_spin; the
   pid goes to READY (written whole, then renamed into place) once they
   run; a line read from the FIFO GO makes the main thread fork and exec
   CMD, wait for it, stop the threads and exit with its status.
   Usage: fork-later READY GO CMD [ARGS]  */
#include "../progs/st-work.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static volatile int stop;
volatile unsigned long st_sink;

ST_FRAME unsigned long st_later_spin (unsigned long n);

unsigned long
st_later_spin (unsigned long n)
{
  return st_spin (n);
}

static void *
spin_thread (void *data)
{
  (void) data;
  while (!stop)
    {
      st_sink += st_later_spin (ST_SPIN_ITERATIONS / 4);
      /* Half the time asleep: the machine is shared.  */
      usleep (200);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  pthread_t threads[2];
  char tmp[4096], line[16];
  FILE *f;
  int status = 0;
  pid_t child;

  if (argc < 4)
    {
      fprintf (stderr, "usage: fork-later READY GO CMD [ARGS]\n");
      return 2;
    }
  for (int i = 0; i < 2; i++)
    pthread_create (&threads[i], NULL, spin_thread, NULL);
  snprintf (tmp, sizeof tmp, "%s.tmp", argv[1]);
  if ((f = fopen (tmp, "w")) == NULL)
    return 1;
  fprintf (f, "%d\n", (int) getpid ());
  fclose (f);
  rename (tmp, argv[1]);
  if ((f = fopen (argv[2], "r")) == NULL || fgets (line, sizeof line, f) == NULL)
    return 1;
  fclose (f);
  child = fork ();
  if (child == 0)
    {
      execvp (argv[3], argv + 3);
      _exit (127);
    }
  if (child > 0)
    waitpid (child, &status, 0);
  stop = 1;
  for (int i = 0; i < 2; i++)
    pthread_join (threads[i], NULL);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
