/* Reading the numbers of DWARF call frame information (LEB128, fixed
   little-endian fields, .eh_frame's DW_EH_PE_* pointer encodings),
   bounded by the end of their data: each reader returns FALSE rather
   than pass END, and advances *PP past what it read.  */
#ifndef ST_DWARF_BYTES_H
#define ST_DWARF_BYTES_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

/* DW_EH_PE_* pointer encodings (the LSB's .eh_frame format).  */
enum
{
  ST_PE_ABSPTR = 0x00, ST_PE_ULEB128 = 0x01, ST_PE_UDATA2 = 0x02,
  ST_PE_UDATA4 = 0x03, ST_PE_UDATA8 = 0x04, ST_PE_SLEB128 = 0x09,
  ST_PE_SDATA2 = 0x0a, ST_PE_SDATA4 = 0x0b, ST_PE_SDATA8 = 0x0c,
  ST_PE_PCREL = 0x10, ST_PE_DATAREL = 0x30,
};

/* A LEB128 number, signed or not.  Longer than 9 bytes (63 bits) it is
   left to libdw, which cuts such numbers short its own way.  */
static inline gboolean
st_read_leb (const uint8_t **pp, const uint8_t *end, uint64_t *out,
             gboolean is_signed)
{
  uint64_t v = 0;
  unsigned shift = 0;

  for (const uint8_t *p = *pp; p < end && shift < 63; p++)
    {
      v |= (uint64_t) (*p & 0x7f) << shift;
      shift += 7;
      if (!(*p & 0x80))
        {
          if (is_signed && (*p & 0x40))
            v |= ~(uint64_t) 0 << shift;
          *pp = p + 1;
          *out = v;
          return TRUE;
        }
    }
  return FALSE;
}

static inline gboolean
st_read_uleb (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  if (*pp < end && **pp < 0x80)     /* nearly always */
    {
      *out = *(*pp)++;
      return TRUE;
    }
  return st_read_leb (pp, end, out, FALSE);
}

static inline gboolean
st_read_sleb (const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
  if (*pp < end && **pp < 0x80)
    {
      uint64_t v = *(*pp)++;
      *out = v & 0x40 ? v | ~(uint64_t) 0x7f : v;
      return TRUE;
    }
  return st_read_leb (pp, end, out, TRUE);
}

/* An unsigned little-endian field of N bytes (the host's order: the
   caller checks that it is little-endian).  */
static inline gboolean
st_read_fixed (const uint8_t **pp, const uint8_t *end, unsigned n,
               uint64_t *out)
{
  uint64_t v = 0;

  if ((size_t) (end - *pp) < n)
    return FALSE;
  memcpy (&v, *pp, n);
  *pp += n;
  *out = v;
  return TRUE;
}

/* A pointer in encoding ENC at *PP, whose own address is PP_VADDR;
   DATAREL the base of datarel pointers (0: none allowed).  Only the
   encodings linkers use are understood: absolute, pc-relative and
   datarel, of 2, 4 or 8 bytes or LEB128; not indirect ones.  */
gboolean st_read_encoded (const uint8_t **pp, const uint8_t *end,
                          uint8_t enc, uint64_t pp_vaddr, uint64_t datarel,
                          uint64_t *out);

#endif /* ST_DWARF_BYTES_H */
