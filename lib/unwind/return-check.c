#include "config.h"

#include <string.h>

#include "unwind/code-bytes.h"
#include "unwind/return-check.h"

/* The longest call instruction x86_64 has; more than aarch64's 4.  */
#define CALL_MAX 16

StReturnCheck *
st_return_check_new (guint bits)
{
  StReturnCheck *rc = g_malloc0 (sizeof *rc
                                 + (sizeof (StReturnCheckSlot) << bits));
  rc->mask = ((uint64_t) 1 << bits) - 1;
  return rc;
}

size_t
st_return_check_bytes (const StReturnCheck *rc)
{
  return sizeof *rc + sizeof (StReturnCheckSlot) * (rc->mask + 1);
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
    memset (rc->slots, 0, st_return_check_bytes (rc) - sizeof *rc);
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
st_return_check_fill (StReturnCheck *rc, uint64_t key,
                      const StFastArch *arch, StProcessModules *pm,
                      uint64_t ra)
{
  gboolean ok = st_return_follows_call (arch, pm, ra);
  StReturnCheckSlot *s = &rc->slots[key & rc->mask];
  s->key = key;
  s->follows_call = ok;
  return ok;
}
