/* The memory of a sampled thread as far as we can know it: the stack
   copy, then the contents of the files mapped by the process.  Both
   engines read through this, so they see the same bytes and fail on the
   same reads; the failures are recorded, because a walk that ends on an
   unreadable return address is only told from the outermost frame by
   them (see walk-outcome.h).  */
#ifndef ST_SAMPLE_MEMORY_H
#define ST_SAMPLE_MEMORY_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"

typedef struct
{
  const StEvent *ev;
  uint64_t sp;                 /* address of the stack copy's first byte */
  const uint8_t *stack;
  uint64_t stack_size;
  unsigned width;              /* bytes per word: 4 or 8 */
  uint64_t fast_end;           /* 64-bit words at offsets below this
                                  are read inline */
  StProcess *process;          /* for reads outside the stack copy */
  StModuleCache *modules;

  /* Frames delivered so far, maintained by the walker; a failed read
     records it.  */
  uint32_t frame;
  uint32_t failed_at_frame;    /* FRAME at the last failed read */
  gboolean failed_read;
  gboolean failed_past_stack;  /* some failed read lay beyond the copy */
  gboolean unready_read;       /* some read failed on a file whose module
                                  was not ready (JIT-style priming) */
} StSampleMemory;

void st_sample_memory_init (StSampleMemory *m, const StEvent *ev,
                            uint64_t sp, StProcess *process,
                            StModuleCache *modules);

/* M for another walk of its sample: no frame delivered, no read
   failed.  */
static inline void
st_sample_memory_restart (StSampleMemory *m)
{
  m->frame = 0;
  m->failed_at_frame = 0;
  m->failed_read = FALSE;
  m->failed_past_stack = FALSE;
  m->unready_read = FALSE;
}

/* Reads the word at ADDR (zero-extended).  */
gboolean st_sample_memory_read_slow (StSampleMemory *m, uint64_t addr,
                                     uint64_t *value);

static inline gboolean
st_sample_memory_read (StSampleMemory *m, uint64_t addr, uint64_t *value)
{
  /* Below SP, the offset wraps and is never below FAST_END.  */
  uint64_t off = addr - m->sp;

  if (off < m->fast_end)
    {
      memcpy (value, m->stack + off, 8);
      return TRUE;
    }
  return st_sample_memory_read_slow (m, addr, value);
}

/* Reads the 32 bits of code at ADDR, as a little-endian word (an
   instruction, or a few bytes of one).  A code read that fails says
   nothing about the stack copy: it is not recorded as a failed read of
   the walk.  */
gboolean st_sample_memory_read_code32 (StSampleMemory *m, uint64_t addr,
                                       uint32_t *code);

#endif /* ST_SAMPLE_MEMORY_H */
