/* x86_64: whether a return address follows a call instruction.  The
   byte forms of a call are `call rel32` (E8 and four bytes, maybe after
   a `bnd` prefix, F2) and `call r/m64` (FF /2: legacy prefixes, a REX
   prefix, FF, a ModRM byte whose reg field is 2, then a SIB byte and a
   displacement of 0, 1 or 4 bytes as ModRM says).  A return address
   read from the stack that no such instruction ends at was never pushed
   by a call: the frame that gave it is misread.  */
#include "config.h"

#include "unwind/arch/x86_64-code.h"

static gboolean
legacy_prefix (uint8_t b)
{
  switch (b)
    {
    case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
    case 0x66: case 0x67: case 0xf2: case 0xf3:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Whether a `call r/m64` starts at P and is exactly N bytes long.  */
static gboolean
indirect_call (const uint8_t *p, size_t n)
{
  size_t i = 0;

  while (i < n && legacy_prefix (p[i]))
    i++;
  if (i < n && (p[i] & 0xf0) == 0x40)
    i++;
  if (n - i < 2 || p[i] != 0xff)
    return FALSE;
  uint8_t modrm = p[i + 1];
  unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  size_t len = i + 2;

  if (reg != 2)
    return FALSE;
  if (mod != 3 && rm == 4)
    {
      if (len >= n)
        return FALSE;
      /* A SIB byte; base 5 without displacement means disp32.  */
      if (mod == 0 && (p[len] & 7) == 5)
        len += 4;
      len++;
    }
  else if (mod == 0 && rm == 5)
    len += 4;             /* RIP-relative */
  if (mod == 1)
    len += 1;
  else if (mod == 2)
    len += 4;
  return len == n;
}

gboolean
st_x86_64_follows_call (const uint8_t *before, size_t len)
{
  if (len >= 5 && before[len - 5] == 0xe8)
    return TRUE;
  /* The longest form: prefixes, REX, FF, ModRM, SIB, disp32.  */
  for (size_t n = 2; n <= len && n <= 15; n++)
    if (indirect_call (before + len - n, n))
      return TRUE;
  return FALSE;
}
