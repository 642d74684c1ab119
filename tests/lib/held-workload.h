/* A workload forked and held before its exec, so that a recorder can
   open its perf events on the pid first, then let it go: the recording
   then holds the workload's whole run, exec included.  */
#ifndef ST_TEST_HELD_WORKLOAD_H
#define ST_TEST_HELD_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

/* Forks ARGV (execvp'd, ARGV[0] looked up in PATH) held until
   held_workload_go (*GO); -1 if pipe or fork failed.  The child exits
   with 127 if its exec fails or it is never let go.  */
pid_t held_workload_fork (char **argv, int *go);

/* Lets the workload of GO exec, and closes GO.  */
bool held_workload_go (int go);

#endif /* ST_TEST_HELD_WORKLOAD_H */
