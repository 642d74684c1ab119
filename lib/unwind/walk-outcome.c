#include "config.h"

#include <string.h>

#include "unwind/walk-outcome.h"

gboolean
st_walk_start (StUnwindResult *res, StUnwindPath path, const StProcess *p,
               const StProcessModules *pm)
{
  memset (res, 0, sizeof *res);
  res->status = ST_UNWIND_FAILED;
  res->path = path;
  res->unprimed = st_process_modules_partial (pm);
  if (st_address_space_size (p->maps) == 0)
    res->cause = ST_CAUSE_NO_MAPS;
  else if (pm->layout == NULL)
    {
      /* No usable module, or none of a supported architecture.  */
      res->cause = pm->n == 0 ? ST_CAUSE_NO_MODULE : ST_CAUSE_ARCH;
      /* No walk tells which file it would need: any one to fetch lets
         it start (and then ask for the next it meets).  */
      if (pm->n_deferred > 0)
        res->deferred_pc = pm->deferred[0].start;
    }
  else
    return TRUE;
  return FALSE;
}

const char *
st_walk_loops_slow (const uint64_t *ips, const uint64_t *sps, uint32_t n,
                    uint64_t pc, uint64_t sp)
{
  if (n == 0 || sp == 0)
    return NULL;
  if (sps[n - 1] != 0 && sp < sps[n - 1])
    return "the stack pointer went down";
  for (uint32_t j = n; j > 0 && sps[j - 1] == sp; j--)
    if (ips[j - 1] == pc)
      return "a frame (PC and SP) repeated";
  return NULL;
}

void
st_walk_outcome (const uint64_t *ips, uint32_t *n, uint32_t max,
                 gboolean outermost, const char *loop,
                 gboolean not_after_call, const StSampleMemory *mem,
                 const StWalkOracle *o, StUnwindResult *res)
{
  res->cause = ST_CAUSE_NONE;
  res->no_module_pc = 0;
  if (mem->unready_read)
    res->unprimed = TRUE;
  /* Past a stack root the walk read stale frames or data.  */
  if (G_UNLIKELY (o->stack_root != NULL))
    for (uint32_t i = 0; i < *n; i++)
      if (o->stack_root (o->user, ips[i]))
        {
          res->n_ips = *n = i + 1;
          res->status = ST_UNWIND_COMPLETE;
          res->deferred_pc = st_process_modules_deferred_among (o->modules,
                                                                ips, *n);
          return;
        }
  /* (Before the frames past the last known module are dropped.)  */
  res->deferred_pc = st_process_modules_deferred_among (o->modules, ips, *n);
  /* Frames past the last one in a known module are garbage read from a
     wrong CFA: drop them.  */
  while (*n > 1 && !o->in_module (o->user, ips[*n - 1]))
    {
      res->no_module_pc = ips[*n - 1];
      (*n)--;
      outermost = FALSE;
      res->cause = ST_CAUSE_NO_MODULE;
    }
  res->n_ips = *n;

  if (*n == 0)
    {
      res->status = ST_UNWIND_FAILED;
      res->cause = ST_CAUSE_NO_REGS;
      res->detail = o->detail (o->user);
      return;
    }
  if (loop != NULL)
    {
      res->status = ST_UNWIND_TRUNCATED;
      res->cause = ST_CAUSE_LOOP;
      res->detail = loop;
      return;
    }
  /* Saved state beyond the stack copy, or an unreadable return address
     of the last frame, cut the chain.  */
  gboolean cut = mem->failed_past_stack
                 || (mem->failed_read && mem->failed_at_frame == *n);
  if ((outermost && !cut) || o->at_entry_point (o->user, ips[*n - 1]))
    {
      res->status = ST_UNWIND_COMPLETE;
      res->cause = ST_CAUSE_NONE;
      return;
    }
  if (!o->in_module (o->user, ips[0]))
    {
      res->no_module_pc = ips[0];
      res->status = ST_UNWIND_FAILED;
      res->cause = ST_CAUSE_NO_MODULE;
      return;
    }
  res->status = ST_UNWIND_TRUNCATED;
  if (*n >= max)
    res->cause = ST_CAUSE_MAX_DEPTH;
  else if (not_after_call)
    {
      res->cause = ST_CAUSE_NOT_AFTER_CALL;
      res->detail = "a return address follows no call instruction";
    }
  else if (cut)
    res->cause = mem->failed_past_stack ? ST_CAUSE_STACK_END : ST_CAUSE_MEMORY;
  else if (res->cause == ST_CAUSE_NONE)
    {
      res->cause = ST_CAUSE_NO_CFI;
      res->detail = o->detail (o->user);
    }
}

/* Whether M's file, or the separate debug file libdwfl reads for it,
   shrank under its mapping.  */
static gboolean
module_shrank (const StModule *m)
{
  return st_mapping_guard_faulted (m->guard, NULL)
         || st_mapping_guard_faulted (__atomic_load_n (&m->debug_guard,
                                                       __ATOMIC_ACQUIRE),
                                      NULL);
}

void
st_walk_drop_shrunk_slow (StUnwindResult *res, const uint64_t *ips,
                          StProcessModules *pm)
{
  for (uint32_t i = 0; i < res->n_ips; i++)
    {
      /* A return address may be just past its call's module.  */
      uint64_t pc = i == 0 ? ips[i] : ips[i] - 1;
      const StProcessModule *m = st_process_modules_find (pm, pc);
      if (m == NULL || !module_shrank (m->module))
        continue;
      res->n_ips = i;
      res->status = i == 0 ? ST_UNWIND_FAILED : ST_UNWIND_TRUNCATED;
      res->cause = ST_CAUSE_FILE_SHRANK;
      res->detail = m->module->name;
      return;
    }
}
