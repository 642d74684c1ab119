/* The prepared tables of one module for the fast engine: its CFI (the
   same .eh_frame, then .debug_frame, that libdwfl would use, found
   through a private single-module Dwfl with the same callbacks), and the
   unwind rules read from it, filled lazily and cached per address range,
   so that a lookup after the first costs a hash probe and no libdw call.

   Addresses are ELF virtual addresses of the module (runtime address
   minus the load bias).  Attached to an StModule by the module cache's
   prepare hook; everything here touches only its own module.

   Threads: lookups fill the tables and the hot table as they go, and
   the budget cools other modules': a module's tables are used by one
   thread at a time, that of its module cache (module-cache.h; --jobs
   gives each worker its own).  */
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
   an entry.  An entry holds its range (at most 64 KiB of a longer one,
   around the address that filled it) and is checked against it.  It
   also remembers one address of the range checked to be a call's last
   byte (a caller frame's lookup address, return address - 1), by its
   low 16 bits, which tell it from the others of a range that short: a
   repeated return address costs one compare.  */
typedef struct
{
  uint64_t start;
  uint32_t rule;        /* index */
  uint16_t len;         /* 0: empty slot */
  uint16_t ret;         /* (uint16_t) of that address;
                           (uint16_t) (start + len): none */
} StRuleHot;

#define ST_RULE_HOT_MAX_LEN 0xffff

struct StRuleCachePublic
{
  StRuleHot *hot;
  uint32_t hot_shift;   /* 64 - log2 (number of slots) */
  StUnwindRule *rules;  /* by index */
  StLeanRule *lean;     /* by index: each rule's lean form */
};

static inline StRuleHot *
st_rule_cache_hot_slot (struct StRuleCachePublic *p, uint64_t addr)
{
  return &p->hot[((addr >> 4) * 0x9e3779b97f4a7c15ull) >> p->hot_shift];
}

/* The slot of ADDR, made to hold its range (the slow path's job on a
   miss).  Valid until the next lookup in the same module.  */
StRuleHot *st_rule_cache_fill_hot (StRuleCache *c, uint64_t addr);

static inline StRuleHot *
st_rule_cache_hot (StRuleCache *c, uint64_t addr)
{
  StRuleHot *h = st_rule_cache_hot_slot ((struct StRuleCachePublic *) c,
                                         addr);

  if (G_LIKELY (addr - h->start < h->len))
    return h;
  return st_rule_cache_fill_hot (c, addr);
}

static inline uint32_t
st_rule_cache_lookup_index (StRuleCache *c, uint64_t addr)
{
  return st_rule_cache_hot (c, addr)->rule;
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


/* Whether the instruction after ELF address ADDR of C's module follows
   a call: RA (ADDR + bias + 1) may be a return address in PM
   (return-check.h), answered from the module's table of answers, where
   the code is read the first time.  H, when not NULL, is ADDR's hot slot
   (st_rule_cache_hot), which then remembers a TRUE answer.  */
gboolean st_rule_cache_follows_call (StRuleCache *c, StRuleHot *h,
                                     uint64_t addr, const StFastArch *arch,
                                     StProcessModules *pm, uint64_t ra);

/* The same for ADDR in its hot slot H: one compare when H remembers
   it.  */
static inline gboolean
st_rule_cache_hot_follows_call (StRuleCache *c, StRuleHot *h, uint64_t addr,
                                const StFastArch *arch, StProcessModules *pm,
                                uint64_t ra)
{
  if (G_LIKELY (h->ret == (uint16_t) addr))
    return TRUE;
  return st_rule_cache_follows_call (c, h, addr, arch, pm, ra);
}

/* Whether RA may be a return address in PM, whose modules all have rule
   tables (return-check.h), answered by the module of RA - 1, its call's
   (a return address may lie just past its call's module).  */
static inline gboolean
st_rule_cache_return_ok (StProcessModules *pm, const StFastArch *arch,
                         uint64_t ra)
{
  if (ra == 0)
    return TRUE;
  const StProcessModule *m = st_process_modules_find (pm, ra - 1);
  if (m == NULL)
    return TRUE;
  StRuleCache *c = m->module->tables;
  uint64_t addr = ra - 1 - m->bias;
  StRuleHot *h = st_rule_cache_hot_slot ((struct StRuleCachePublic *) c,
                                         addr);
  if (addr - h->start < h->len)
    return st_rule_cache_hot_follows_call (c, h, addr, arch, pm, ra);
  return st_rule_cache_follows_call (c, NULL, addr, arch, pm, ra);
}

#endif /* ST_RULE_CACHE_H */
