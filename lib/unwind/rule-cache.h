/* The prepared tables of one module for the fast engine: its CFI (the
   same .eh_frame, then .debug_frame, that libdwfl would use, found
   through a private single-module Dwfl with the same callbacks), and the
   unwind rules read from it, filled lazily and cached per address range,
   so that a lookup after the first costs a hash probe and no libdw call.

   Addresses are ELF virtual addresses of the module (runtime address
   minus the load bias).  Attached to an StModule by the module cache's
   prepare hook; everything here touches only its own module.  */
#ifndef ST_RULE_CACHE_H
#define ST_RULE_CACHE_H

#include <glib.h>
#include <stdint.h>

#include "model/module-cache.h"
#include "unwind/cfi-rules.h"
#include "unwind/lean-rule.h"
#include "unwind/process-modules.h"
#include "unwind/return-check.h"

typedef struct StRuleCache StRuleCache;

/* The module cache's prepare hook: attaches an empty rule cache to a
   module of an architecture the fast engine knows (fast-arch.h), with
   its .eh_frame opened, and its separate debug file's .debug_frame when
   the CFI may be only there (st_find_debuginfo_wanted); for other
   modules, st_dwfl_offline_prepare.  USER_DATA unused.  Touches only
   MODULE (runs on worker threads with JIT-style priming).  */
void st_rule_cache_prepare (StModule *module, void *user_data);

/* The index of the rule for ELF address ADDR of MODULE (prepared by the
   hook), in the arrays of st_rule_cache_rule and st_rule_cache_lean.  */
uint32_t st_rule_cache_lookup_slow (StRuleCache *c, uint64_t addr);

/* Whether ADDR lies in the function at the module's ELF entry point
   (_start), as libdwfl's symbol table sees it.  */
gboolean st_rule_cache_at_entry_point (StRuleCache *c, uint64_t addr);

/* For a sampled PC without CFI in process module M (whose tables C
   are): the rule its code gives (leaf-code.h), memoized by address.  */
gboolean st_rule_cache_leaf_rule (StRuleCache *c, const StProcessModule *m,
                                  uint64_t pc, StLeafRule *rule);

/* The hot path: a direct-mapped table of recently used ranges, indexed
   by the address's 16-byte granule, so that the PCs of a hot loop share
   an entry.  An entry holds its range and is checked against it.  */
typedef struct
{
  uint64_t start;
  uint32_t len;         /* 0: empty slot */
  uint32_t rule;        /* index */
} StRuleHot;

struct StRuleCachePublic
{
  StRuleHot *hot;
  uint32_t hot_shift;   /* 64 - log2 (number of slots) */
  StUnwindRule *rules;  /* by index */
  StLeanRule *lean;     /* by index: each rule's lean form */
  StReturnCheck *returns;  /* return addresses checked, by ELF address */
};

static inline StRuleHot *
st_rule_cache_hot_slot (struct StRuleCachePublic *p, uint64_t addr)
{
  return &p->hot[((addr >> 4) * 0x9e3779b97f4a7c15ull) >> p->hot_shift];
}

static inline uint32_t
st_rule_cache_lookup_index (StRuleCache *c, uint64_t addr)
{
  struct StRuleCachePublic *p = (struct StRuleCachePublic *) c;
  const StRuleHot *h = st_rule_cache_hot_slot (p, addr);

  if (addr - h->start < h->len)
    return h->rule;
  return st_rule_cache_lookup_slow (c, addr);
}

/* Rule INDEX, and its lean form: valid until the next lookup in the
   same module.  */
static inline const StUnwindRule *
st_rule_cache_rule (StRuleCache *c, uint32_t index)
{
  return &((struct StRuleCachePublic *) c)->rules[index];
}

static inline const StLeanRule *
st_rule_cache_lean (StRuleCache *c, uint32_t index)
{
  return &((struct StRuleCachePublic *) c)->lean[index];
}

/* The rule for ELF address ADDR of the module.  */
static inline const StUnwindRule *
st_rule_cache_lookup (StRuleCache *c, uint64_t addr)
{
  return st_rule_cache_rule (c, st_rule_cache_lookup_index (c, addr));
}


/* Whether RA may be a return address in PM, whose modules all have rule
   tables (return-check.h), answered from the table of RA's module (M,
   the module of RA - 1, when known), by the ELF address of RA - 1.  */
static inline gboolean
st_rule_cache_return_ok_in (StProcessModules *pm, const StFastArch *arch,
                            const StProcessModule *m, uint64_t ra)
{
  struct StRuleCachePublic *p = m->module->tables;
  return st_return_check_keyed (p->returns, ra - 1 - m->bias, arch, pm, ra);
}

static inline gboolean
st_rule_cache_return_ok (StProcessModules *pm, const StFastArch *arch,
                         uint64_t ra)
{
  if (ra == 0)
    return TRUE;
  /* A return address may lie just past its call's module.  */
  const StProcessModule *m = st_process_modules_find (pm, ra - 1);
  return m == NULL || st_rule_cache_return_ok_in (pm, arch, m, ra);
}

#endif /* ST_RULE_CACHE_H */
