/* x86_64: whether a return address follows a call instruction.  The
   byte forms of a call are `call rel32` (E8 and four bytes, maybe after
   a `bnd` prefix, F2) and `call r/m64` (FF /2: legacy prefixes, a REX
   prefix, FF, a ModRM byte whose reg field is 2, then a SIB byte and a
   displacement of 0, 1 or 4 bytes as ModRM says; the prefixes change
   neither the length after FF nor what the instruction is, so only that
   part is read).  A return address
   read from the stack that no such instruction ends at was never pushed
   by a call: the frame that gave it is misread.  */
#include "config.h"

#include "unwind/arch/x86_64-code.h"

/* The length of a `call r/m64` whose opcode FF is at P (ModRM and what
   follows in P[1..N)), or 0 if P is no such call.  Prefixes before the
   FF change neither what it is nor its length.  */
static size_t
indirect_call_length (const uint8_t *p, size_t n)
{
  if (n < 2 || p[0] != 0xff)
    return 0;
  uint8_t modrm = p[1];
  unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  size_t len = 2;

  if (reg != 2)
    return 0;
  if (mod != 3 && rm == 4)
    {
      if (n < 3)
        return 0;
      /* A SIB byte; base 5 without displacement means disp32.  */
      if (mod == 0 && (p[2] & 7) == 5)
        len += 4;
      len++;
    }
  else if (mod == 0 && rm == 5)
    len += 4;             /* RIP-relative */
  if (mod == 1)
    len += 1;
  else if (mod == 2)
    len += 4;
  return len;
}

gboolean
st_x86_64_follows_call (const uint8_t *before, size_t len)
{
  if (len >= 5 && before[len - 5] == 0xe8)
    return TRUE;
  /* An FF whose call form ends just there: from FF ModRM (2 bytes) to FF
     ModRM SIB disp32 (7).  */
  for (size_t n = 2; n <= len && n <= 7; n++)
    if (indirect_call_length (before + len - n, n) == n)
      return TRUE;
  return FALSE;
}
