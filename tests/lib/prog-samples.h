/* Raw-stack samples of the test programs (tests/progs), made after the
   x86_64 ABI, with the walk they must give.

   fp-prog (built without any CFI): the leaf in st_fp_leaf, called from
   st_fp_b, from main, from _start, each caller found by its callee's
   frame pointer ([BP] the caller's BP, [BP + 8] the return address,
   the caller's stack pointer BP + 16).  Both engines must walk it by
   frame pointer to _start, whose CFI (from the C library's start file)
   ends the walk.  The return addresses are real ones, found in the
   program's code after its calls (st_fp_b's of st_fp_leaf, main's of
   st_fp_a, _start's of __libc_start_main).

   The same leaf where the frame-pointer step is wrong: at its first
   instruction (push %rbp, the return address at [SP]), after that push
   ([SP + 8], st_fp_b's %rbp at [SP]), at its `pop %rbp` and at its
   `ret` ([SP]): its caller st_fp_b must come next, found from the
   function's code.

   plt-calls, stopped in a lazy PLT entry (its CFA a DWARF expression of
   RIP): at the entry's first instruction the call just pushed the
   return address, at [SP]; at its last (the jump to the resolver,
   after the push of the relocation index), at [SP + 8].  The caller is
   main, whose return address is 0: the outermost frame.  */
#ifndef ST_TEST_PROG_SAMPLES_H
#define ST_TEST_PROG_SAMPLES_H

#include <glib.h>
#include <stdint.h>

#include "model/event.h"
#include "model/process-table.h"

#define PROG_SAMPLE_MAX_FRAMES 4

typedef struct
{
  StEvent ev;                 /* points into regs and stack */
  uint64_t regs[17];          /* x86_64's perf registers AX..R15 */
  uint64_t stack[64];
  /* The expected walk: PCs (callers' as return address - 1) and stack
     pointers, leaf first.  */
  uint32_t n;
  uint64_t ips[PROG_SAMPLE_MAX_FRAMES];
  uint64_t sps[PROG_SAMPLE_MAX_FRAMES];
} ProgSample;

/* Maps the program PATH (a PIE) at its base in process PID of
   PROCESSES as the loader would, and builds fp-prog's sample (PATH is
   fp-prog) in S.  */
void prog_sample_fp (ProgSample *s, const char *path,
                     StProcessTable *processes, int32_t pid);

typedef enum
{
  FP_LEAF_ENTRY,
  FP_LEAF_AFTER_PUSH,
  FP_LEAF_AT_POP,
  FP_LEAF_AT_RET,
} FpLeafPoint;

/* fp-prog's sample with the leaf at AT.  */
void prog_sample_fp_leaf (ProgSample *s, const char *path,
                          StProcessTable *processes, int32_t pid,
                          FpLeafPoint at);

/* The same for plt-calls (PATH), stopped at the first instruction of
   its first PLT entry, or (AFTER_PUSH) at its last.  */
void prog_sample_plt (ProgSample *s, const char *path,
                      StProcessTable *processes, int32_t pid,
                      gboolean after_push);

#endif /* ST_TEST_PROG_SAMPLES_H */
