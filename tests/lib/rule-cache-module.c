/* A module with rule tables and libdw's view of it
   (rule-cache-module.h).  */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "rule-cache-module.h"
#include "unwind/dwfl-offline.h"
#include "unwind/fast-arch.h"

void
rule_cache_module_open (RuleCacheModule *o, const char *path)
{
  rule_cache_module_open_budget (o, path, NULL);
}

void
rule_cache_module_open_budget (RuleCacheModule *o, const char *path,
                               StByteBudget *budget)
{
  memset (o, 0, sizeof *o);
  o->modules = st_module_cache_new (NULL);
  st_module_cache_set_prepare (o->modules, st_rule_cache_prepare, budget);
  o->map.start = 0x7f0000000000ull;
  o->map.end = o->map.start + 0x10000000;
  o->map.filename = g_ref_string_new_intern (path);
  o->m = st_module_cache_acquire (o->modules, &o->map);
  g_assert_nonnull (o->m);
  g_assert_nonnull (o->m->elf);
  g_assert_nonnull (o->m->tables);
  o->rules = o->m->tables;
  o->dwfl = st_dwfl_of_module (o->m, &o->dmod);
  g_assert_nonnull (o->dmod);
}

void
rule_cache_module_close (RuleCacheModule *o)
{
  dwfl_end (o->dwfl);
  st_module_cache_release (o->modules, o->m);
  st_module_cache_free (o->modules);
  g_ref_string_release ((char *) o->map.filename);
}

LibdwRuleSource
libdw_module_rule (Dwfl_Module *dmod, uint64_t addr, StUnwindRule *rule)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  Dwarf_CFI *cfi[2];
  Dwarf_Addr bias[2], start, end;

  cfi[0] = dwfl_module_eh_cfi (dmod, &bias[0]);
  cfi[1] = dwfl_module_dwarf_cfi (dmod, &bias[1]);
  for (int i = 0; i < 2; i++)
    {
      Dwarf_Frame *frame;

      if (cfi[i] != NULL
          && dwarf_cfi_addrframe (cfi[i], addr - bias[i], &frame) == 0)
        {
          st_cfi_rule_from_frame (frame, arch->n_regs, arch->ra, rule,
                                  &start, &end);
          free (frame);
          return i == 0 ? LIBDW_FROM_EH : LIBDW_FROM_DEBUG;
        }
    }
  memset (rule, 0, sizeof *rule);
  rule->kind = ST_RULE_NO_CFI;
  return LIBDW_NO_CFI;
}
