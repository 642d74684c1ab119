/* A raw-stack sample of tests/progs/fp-prog (built without any CFI),
   made here after the x86_64 ABI's frame-pointer layout: the leaf in
   st_fp_leaf, called from st_fp_b, from main, from _start, each caller
   found by its callee's frame pointer ([BP] the caller's BP, [BP + 8]
   the return address, the caller's stack pointer BP + 16).  Both
   engines must walk it by frame pointer to _start, whose CFI (from the
   C library's start file) ends the walk.  */
#ifndef ST_TEST_FP_PROG_SAMPLE_H
#define ST_TEST_FP_PROG_SAMPLE_H

#include <stdint.h>

#include "model/event.h"
#include "model/process-table.h"

#define FP_PROG_SAMPLE_FRAMES 4

typedef struct
{
  StEvent ev;                 /* points into regs and stack */
  uint64_t regs[17];          /* x86_64's perf registers AX..R15 */
  uint64_t stack[32];
  /* The expected walk: PCs (callers' as return address - 1) and stack
     pointers, leaf first.  */
  uint64_t ips[FP_PROG_SAMPLE_FRAMES];
  uint64_t sps[FP_PROG_SAMPLE_FRAMES];
} FpProgSample;

/* Maps fp-prog (PATH) in process PID of PROCESSES as the loader would,
   and builds the sample of that process in S.  */
void fp_prog_sample_build (FpProgSample *s, const char *path,
                           StProcessTable *processes, int32_t pid);

#endif /* ST_TEST_FP_PROG_SAMPLE_H */
