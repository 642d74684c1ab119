/* One raw-stack sample as every step of its unwinding sees it, set up
   once per sample by the unwinder's entry (unwinder.c) and passed down
   to the lean walk, the full walk, the libdwfl engine (its initial
   registers, its sampled frame read by its code) and back to the
   service's retries (sample-unwinder.c):

   - its registers, in the DWARF numbering of the layout the process's
     modules tell, decoded once: the stack pointer and PC at the start,
     the rest only when a walk needs all of them (the lean walk needs
     three);
   - the memory of the sampled thread (sample-memory.h), set up once; a
     new walk of the sample only forgets the failed reads of the last;
   - the process, looked up once by the caller.

   Where each register lies in a sample's compacted array depends only
   on the layout and the sample's register mask (fixed per recording,
   in practice), so that mapping is computed once per (layout, mask,
   count) and kept in a small table its unwinder owns (StRegisterMaps),
   as elfutils keeps its perf-to-DWARF mapping per mask.  Nothing is
   allocated per sample.

   Threads: a context belongs to the walk that set it up; its
   StRegisterMaps to one unwinder, used by one thread at a time.  */
#ifndef ST_SAMPLE_CONTEXT_H
#define ST_SAMPLE_CONTEXT_H

#include <glib.h>
#include <stdint.h>

#include "model/event.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/cfi-rules.h"
#include "unwind/registers.h"
#include "unwind/sample-memory.h"

G_STATIC_ASSERT (ST_MAX_DWARF_REGS <= 127);

/* Where the registers of LAYOUT are in the array of samples whose mask
   is MASK and which carry N_REGS values.  */
typedef struct
{
  const StRegisterLayout *layout;   /* NULL: an empty slot */
  uint64_t mask;
  uint32_t n_regs;
  uint32_t set;                     /* DWARF registers present */
  int8_t index[ST_MAX_DWARF_REGS];  /* of each DWARF register, -1: absent */
  int8_t ip_index;                  /* of perf's IP and SP, -1: absent */
  int8_t sp_index;
  /* The DWARF number perf's SP maps to (the libdwfl engine reads each
     frame's stack pointer there), 0 when none does.  */
  uint8_t dwarf_sp;
} StRegisterMap;

/* A sample stream has one mask per event type, seldom more than two.  */
#define ST_REGISTER_MAPS 4

typedef struct
{
  StRegisterMap maps[ST_REGISTER_MAPS];
  guint last;                       /* slot of the last hit */
  guint next;                       /* slot filled next */
} StRegisterMaps;

/* An empty table.  */
void st_register_maps_init (StRegisterMaps *maps);

/* The map of LAYOUT for EV's registers, computed on first use.  */
const StRegisterMap *st_register_maps_get_slow (StRegisterMaps *maps,
                                                const StRegisterLayout *layout,
                                                const StEvent *ev);
static inline const StRegisterMap *
st_register_maps_get (StRegisterMaps *maps, const StRegisterLayout *layout,
                      const StEvent *ev)
{
  const StRegisterMap *m = &maps->maps[maps->last];

  if (G_LIKELY (m->layout == layout && m->mask == ev->stack.regs_mask
                && m->n_regs == ev->stack.n_regs))
    return m;
  return st_register_maps_get_slow (maps, layout, ev);
}

typedef struct
{
  const StEvent *ev;
  StProcess *process;
  StModuleCache *modules;
  StRegisterMaps *maps;             /* the unwinder's */

  /* By st_sample_context_start: the layout the registers are read by
     (NULL: not started), its map, and whether the sample has its PC and
     stack pointer (then in PC and SP).  */
  const StRegisterLayout *layout;
  const StRegisterMap *map;
  gboolean has_pc_sp;
  uint64_t pc;
  uint64_t sp;

  gboolean regs_decoded;            /* REGS holds them */
  gboolean mem_ready;               /* MEM is set up */
  gboolean guessed;                 /* the GUESS_ fields are known */
  gboolean guess_has_pc;
  gboolean guess_has_sp;
  uint64_t guess_pc;
  uint64_t guess_sp;

  /* Every register of the sample in LAYOUT's DWARF numbering, and its
     PC in the layout's PC column (dwarf_pc) where it has one.  */
  StFrameRegs regs;
  StSampleMemory mem;
} StSampleContext;

