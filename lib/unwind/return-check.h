/* Return addresses checked against the code: one that no call
   instruction ends at (fast-arch.h, follows_call) was never pushed by a
   call, so the frame that gave it was misread and the walk stops there
   (ST_CAUSE_NOT_AFTER_CALL).  Only addresses in a process module (file
   code) are checked; JIT code and addresses in no module are not, nor
   those in a stack root (Go's goroutines "return" to runtime.goexit
   past a NOP, stack-roots.h).

   Every frame of every walk asks, and reading the code is the costly
   part (the first read of a code page maps it), so each answer is kept
   in an exact table, by a key for the address: every address is read
   once.  The fast engine keeps one per module, by ELF address
   (rule-cache.h, which answers most frames from its hot table first),
   the libdwfl engine one per process, by address, emptied when the
   process's modules are rebuilt (an address may then belong to another
   file).  */
#ifndef ST_RETURN_CHECK_H
#define ST_RETURN_CHECK_H

#include <glib.h>
#include <stdint.h>

#include "unwind/fast-arch.h"
#include "unwind/process-modules.h"

typedef struct StReturnCheck StReturnCheck;

/* An empty table; it grows with the addresses it holds.  */
StReturnCheck *st_return_check_new (void);
void st_return_check_free (StReturnCheck *rc);
void st_return_check_clear (StReturnCheck *rc);
/* Its size in bytes.  */
size_t st_return_check_bytes (const StReturnCheck *rc);

/* The answer for RA in PM's modules, kept nowhere.  */
gboolean st_return_follows_call (const StFastArch *arch, StProcessModules *pm,
                                 uint64_t ra);

/* The answer for RA, kept in RC under KEY (one key per address).  */
gboolean st_return_check_keyed (StReturnCheck *rc, uint64_t key,
                                const StFastArch *arch, StProcessModules *pm,
                                uint64_t ra);

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
