/* Return addresses checked against the code: one that no call
   instruction ends at (fast-arch.h, follows_call) was never pushed by a
   call, so the frame that gave it was misread and the walk stops there
   (ST_CAUSE_NOT_AFTER_CALL).  Only addresses in a process module (file
   code) are checked; JIT code and addresses in no module are not, nor
   those in a stack root (Go's goroutines "return" to runtime.goexit
   past a NOP, stack-roots.h).

   Every frame of every walk asks, so the answers are kept per process
   and engine in a direct-mapped table, emptied when the process's
   modules are rebuilt (an address may then belong to another file).  */
#ifndef ST_RETURN_CHECK_H
#define ST_RETURN_CHECK_H

#include <glib.h>
#include <stdint.h>

#include "unwind/fast-arch.h"
#include "unwind/process-modules.h"

#define ST_RETURN_CHECK_BITS 10

typedef struct
{
  uint64_t ra;          /* 0: empty */
  gboolean follows_call;
} StReturnCheckSlot;

typedef struct
{
  StReturnCheckSlot slots[1u << ST_RETURN_CHECK_BITS];
} StReturnCheck;

StReturnCheck *st_return_check_new (void);
void st_return_check_free (StReturnCheck *rc);
void st_return_check_clear (StReturnCheck *rc);

/* The answer for RA in PM's modules, kept nowhere (for the rare
   asker).  */
gboolean st_return_follows_call (const StFastArch *arch, StProcessModules *pm,
                                 uint64_t ra);

/* The answer for RA, found in PM's modules, and kept.  */
gboolean st_return_check_slow (StReturnCheck *rc, const StFastArch *arch,
                               StProcessModules *pm, uint64_t ra);

/* Whether RA may be a return address: it follows a call, or it is not
   in file code of PM, or ARCH does not check (RC NULL: not checked).  */
static inline gboolean
st_return_check (StReturnCheck *rc, const StFastArch *arch,
                 StProcessModules *pm, uint64_t ra)
{
  if (rc == NULL || ra == 0)
    return TRUE;
  const StReturnCheckSlot *s
    = &rc->slots[(ra * 0x9e3779b97f4a7c15ull) >> (64 - ST_RETURN_CHECK_BITS)];
  if (G_LIKELY (s->ra == ra))
    return s->follows_call;
  return st_return_check_slow (rc, arch, pm, ra);
}

#endif /* ST_RETURN_CHECK_H */
