/* Functions no frame is above, as Go's own traceback knows them: a
   goroutine's stack starts in runtime.goexit, a thread's in
   runtime.mstart or runtime.rt0_go, a signal handler's in
   runtime.sigtramp; runtime.systemstack,
   runtime.morestack and runtime.mcall switch to the thread's g0 stack,
   and so do runtime.nanotime1, runtime.walltime and time.now (to call
   the vDSO) and runtime.asmcgocall (to call C): the frames above them
   are stale (a frame left from earlier use, then data).  A walk that reaches one ends there, complete
   (walk-outcome.h).  */
#ifndef ST_STACK_ROOTS_H
#define ST_STACK_ROOTS_H

#include "model/module-cache.h"

/* Sets MODULE's stack_roots from its symbol table, when it is a Go
   program (it has .gopclntab or .go.buildinfo).  Touches only MODULE
   (runs in the prepare hooks).  */
void st_stack_roots_find (StModule *module);

#endif /* ST_STACK_ROOTS_H */
