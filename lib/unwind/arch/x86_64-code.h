/* x86_64's readings of machine code for the unwinders (fast-arch.h):
   the shape of entries and exits (x86_64-entry.c), and call
   instructions (x86_64-call.c).  */
#ifndef ST_ARCH_X86_64_CODE_H
#define ST_ARCH_X86_64_CODE_H

#include "unwind/fast-arch.h"

gboolean st_x86_64_leaf_rule (const StLeafCode *code, StLeafRule *rule);
gboolean st_x86_64_follows_call (const uint8_t *before, size_t len);

#endif /* ST_ARCH_X86_64_CODE_H */
