#include "config.h"

#include "unwind/dwfl-unwinder.h"
#include "unwind/fast-unwinder.h"
#include "unwind/fp-chain.h"
#include "unwind/return-check.h"
#include "unwind/unwinder.h"
#include "unwind/walk-outcome.h"

struct StUnwinder
{
  StEngine engine;
  StFastUnwinder *fast;     /* ST_ENGINE_FAST */
  StDwflUnwinder *dwfl;     /* the libdwfl engine (fast's fallback) */
  StModuleCache *modules;
  StRegisterMaps register_maps;   /* for its samples' contexts */
};

StUnwinder *
st_unwinder_new (StEngine engine, StModuleCache *modules)
{
  StUnwinder *u = g_new0 (StUnwinder, 1);

  u->engine = engine;
  u->modules = modules;
  st_register_maps_init (&u->register_maps);
  if (engine == ST_ENGINE_FAST)
    {
      u->fast = st_fast_unwinder_new (modules);
      u->dwfl = st_fast_unwinder_dwfl_engine (u->fast);
    }
  else
    u->dwfl = st_dwfl_unwinder_new (modules);
  return u;
}

void
st_unwinder_free (StUnwinder *u)
{
  if (u == NULL)
    return;
  if (u->fast != NULL)
    st_fast_unwinder_free (u->fast);
  else
    st_dwfl_unwinder_free (u->dwfl);
  g_free (u);
}

/* The recorder's frame-pointer chain is checked as our own frames are
   (return-check.h).  */
static gboolean
fp_chain_returns (void *user, uint64_t ra)
{
  StProcessModules *pm = user;

  return pm->layout == NULL
         || st_return_follows_call (st_fast_arch (pm->layout->elf_machine),
                                    pm, ra);
}

void
st_unwinder_sample_init (StUnwinder *u, StSampleContext *c, StProcess *p,
                         const StEvent *ev)
{
  st_sample_context_init (c, &u->register_maps, p, ev, u->modules);
}

void
st_unwinder_unwind (StUnwinder *u, StProcess *p, const StEvent *ev,
                    uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                    StUnwindResult *result)
{
  StSampleContext c;

  st_unwinder_sample_init (u, &c, p, ev);
  st_unwinder_unwind_sample (u, &c, ips, sps, max_ips, result);
}

void
st_unwinder_unwind_sample (StUnwinder *u, StSampleContext *c, uint64_t *ips,
                           uint64_t *sps, uint32_t max_ips,
                           StUnwindResult *result)
{
  StProcess *p = c->process;
  const StEvent *ev = c->ev;

  if (u->fast != NULL)
    st_fast_unwinder_unwind_sample (u->fast, c, ips, sps, max_ips, result);
  else
    st_dwfl_unwinder_unwind_sample (u->dwfl, c, ips, sps, max_ips, result);
  if (G_UNLIKELY (st_mapping_guard_faults () != 0))
    st_walk_drop_shrunk (result, ips,
                         u->fast != NULL
                         ? st_fast_unwinder_modules (u->fast, p)
                         : st_dwfl_unwinder_modules (u->dwfl, p));

  /* The walk could not start (no module of the process ready yet, or
     none usable, so nothing told its architecture): the sampled IP at
     least, as the registers most likely have it.  */
  uint64_t ip, sp;
  if (result->n_ips == 0 && max_ips > 0
      && st_sample_context_guess_pc (c, &ip, &sp))
    {
      ips[0] = ip;
      sps[0] = sp;
      result->n_ips = 1;
    }

  /* DWARF stopped early: the recorder's frame-pointer chain may go on
     from where both agree.  */
  if (result->status == ST_UNWIND_TRUNCATED && !result->unprimed
      && result->cause != ST_CAUSE_MAX_DEPTH
      && ev->stack.n_user_callchain > 1)
    {
      uint32_t n = result->n_ips;
      result->n_fp_chain =
        st_fp_chain_continue (ev->stack.user_callchain,
                              ev->stack.n_user_callchain, p->maps, ips, sps,
                              &n, max_ips, fp_chain_returns,
                              u->fast != NULL
                              ? st_fast_unwinder_modules (u->fast, p)
                              : st_dwfl_unwinder_modules (u->dwfl, p));
      if (result->n_fp_chain > 0)
        {
          result->n_ips = n;
          result->status = ST_UNWIND_COMPLETE;
          result->cause = ST_CAUSE_NONE;
        }
    }
}

StModulesReadiness
st_unwinder_readiness (StUnwinder *u, StProcess *p)
{
  if (u->fast != NULL)
    return st_fast_unwinder_readiness (u->fast, p);
  return st_dwfl_unwinder_readiness (u->dwfl, p);
}

Dwfl *
st_unwinder_dwfl (StUnwinder *u, StProcess *p)
{
  return st_dwfl_unwinder_dwfl (u->dwfl, p);
}

const char *
st_engine_name (StEngine engine)
{
  return engine == ST_ENGINE_FAST ? "fast" : "dwfl";
}
