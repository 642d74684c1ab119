#include "config.h"

#include <string.h>

#include "unwind/code-bytes.h"
#include "unwind/return-check.h"

/* The longest call instruction x86_64 has; more than aarch64's 4.  */
#define CALL_MAX 16

StReturnCheck *
st_return_check_new (void)
{
  return g_new0 (StReturnCheck, 1);
}

void
st_return_check_free (StReturnCheck *rc)
{
  g_free (rc);
}

void
st_return_check_clear (StReturnCheck *rc)
{
  if (rc != NULL)
    memset (rc, 0, sizeof *rc);
}

gboolean
st_return_follows_call (const StFastArch *arch, StProcessModules *pm,
                        uint64_t ra)
{
  gboolean ok = TRUE;

  if (arch != NULL && arch->follows_call != NULL && ra != 0)
    {
      /* A return address may lie just past its call's module.  */
      const StProcessModule *m = st_process_modules_find (pm, ra - 1);
      uint8_t before[CALL_MAX];
      size_t n = m != NULL ? st_code_bytes_before (m, ra, before, CALL_MAX)
                           : 0;
      /* Go starts a goroutine with a return address made up: just past
         the NOP that begins runtime.goexit, a stack root.  */
      if (n > 0)
        ok = arch->follows_call (before + CALL_MAX - n, n)
             || (pm->stack_roots && st_process_modules_stack_root (pm, ra - 1));
    }
  return ok;
}

gboolean
st_return_check_slow (StReturnCheck *rc, const StFastArch *arch,
                      StProcessModules *pm, uint64_t ra)
{
  gboolean ok = st_return_follows_call (arch, pm, ra);
  StReturnCheckSlot *s
    = &rc->slots[(ra * 0x9e3779b97f4a7c15ull) >> (64 - ST_RETURN_CHECK_BITS)];
  s->ra = ra;
  s->follows_call = ok;
  return ok;
}
