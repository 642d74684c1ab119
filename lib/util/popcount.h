/* Bits set in a 64-bit word, inline.  __builtin_popcountll becomes a
   call to libgcc's __popcountdi2 on baseline x86-64 (no popcnt
   instruction), and the readers count register and sample-field masks
   for every sample.  */
#ifndef ST_POPCOUNT_H
#define ST_POPCOUNT_H

#include <stdint.h>

static inline unsigned
st_popcount64 (uint64_t v)
{
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (unsigned) ((v * 0x0101010101010101ull) >> 56);
}

#endif /* ST_POPCOUNT_H */
