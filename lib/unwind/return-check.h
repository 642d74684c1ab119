/* Return addresses checked against the code: one that no call
   instruction ends at (fast-arch.h, follows_call) was never pushed by a
   call, so the frame that gave it was misread and the walk stops there
   (ST_CAUSE_NOT_AFTER_CALL).  Only addresses in a process module (file
   code) are checked; JIT code and addresses in no module are not, nor
   those in a stack root (Go's goroutines "return" to runtime.goexit
   past a NOP, stack-roots.h).

   Every frame of every walk asks, so the answers are kept in
   direct-mapped tables: the fast engine's one per module, by ELF
   address (rule-cache.h, st_rule_cache_return_ok), the libdwfl engine's
   one per process, by address, emptied when the process's modules are
   rebuilt (an address may then belong to another file).  */
#ifndef ST_RETURN_CHECK_H
#define ST_RETURN_CHECK_H

#include <glib.h>
#include <stdint.h>

#include "unwind/fast-arch.h"
#include "unwind/process-modules.h"

typedef struct
{
  uint64_t key;         /* 0: empty */
  gboolean follows_call;
} StReturnCheckSlot;

typedef struct
{
  uint64_t mask;        /* number of slots - 1 */
  StReturnCheckSlot slots[];
} StReturnCheck;

/* A table of 2^BITS answers.  */
StReturnCheck *st_return_check_new (guint bits);
void st_return_check_free (StReturnCheck *rc);
void st_return_check_clear (StReturnCheck *rc);
/* Its size in bytes.  */
size_t st_return_check_bytes (const StReturnCheck *rc);

/* The answer for RA in PM's modules, kept nowhere.  */
gboolean st_return_follows_call (const StFastArch *arch, StProcessModules *pm,
                                 uint64_t ra);

/* The answer for RA, kept in RC's slot for KEY (not 0).  */
gboolean st_return_check_fill (StReturnCheck *rc, uint64_t key,
                               const StFastArch *arch, StProcessModules *pm,
                               uint64_t ra);

static inline gboolean
st_return_check_keyed (StReturnCheck *rc, uint64_t key,
                       const StFastArch *arch, StProcessModules *pm,
                       uint64_t ra)
{
  /* Return addresses are spread enough for their low bits to index.  */
  const StReturnCheckSlot *s = &rc->slots[key & rc->mask];
  if (G_LIKELY (s->key == key))
    return s->follows_call;
  return st_return_check_fill (rc, key, arch, pm, ra);
}

/* Whether RA may be a return address: it follows a call, or it is not
   in file code of PM, or ARCH does not check; RC is the process's table
   (NULL: not checked).  */
static inline gboolean
st_return_check (StReturnCheck *rc, const StFastArch *arch,
                 StProcessModules *pm, uint64_t ra)
{
  if (rc == NULL || ra == 0)
    return TRUE;
  return st_return_check_keyed (rc, ra, arch, pm, ra);
}

#endif /* ST_RETURN_CHECK_H */