/* Sets C up for EV of process P, nothing decoded yet.  MAPS (the
   unwinder's) and MODULES must outlive C.  */
static inline void
st_sample_context_init (StSampleContext *c, StRegisterMaps *maps,
                        StProcess *p, const StEvent *ev,
                        StModuleCache *modules)
{
  c->ev = ev;
  c->process = p;
  c->modules = modules;
  c->maps = maps;
  c->layout = NULL;
  c->map = NULL;
  c->has_pc_sp = FALSE;
  c->regs_decoded = FALSE;
  c->mem_ready = FALSE;
  c->guessed = FALSE;
}

/* Reads the sample's registers by LAYOUT (the process's): TRUE when it
   has its PC and stack pointer (C->pc, C->sp).  Cheap when called again
   with the same layout.  */
gboolean st_sample_context_start_slow (StSampleContext *c,
                                       const StRegisterLayout *layout);
static inline gboolean
st_sample_context_start (StSampleContext *c, const StRegisterLayout *layout)
{
  if (c->layout == layout)
    return c->has_pc_sp;
  /* Every sample: the last map, with its PC and stack pointer.  */
  const StRegisterMap *m = &c->maps->maps[c->maps->last];
  if (G_LIKELY (m->layout == layout && layout != NULL
                && m->mask == c->ev->stack.regs_mask
                && m->n_regs == c->ev->stack.n_regs
                && m->ip_index >= 0 && m->sp_index >= 0))
    {
      c->layout = layout;
      c->map = m;
      c->regs_decoded = FALSE;
      c->pc = c->ev->stack.regs[m->ip_index];
      c->sp = c->ev->stack.regs[m->sp_index];
      c->has_pc_sp = TRUE;
      return TRUE;
    }
  return st_sample_context_start_slow (c, layout);
}

/* DWARF register REG of the started sample: FALSE when it was not
   sampled.  */
static inline gboolean
st_sample_context_register (const StSampleContext *c, unsigned reg,
                            uint64_t *value)
{
  int index = reg < ST_MAX_DWARF_REGS ? c->map->index[reg] : -1;

  if (index < 0)
    return FALSE;
  *value = c->ev->stack.regs[index];
  return TRUE;
}

/* Every register of the started sample, decoded on first use.  */
void st_sample_context_decode (StSampleContext *c);
static inline const StFrameRegs *
st_sample_context_registers (StSampleContext *c)
{
  if (!c->regs_decoded)
    st_sample_context_decode (c);
  return &c->regs;
}

/* The sampled thread's memory for a new walk of the started sample: set
   up at its stack pointer the first time, later with the last walk's
   failed reads and frame count forgotten.  */
static inline StSampleMemory *
st_sample_context_memory (StSampleContext *c)
{
  /* (At another stack pointer only if another layout was started.)  */
  if (!c->mem_ready || G_UNLIKELY (c->mem.sp != c->sp))
    {
      st_sample_memory_init (&c->mem, c->ev, c->sp, c->process, c->modules);
      c->mem_ready = TRUE;
    }
  else
    st_sample_memory_restart (&c->mem);
  return &c->mem;
}

/* The sampled PC (and *SP its stack pointer, 0 when not sampled) by the
   layout the registers most likely follow (st_register_layout_guess),
   for when no module of the process tells its architecture: FALSE when
   there is none.  */
gboolean st_sample_context_guess_pc (StSampleContext *c, uint64_t *pc,
                                     uint64_t *sp);

#endif /* ST_SAMPLE_CONTEXT_H */
