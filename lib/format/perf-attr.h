/* perf_event_attr bytes as found in perf.data (attribute section,
   HEADER_ATTR records, the EVENT_DESC feature): the patch that goes with
   replacing raw user stacks by unwound callchains.  */
#ifndef ST_PERF_ATTR_H
#define ST_PERF_ATTR_H

#include <glib.h>
#include <stdint.h>

/* Whether samples of this sample_type carry raw user stacks: both
   REGS_USER and STACK_USER (only then is there anything to unwind).  */
gboolean st_perf_attr_has_raw_stacks (uint64_t sample_type);

/* The sample_type of such an attribute once its raw stacks are replaced
   by callchains: without REGS_USER and STACK_USER, with CALLCHAIN.  */
uint64_t st_perf_attr_unwound_sample_type (uint64_t sample_type);

/* Patches the LEN bytes of perf_event_attr at ATTR (fields its own size
   does not cover are left alone) when it has raw stacks: the unwound
   sample_type, exclude_callchain_user cleared (the callchains now hold a
   user part), sample_regs_user and sample_stack_user zeroed.  Returns
   whether it had raw stacks.  */
gboolean st_perf_attr_patch_unwound (uint8_t *attr, size_t len);

/* Applies st_perf_attr_patch_unwound to every attribute copy in the
   EVENT_DESC feature section SEC of SIZE bytes.  Returns FALSE, leaving
   SEC unchanged, when the section is malformed.  */
gboolean st_perf_event_desc_patch_unwound (uint8_t *sec, size_t size);

#endif /* ST_PERF_ATTR_H */
