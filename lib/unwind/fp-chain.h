/* The recorder's frame-pointer chain as a second source: a raw-stack
   sample recorded with PERF_SAMPLE_CALLCHAIN (and exclude_callchain_user
   unset, as Sysprof-style recorders ask) also carries the user chain the
   kernel found by walking frame pointers.  Where DWARF unwinding stopped
   early, the chain goes on with that walk's frames beyond the frame
   where both agree.  */
#ifndef ST_FP_CHAIN_H
#define ST_FP_CHAIN_H

#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"

/* FP (N_FP entries): the sampled IP, then return addresses, leaf first.
   (IPS, SPS, *N): a chain DWARF left short (IPS: the leaf, then return
   address - 1).  The two must agree on the sampled IP, and every entry
   of FP up to the one matching DWARF's outermost frame must match a
   DWARF frame, in order (the frame-pointer walk skips the callers of
   functions without frame pointers, never adds frames).  Then FP's
   later entries are appended (as return address - 1, stack pointer 0)
   while they lie in code mapped by the process (MAPS) and, when
   IS_RETURN is not NULL, IS_RETURN (USER, entry) says they may be return
   addresses (they follow a call), up to MAX frames.  Returns the number
   of frames appended.  */
typedef gboolean (*StFpChainCheck) (void *user, uint64_t ra);
uint32_t st_fp_chain_continue (const uint64_t *fp, uint32_t n_fp,
                               const StAddressSpace *maps, uint64_t *ips,
                               uint64_t *sps, uint32_t *n, uint32_t max,
                               StFpChainCheck is_return, void *user);

#endif /* ST_FP_CHAIN_H */
