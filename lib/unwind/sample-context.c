/* A sample's registers, memory and process, set up once per sample
   (sample-context.h).  */
#include "config.h"

#include <string.h>

#include "unwind/sample-context.h"
#include "util/popcount.h"

void
st_register_maps_init (StRegisterMaps *maps)
{
  memset (maps, 0, sizeof *maps);
}

/* Position of perf register PERF_REG in the array of samples with MASK
   and N_REGS values, or -1 (st_event_register's reading).  */
static int
array_index (uint64_t mask, uint32_t n_regs, int perf_reg)
{
  if (perf_reg < 0 || perf_reg > 63 || !(mask & (1ull << perf_reg)))
    return -1;
  guint index = st_popcount64 (mask & ((1ull << perf_reg) - 1));
  return index < n_regs ? (int) index : -1;
}

const StRegisterMap *
st_register_maps_get_slow (StRegisterMaps *maps,
                           const StRegisterLayout *layout, const StEvent *ev)
{
  const uint64_t mask = ev->stack.regs_mask;
  const uint32_t n_regs = ev->stack.n_regs;

  for (guint i = 0; i < ST_REGISTER_MAPS; i++)
    {
      const StRegisterMap *m = &maps->maps[i];
      if (m->layout == layout && m->mask == mask && m->n_regs == n_regs)
        {
          maps->last = i;
          return m;
        }
    }

  StRegisterMap *m = &maps->maps[maps->next];
  maps->last = maps->next;
  maps->next = (maps->next + 1) % ST_REGISTER_MAPS;
  m->layout = layout;
  m->mask = mask;
  m->n_regs = n_regs;
  m->set = 0;
  m->dwarf_sp = 0;
  for (guint i = 0; i < ST_MAX_DWARF_REGS; i++)
    {
      int perf = i < layout->n_dwarf ? layout->perf_of_dwarf[i] : -1;
      m->index[i] = array_index (mask, n_regs, perf);
      if (m->index[i] >= 0)
        m->set |= 1u << i;
      if (i < layout->n_dwarf && perf == layout->perf_sp)
        m->dwarf_sp = i;
    }
  m->ip_index = array_index (mask, n_regs, layout->perf_ip);
  m->sp_index = array_index (mask, n_regs, layout->perf_sp);
  return m;
}

gboolean
st_sample_context_start_slow (StSampleContext *c,
                              const StRegisterLayout *layout)
{
  /* (Another layout than the last: the libdwfl engine's list of the
     process's modules may tell another one than the fast engine's.)  */
  c->layout = layout;
  c->regs_decoded = FALSE;
  c->has_pc_sp = FALSE;
  if (layout == NULL)
    {
      c->map = NULL;
      return FALSE;
    }
  const StRegisterMap *m = st_register_maps_get (c->maps, layout, c->ev);
  c->map = m;
  if (m->ip_index < 0 || m->sp_index < 0)
    return FALSE;
  c->pc = c->ev->stack.regs[m->ip_index];
  c->sp = c->ev->stack.regs[m->sp_index];
  c->has_pc_sp = TRUE;
  return TRUE;
}

void
st_sample_context_decode (StSampleContext *c)
{
  const StRegisterMap *m = c->map;
  const StRegisterLayout *l = c->layout;
  const uint64_t *values = c->ev->stack.regs;

  c->regs.set = m->set;
  for (guint i = 0; i < l->n_dwarf; i++)
    if (m->index[i] >= 0)
      c->regs.regs[i] = values[m->index[i]];
  /* The PC column too, as libdwfl is given it (a PLT's CFA reads it).  */
  if (l->dwarf_pc >= 0 && l->dwarf_pc < ST_FRAME_MAX_REGS)
    {
      c->regs.regs[l->dwarf_pc] = c->pc;
      c->regs.set |= 1u << l->dwarf_pc;
    }
  c->regs_decoded = TRUE;
}

gboolean
st_sample_context_guess_pc (StSampleContext *c, uint64_t *pc, uint64_t *sp)
{
  if (!c->guessed)
    {
      const StRegisterLayout *l = st_register_layout_guess (c->ev);
      c->guess_has_pc = l != NULL
                        && st_event_register (c->ev, l->perf_ip,
                                              &c->guess_pc);
      c->guess_has_sp = c->guess_has_pc
                        && st_event_register (c->ev, l->perf_sp,
                                              &c->guess_sp);
      c->guessed = TRUE;
    }
  if (!c->guess_has_pc)
    return FALSE;
  *pc = c->guess_pc;
  *sp = c->guess_has_sp ? c->guess_sp : 0;
  return TRUE;
}
