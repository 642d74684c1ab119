/* Continuing a DWARF chain with the recorder's frame-pointer chain.  */
#include "config.h"

#include "model/event.h"
#include "unwind/fp-chain.h"

/* Whether ADDR may be a return address of the process: in code it maps.  */
static gboolean
in_code (const StAddressSpace *maps, uint64_t addr)
{
  const StMap *m;

  if (ST_IS_CONTEXT (addr) || addr == 0)
    return FALSE;
  m = st_address_space_find (maps, addr);
  return m != NULL && st_map_maybe_code (m);
}

uint32_t
st_fp_chain_continue (const uint64_t *fp, uint32_t n_fp,
                      const StAddressSpace *maps, uint64_t *ips,
                      uint64_t *sps, uint32_t *n, uint32_t max,
                      StFpChainCheck is_return, void *user)
{
  uint32_t k = 1;

  if (*n == 0 || n_fp < 2 || fp[0] != ips[0] || maps == NULL)
    return 0;
  /* FP as a subsequence of the DWARF frames, from the leaf.  */
  for (uint32_t i = 1; i < *n && k < n_fp; i++)
    {
      if (fp[k] - 1 != ips[i])
        continue;
      k++;
      if (i + 1 == *n)
        break;
    }
  /* The join: FP's last matched entry is DWARF's outermost frame.  */
  if (*n > 1 && (k == 1 || fp[k - 1] - 1 != ips[*n - 1]))
    return 0;

  uint32_t added = 0;
  for (; k < n_fp && *n < max && in_code (maps, fp[k])
         && (is_return == NULL || is_return (user, fp[k])); k++, added++)
    {
      ips[*n] = fp[k] - 1;
      sps[*n] = 0;
      (*n)++;
    }
  return added;
}
