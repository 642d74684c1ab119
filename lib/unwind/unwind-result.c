#include "config.h"

#include "unwind/unwind-result.h"

static const char *const cause_names[ST_CAUSE_N] = {
  "none", "stack-end", "memory", "no-module", "no-cfi", "no-regs",
  "no-maps", "arch", "max-depth", "loop", "file-shrank",
  "not-after-call"
};

static const char *const fallback_names[ST_FALLBACK_N] = {
  "none", "arch", "expression", "signal-frame", "other"
};

const char *
st_unwind_cause_name (StUnwindCause cause)
{
  return cause < ST_CAUSE_N ? cause_names[cause] : "unknown";
}

const char *
st_fallback_reason_name (StFallbackReason reason)
{
  return reason < ST_FALLBACK_N ? fallback_names[reason] : "unknown";
}
