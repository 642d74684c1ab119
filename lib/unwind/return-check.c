/* The table is open addressing with linear probing, at most half full.
   A slot holds (key + 1) << 1 with the answer in bit 0; 0 is an empty
   slot.  Keys from 2^63 - 1 up (no file maps code there) are answered
   afresh each time.  */
#include "config.h"

#include <string.h>

#include "unwind/code-bytes.h"
#include "unwind/return-check.h"
#include "util/zero-filled.h"

/* The longest call instruction x86_64 has; more than aarch64's 4.  */
#define CALL_MAX 16

/* 64 slots (512 bytes) at first: most modules see a few return
   addresses; cc1's 13,000 take 32,768.  */
#define MIN_BITS 6

struct StReturnCheck
{
  uint64_t *slots;
  guint bits;           /* log2 of the number of slots */
  guint used;
};

static inline uint64_t
slot_index (uint64_t key, guint bits)
{
  return (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

static void
put (uint64_t *slots, guint bits, uint64_t stored)
{
  uint64_t mask = ((uint64_t) 1 << bits) - 1;
  uint64_t i = slot_index ((stored >> 1) - 1, bits);

  while (slots[i] != 0)
    i = (i + 1) & mask;
  slots[i] = stored;
}

static void
resize (StReturnCheck *rc, guint bits)
{
  uint64_t *old = rc->slots;
  guint old_bits = rc->bits;

  rc->slots = st_zero_filled_new (sizeof (uint64_t) << bits);
  rc->bits = bits;
  if (old == NULL)
    return;
  for (gsize i = 0; i < (gsize) 1 << old_bits; i++)
    if (old[i] != 0)
      put (rc->slots, bits, old[i]);
  g_free (old);
}

StReturnCheck *
st_return_check_new (void)
{
  StReturnCheck *rc = g_new0 (StReturnCheck, 1);
  resize (rc, MIN_BITS);
  return rc;
}

size_t
st_return_check_bytes (const StReturnCheck *rc)
{
  return sizeof *rc + (sizeof (uint64_t) << rc->bits);
}

void
st_return_check_free (StReturnCheck *rc)
{
  if (rc == NULL)
    return;
  g_free (rc->slots);
  g_free (rc);
}

void
st_return_check_clear (StReturnCheck *rc)
{
  if (rc == NULL)
    return;
  g_clear_pointer (&rc->slots, g_free);
  rc->used = 0;
  resize (rc, MIN_BITS);
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
st_return_check_keyed (StReturnCheck *rc, uint64_t key,
                       const StFastArch *arch, StProcessModules *pm,
                       uint64_t ra)
{
  if (key >= G_MAXUINT64 >> 1)
    return st_return_follows_call (arch, pm, ra);

  uint64_t want = (key + 1) << 1;
  uint64_t mask = ((uint64_t) 1 << rc->bits) - 1;
  for (uint64_t i = slot_index (key, rc->bits); rc->slots[i] != 0;
       i = (i + 1) & mask)
    if ((rc->slots[i] & ~(uint64_t) 1) == want)
      return rc->slots[i] & 1;

  gboolean ok = st_return_follows_call (arch, pm, ra);
  if (2 * ((gsize) rc->used + 1) > (gsize) 1 << rc->bits)
    resize (rc, rc->bits + 1);
  put (rc->slots, rc->bits, want | (ok != FALSE));
  rc->used++;
  return ok;
}
