#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "held-workload.h"

pid_t
held_workload_fork (char **argv, int *go)
{
  int p[2];

  if (pipe2 (p, O_CLOEXEC) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    {
      close (p[0]);
      close (p[1]);
      return -1;
    }
  if (pid == 0)
    {
      char c;
      close (p[1]);
      if (read (p[0], &c, 1) != 1)
        _exit (127);
      execvp (argv[0], argv);
      _exit (127);
    }
  close (p[0]);
  *go = p[1];
  return pid;
}

bool
held_workload_go (int go)
{
  bool ok = write (go, "g", 1) == 1;

  close (go);
  return ok;
}
