/* DW_EH_PE_* pointers (dwarf-bytes.h).  */
#include "config.h"

#include "unwind/dwarf-bytes.h"

gboolean
st_read_encoded (const uint8_t **pp, const uint8_t *end, uint8_t enc,
                 uint64_t pp_vaddr, uint64_t datarel, uint64_t *out)
{
  uint64_t v, base;

  /* What every linker writes in FDEs, first.  */
  if (enc == (ST_PE_PCREL | ST_PE_SDATA4) && end - *pp >= 4)
    {
      int32_t d;
      memcpy (&d, *pp, 4);
      *pp += 4;
      *out = pp_vaddr + (uint64_t) (int64_t) d;
      return TRUE;
    }
  switch (enc & 0x70)
    {
    case ST_PE_ABSPTR:
      base = 0;
      break;
    case ST_PE_PCREL:
      base = pp_vaddr;
      break;
    case ST_PE_DATAREL:
      if (datarel == 0)
        return FALSE;
      base = datarel;
      break;
    default:
      return FALSE;
    }
  unsigned size = 0;
  gboolean is_signed = FALSE;
  switch (enc & 0x8f)
    {
    case ST_PE_ABSPTR:
    case ST_PE_UDATA8:
    case ST_PE_SDATA8:
      size = 8;
      break;
    case ST_PE_SDATA4:
      is_signed = TRUE;
      /* Fall through.  */
    case ST_PE_UDATA4:
      size = 4;
      break;
    case ST_PE_SDATA2:
      is_signed = TRUE;
      /* Fall through.  */
    case ST_PE_UDATA2:
      size = 2;
      break;
    case ST_PE_ULEB128:
      if (!st_read_uleb (pp, end, &v))
        return FALSE;
      break;
    case ST_PE_SLEB128:
      if (!st_read_sleb (pp, end, &v))
        return FALSE;
      break;
    default:
      return FALSE;     /* indirect, omit, unknown */
    }
  if (size != 0 && !st_read_fixed (pp, end, size, &v))
    return FALSE;
  if (is_signed)
    {
      unsigned shift = 64 - 8 * size;
      v = (uint64_t) ((int64_t) (v << shift) >> shift);
    }
  *out = base + v;
  return TRUE;
}
