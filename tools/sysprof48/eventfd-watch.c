/* Notes when the recorder asks the live unwinder to stop: waits until
   the event fd FD is readable (poll only: the count stays for the
   unwinder to read), then writes the wall-clock time (CLOCK_REALTIME,
   seconds) to FILE.  Used by unwinder-wrapper.sh with its own copy of
   the unwinder's --event-fd.  Usage: eventfd-watch FD FILE  */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  if (argc != 3)
    return 2;
  struct pollfd p = { .fd = atoi (argv[1]), .events = POLLIN };
  struct timespec ts;

  while (poll (&p, 1, -1) < 0)
    ;
  clock_gettime (CLOCK_REALTIME, &ts);
  FILE *f = fopen (argv[2], "w");
  if (f == NULL)
    return 1;
  fprintf (f, "%ld.%09ld\n", (long) ts.tv_sec, ts.tv_nsec);
  return fclose (f) != 0;
}
