/* Runs a command and notes what it cost, to the microsecond: GNU time
   rounds CPU time to 10 ms, a third of the whole cost of a 3-second
   recording.  Writes to FILE "USER SYSTEM MAXRSS STATUS" (seconds with
   six decimals, KiB, exit status) after a line "Command terminated by
   signal N" when a signal ended it, as GNU time -f '%U %S %M %x' does.
   The command inherits every descriptor.
   Usage: rusage-run FILE COMMAND [ARG...]  */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double
seconds (struct timeval tv)
{
  return tv.tv_sec + tv.tv_usec / 1e6;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: rusage-run FILE COMMAND [ARG...]\n");
      return 2;
    }
  pid_t pid = fork ();
  if (pid < 0)
    return 127;
  if (pid == 0)
    {
      execvp (argv[2], argv + 2);
      perror (argv[2]);
      _exit (127);
    }

  /* The recorder's stop may come as a signal to the group: ours waits. */
  signal (SIGINT, SIG_IGN);
  signal (SIGTERM, SIG_IGN);
  int status;
  struct rusage ru;
  while (wait4 (pid, &status, 0, &ru) < 0)
    ;
  FILE *f = fopen (argv[1], "w");
  if (f == NULL)
    return 127;
  int code = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  if (WIFSIGNALED (status))
    fprintf (f, "Command terminated by signal %d\n", WTERMSIG (status));
  fprintf (f, "%.6f %.6f %ld %d\n", seconds (ru.ru_utime),
           seconds (ru.ru_stime), ru.ru_maxrss,
           WIFEXITED (status) ? WEXITSTATUS (status) : 0);
  fclose (f);
  return code;
}
