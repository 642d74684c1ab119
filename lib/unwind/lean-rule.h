/* The lean form of an unwind rule, for the lean walk (lean-walk.h): what
   a rule says about the three registers that walk tracks -- the stack
   pointer, the frame pointer and the return address -- in a few bytes,
   or that the rule is not of the common shape and the walk must hand
   its sample to the full one.

   The common shape (nearly every row of compiled code): the CFA is the
   stack pointer or the frame pointer plus an offset, the return address
   is saved at CFA + offset (or undefined: the outermost frame), the
   caller's stack pointer is CFA + offset, and the frame pointer keeps
   its value, is saved at CFA + offset, or is undefined.  Other
   registers may have any rule that reads no other register into those
   three: their values never decide anything the walk does (a rule of
   the common shape reads none of them).  What the lean walk must still
   reproduce is the full walk's memory reads, since a failed one is
   recorded (sample-memory.h): READ_LO and READ_HI bound every read the
   rule makes (every register saved at CFA + offset, the return address
   and the frame pointer included), so the walk checks once that all of
   them lie in the stack copy, where they cannot fail.  */
#ifndef ST_LEAN_RULE_H
#define ST_LEAN_RULE_H

#include <stdint.h>

#include "unwind/cfi-rules.h"
#include "unwind/fast-arch.h"

typedef enum
{
  ST_LEAN_NONE,        /* not of the common shape: the full walk */
  ST_LEAN_SP,          /* CFA = SP + CFA_OFFSET */
  ST_LEAN_FP,          /* CFA = FP + CFA_OFFSET */
} StLeanCfa;

typedef enum
{
  ST_LEAN_FP_SAME,     /* the caller's FP is the callee's */
  ST_LEAN_FP_AT_CFA,   /* saved at CFA + FP_OFFSET */
  ST_LEAN_FP_UNDEFINED,
} StLeanFp;

typedef struct
{
  uint8_t cfa;          /* StLeanCfa */
  uint8_t fp;           /* StLeanFp */
  uint8_t outermost;    /* the return address is undefined */
  uint8_t has_reads;    /* READ_LO, READ_HI are meaningful */
  int32_t cfa_offset;
  int16_t ra_offset;    /* the return address is at CFA + this */
  int16_t fp_offset;
  int16_t sp_offset;    /* the caller's SP is CFA + this */
  int16_t read_lo;      /* every read lies in [CFA + READ_LO, */
  int16_t read_hi;      /* CFA + READ_HI + 8) */
  int16_t pad;
} StLeanRule;

/* The lean form of RULE for ARCH (ST_LEAN_NONE when RULE is not of the
   common shape).  */
void st_lean_rule_from_rule (const StUnwindRule *rule, const StFastArch *arch,
                             StLeanRule *lean);

#endif /* ST_LEAN_RULE_H */
