/* The modules of one process as both engines see them: one entry per
   mapped ELF file (several mappings of one file at one bias are one
   module), sorted by address, never overlapping.  libdwfl is told
   exactly these (dwfl-unwinder.c), the fast engine looks addresses up in
   them (fast-unwinder.c), so "in a known module" means the same to
   both.  Each entry holds a use of its StModule (st_module_cache_acquire),
   so modules in use are never evicted.

   Only READY modules are listed (module-cache.h): a code mapping whose
   module is still being prepared on a worker is left out (and held in
   PENDING, so that it stays until the list is rebuilt), and the list is
   stale once the cache says that more modules became ready.  Without
   workers every module is ready when the list is built.  */
#ifndef ST_PROCESS_MODULES_H
#define ST_PROCESS_MODULES_H

#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/registers.h"

/* The process table's unwinder state slots (StProcess.unwind_state), one
   per engine: the fast engine keeps the libdwfl engine as its
   fallback, so a process may hold both.  */
typedef enum
{
  ST_UNWIND_SLOT_DWFL,
  ST_UNWIND_SLOT_FAST,
  ST_UNWIND_N_SLOTS
} StUnwindSlot;

G_STATIC_ASSERT (ST_UNWIND_N_SLOTS <= ST_PROCESS_UNWIND_SLOTS);

typedef struct
{
  StModule *module;
  uint64_t start;           /* runtime address of the module's first page */
  uint64_t end;             /* exclusive */
  uint64_t bias;            /* runtime address - ELF virtual address */
} StProcessModule;

typedef struct
{
  uint64_t start;
  uint64_t end;             /* exclusive */
} StProcessMapping;

typedef struct
{
  StModuleCache *cache;
  StProcessModule *mods;
  guint n;
  guint cap;
  guint last;               /* index of the last lookup hit */
  /* The register layout of the first module of a supported architecture;
     kept once known (as the libdwfl engine always did), from a list
     that left no module out.  */
  const StRegisterLayout *layout;
  gboolean layout_partial;  /* taken from a list with modules left out */
  gboolean stack_roots;     /* some module has stack roots */
  /* The mappings of modules left out because their files are still to
     be fetched (lazy fetching), in the address space's order.  */
  StProcessMapping *deferred;
  guint n_deferred;
  guint deferred_cap;

  GPtrArray *pending;       /* StModule* left out, not ready when the
                               list was built (each held); NULL: none */
  uint64_t maps_generation; /* of the address space the list was built
                               from */
  uint64_t ready_generation;  /* of the cache, then */
  uint64_t retry_generation;  /* of the cache, then: modules left out as
                                 unusable may be fetched since */
} StProcessModules;

void st_process_modules_init (StProcessModules *pm, StModuleCache *cache);
void st_process_modules_clear (StProcessModules *pm);

/* Rebuilds the list from the code mappings of AS.  */
void st_process_modules_build (StProcessModules *pm, const StAddressSpace *as);

/* The first of IPS[0..N) in a mapping of PM->deferred, or 0.  */
uint64_t st_process_modules_deferred_among_slow (const StProcessModules *pm,
                                                const uint64_t *ips,
                                                uint32_t n);
static inline uint64_t
st_process_modules_deferred_among (const StProcessModules *pm,
                                   const uint64_t *ips, uint32_t n)
{
  if (G_LIKELY (pm == NULL || pm->n_deferred == 0))
    return 0;
  return st_process_modules_deferred_among_slow (pm, ips, n);
}

/* Whether the list left modules out because they were not ready.  */
static inline gboolean
st_process_modules_partial (const StProcessModules *pm)
{
  return pm->pending != NULL && pm->pending->len > 0;
}

/* Whether the list must be rebuilt from AS: its mappings changed since,
   modules left out then may be ready now, or unusable ones are being
   fetched.  */
static inline gboolean
st_process_modules_stale (const StProcessModules *pm,
                          const StAddressSpace *as)
{
  return pm->maps_generation != st_address_space_generation (as)
         || pm->retry_generation
            != st_module_cache_retry_generation (pm->cache)
         || (st_process_modules_partial (pm)
             && pm->ready_generation
                != st_module_cache_ready_generation (pm->cache));
}

typedef enum
{
  ST_MODULES_READY,         /* every code module is ready */
  ST_MODULES_PREPARING,     /* some are being prepared from local files */
  ST_MODULES_FETCHING,      /* some are asking the finder for their file
                               (maybe a download) */
} StModulesReadiness;

/* Where the modules left out are, as of now.  */
StModulesReadiness st_process_modules_readiness (const StProcessModules *pm);

/* Drops entry I (e.g. libdwfl refused to report it).  */
void st_process_modules_remove (StProcessModules *pm, guint i);

/* The module containing ADDR, or NULL.  */
static inline const StProcessModule *
st_process_modules_find (StProcessModules *pm, uint64_t addr)
{
  if (pm->last < pm->n)
    {
      const StProcessModule *m = &pm->mods[pm->last];
      if (addr >= m->start && addr < m->end)
        return m;
    }
  guint lo = 0, hi = pm->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (pm->mods[mid].end <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < pm->n && pm->mods[lo].start <= addr)
    {
      pm->last = lo;
      return &pm->mods[lo];
    }
  return NULL;
}

/* Whether ADDR lies in a stack root of its module (StModule's
   stack_roots: Go's runtime.goexit and the like).  */
gboolean st_process_modules_stack_root (StProcessModules *pm, uint64_t addr);

#endif /* ST_PROCESS_MODULES_H */
