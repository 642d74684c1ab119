/* Offline unwinding of raw-stack samples with libdwfl (elfutils 0.188
   public API): one Dwfl per process, reused across its samples, modules
   reported from the process's mappings, memory served from the stack
   copy or the mapped files.  */
#ifndef ST_DWFL_UNWINDER_H
#define ST_DWFL_UNWINDER_H

#include <elfutils/libdwfl.h>
#include <glib.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"

#define ST_UNWIND_MAX_FRAMES 256

typedef enum
{
  ST_UNWIND_COMPLETE,   /* reached the outermost frame */
  ST_UNWIND_TRUNCATED,  /* some frames, then stopped early */
  ST_UNWIND_FAILED,     /* not even the sampled frame */
} StUnwindStatus;

typedef enum
{
  ST_CAUSE_NONE,
  ST_CAUSE_STACK_END,   /* needed memory beyond the stack copy */
  ST_CAUSE_MEMORY,      /* needed unreadable memory elsewhere */
  ST_CAUSE_NO_MODULE,   /* a PC in no known module */
  ST_CAUSE_NO_CFI,      /* libdwfl could not unwind a frame */
  ST_CAUSE_NO_REGS,     /* registers missing or unsupported ABI */
  ST_CAUSE_NO_MAPS,     /* nothing known of the process's mappings */
  ST_CAUSE_ARCH,        /* unsupported architecture */
  ST_CAUSE_MAX_DEPTH,   /* ST_UNWIND_MAX_FRAMES reached */
  ST_CAUSE_LOOP,        /* the stack pointer went down, or a frame repeated */
  ST_CAUSE_N
} StUnwindCause;

typedef struct
{
  StUnwindStatus status;
  StUnwindCause cause;
  uint32_t n_ips;
  uint32_t n_stitched;  /* frames borrowed from the thread's last chain */
  const char *detail;   /* libdwfl's message when it failed, or NULL */
} StUnwindResult;

typedef struct StDwflUnwinder StDwflUnwinder;

/* Takes no ownership of MODULES; it must outlive the unwinder and every
   process state the unwinder attaches.  */
StDwflUnwinder *st_dwfl_unwinder_new (StModuleCache *modules);
void st_dwfl_unwinder_free (StDwflUnwinder *u);

/* Unwinds raw-stack event EV of process P into IPS (leaf first; the leaf
   is the sampled IP, callers are return address - 1) and SPS (each
   frame's stack pointer, 0 when unknown), both of MAX_IPS entries.  */
void st_dwfl_unwinder_unwind (StDwflUnwinder *u, StProcess *p,
                              const StEvent *ev, uint64_t *ips,
                              uint64_t *sps, uint32_t max_ips,
                              StUnwindResult *result);

/* The process's Dwfl with its modules reported (for symbolizing), or NULL
   if it has none.  */
Dwfl *st_dwfl_unwinder_dwfl (StDwflUnwinder *u, StProcess *p);

const char *st_unwind_cause_name (StUnwindCause cause);

#endif /* ST_DWFL_UNWINDER_H */
