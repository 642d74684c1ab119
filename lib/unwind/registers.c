/* The user registers of a raw-stack event, by perf register number.
   The numbering tables of each architecture are in arch/.  */
#include "config.h"

#include "unwind/registers.h"
#include "util/popcount.h"

gboolean
st_event_register (const StEvent *ev, int perf_reg, uint64_t *value)
{
  uint64_t mask = ev->stack.regs_mask;

  if (perf_reg < 0 || perf_reg > 63 || !(mask & (1ull << perf_reg)))
    return FALSE;
  guint index = st_popcount64 (mask & ((1ull << perf_reg) - 1));
  if (index >= ev->stack.n_regs)
    return FALSE;
  *value = ev->stack.regs[index];
  return TRUE;
}
