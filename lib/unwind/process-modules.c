#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/load-bias.h"
#include "unwind/process-modules.h"

void
st_process_modules_init (StProcessModules *pm, StModuleCache *cache)
{
  memset (pm, 0, sizeof *pm);
  pm->cache = cache;
}

static void
release_all (StProcessModules *pm)
{
  for (guint i = 0; i < pm->n; i++)
    st_module_cache_release (pm->cache, pm->mods[i].module);
  pm->n = 0;
  pm->last = 0;
}

/* Releases the modules of PENDING and frees it.  */
static void
release_pending (StProcessModules *pm, GPtrArray *pending)
{
  if (pending == NULL)
    return;
  for (guint i = 0; i < pending->len; i++)
    st_module_cache_release (pm->cache, pending->pdata[i]);
  g_ptr_array_unref (pending);
}

void
st_process_modules_clear (StProcessModules *pm)
{
  release_pending (pm, g_steal_pointer (&pm->pending));
  release_all (pm);
  g_free (pm->mods);
  pm->mods = NULL;
  pm->cap = 0;
  g_clear_pointer (&pm->deferred, g_free);
  pm->n_deferred = pm->deferred_cap = 0;
}

static void
add_deferred (StProcessModules *pm, const StMap *map)
{
  if (pm->n_deferred == pm->deferred_cap)
    {
      pm->deferred_cap = MAX (4, 2 * pm->deferred_cap);
      pm->deferred = g_renew (StProcessMapping, pm->deferred,
                              pm->deferred_cap);
    }
  pm->deferred[pm->n_deferred].start = map->start;
  pm->deferred[pm->n_deferred].end = map->end;
  pm->n_deferred++;
}

uint64_t
st_process_modules_deferred_among_slow (const StProcessModules *pm,
                                        const uint64_t *ips, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    for (guint j = 0; j < pm->n_deferred; j++)
      if (pm->deferred[j].start <= ips[i] && ips[i] < pm->deferred[j].end)
        return ips[i];
  return 0;
}

static int
by_start (const void *a, const void *b)
{
  const StProcessModule *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

void
st_process_modules_build (StProcessModules *pm, const StAddressSpace *as)
{
  guint n_maps = st_address_space_size (as);
  StProcessModule *cands = g_new (StProcessModule, MAX (n_maps, 1));
  GPtrArray *pending = NULL;
  guint n = 0;

  pm->n_deferred = 0;
  /* New uses first, then the old ones go: a module in both is never
     left unused in between (and so never evicted and reopened).  */
  for (guint i = 0; i < n_maps; i++)
    {
      const StMap *map = st_address_space_get (as, i);
      uint64_t bias;

      if (!st_map_is_module (map))
        continue;
      StModule *m = st_module_cache_acquire (pm->cache, map);
      if (!st_module_ready (m))
        {
          /* Its preparation is queued (acquire did it): next time.  */
          if (pending == NULL)
            pending = g_ptr_array_new ();
          g_ptr_array_add (pending, m);
          continue;
        }
      /* Another mapping of a load already listed (a file's segments
         after its first): nothing new, and no bias to work out.  */
      gboolean in_listed_load = FALSE;
      for (guint j = 0; j < n && !in_listed_load; j++)
        in_listed_load = cands[j].module == m && cands[j].start <= map->start
                         && map->end <= cands[j].end;
      if (!in_listed_load && m->elf == NULL && m->fetch_deferred)
        add_deferred (pm, map);
      if (in_listed_load || m->elf == NULL || !st_load_bias (m, map, as, &bias))
        {
          st_module_cache_release (pm->cache, m);
          continue;
        }
      StProcessModule c = { m, bias + m->low_vaddr, bias + m->high_vaddr,
                            bias };
      gboolean dup = FALSE;
      for (guint j = 0; j < n && !dup; j++)
        dup = cands[j].module == m && cands[j].start == c.start;
      if (dup)
        st_module_cache_release (pm->cache, m);
      else
        cands[n++] = c;
    }
  qsort (cands, n, sizeof *cands, by_start);
  release_all (pm);
  release_pending (pm, pm->pending);
  pm->pending = pending;

  if (pm->cap < n)
    {
      pm->cap = n;
      pm->mods = g_renew (StProcessModule, pm->mods, pm->cap);
    }
  if (pm->layout_partial)
    pm->layout = NULL;
  uint64_t covered = 0;
  pm->stack_roots = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (cands[i].start < covered)
        {
          /* Overlaps the previous module: a stale mapping.  */
          st_module_cache_release (pm->cache, cands[i].module);
          continue;
        }
      pm->mods[pm->n++] = cands[i];
      covered = cands[i].end;
      pm->stack_roots |= cands[i].module->n_stack_roots > 0;
      if (pm->layout == NULL)
        pm->layout = st_register_layout (cands[i].module->machine);
    }
  g_free (cands);
  pm->layout_partial = st_process_modules_partial (pm);
  pm->maps_generation = st_address_space_generation (as);
  pm->ready_generation = st_module_cache_ready_generation (pm->cache);
  pm->retry_generation = st_module_cache_retry_generation (pm->cache);
}

StModulesReadiness
st_process_modules_readiness (const StProcessModules *pm)
{
  StModulesReadiness r = ST_MODULES_READY;

  for (guint i = 0; pm->pending != NULL && i < pm->pending->len; i++)
    {
      const StModule *m = pm->pending->pdata[i];
      if (st_module_fetching (m))
        return ST_MODULES_FETCHING;
      if (!st_module_ready (m))
        r = ST_MODULES_PREPARING;
    }
  return r;
}

void
st_process_modules_remove (StProcessModules *pm, guint i)
{
  st_module_cache_release (pm->cache, pm->mods[i].module);
  memmove (pm->mods + i, pm->mods + i + 1,
           (pm->n - i - 1) * sizeof *pm->mods);
  pm->n--;
  pm->last = 0;
}

gboolean
st_process_modules_stack_root (StProcessModules *pm, uint64_t addr)
{
  const StProcessModule *m = st_process_modules_find (pm, addr);

  if (m == NULL)
    return FALSE;
  const StModule *mod = m->module;
  uint64_t vaddr = addr - m->bias;
  for (guint i = 0; i < mod->n_stack_roots; i++)
    if (vaddr >= mod->stack_roots[2 * i] && vaddr < mod->stack_roots[2 * i + 1])
      return TRUE;
  return FALSE;
}
