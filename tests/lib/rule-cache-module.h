/* A real file as a module of a fresh module cache that prepares rule
   tables (st_rule_cache_prepare), with a Dwfl of that module alone for
   libdw's own answers: what the rule cache (test-rule-cache.c) and the
   .eh_frame reader (test-eh-frame.c) are checked against.  */
#ifndef ST_TEST_RULE_CACHE_MODULE_H
#define ST_TEST_RULE_CACHE_MODULE_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "model/module-cache.h"
#include "unwind/cfi-rules.h"
#include "unwind/rule-cache.h"
#include "util/byte-budget.h"

typedef struct
{
  StModuleCache *modules;
  StMap map;
  StModule *m;
  StRuleCache *rules;   /* m's tables */
  Dwfl *dwfl;           /* the module alone, for libdw's answers */
  Dwfl_Module *dmod;
} RuleCacheModule;

/* Opens PATH mapped at 0x7f0000000000; the module, its ELF, its rule
   tables and its Dwfl module must be there.  */
void rule_cache_module_open (RuleCacheModule *o, const char *path);
/* The same, its rule tables charged to BUDGET (util/byte-budget.h).  */
void rule_cache_module_open_budget (RuleCacheModule *o, const char *path,
                                    StByteBudget *budget);
void rule_cache_module_close (RuleCacheModule *o);

/* Where libdw found a rule.  */
typedef enum
{
  LIBDW_FROM_EH,           /* .eh_frame */
  LIBDW_FROM_DEBUG,        /* .debug_frame */
  LIBDW_NO_CFI,              /* neither: no CFI */
} LibdwRuleSource;

/* libdw's rule for ADDR of DMOD (an x86_64 module) as the rule cache
   asks for it: .eh_frame, then .debug_frame, else no CFI.  */
LibdwRuleSource libdw_module_rule (Dwfl_Module *dmod, uint64_t addr,
                                   StUnwindRule *rule);

#endif /* ST_TEST_RULE_CACHE_MODULE_H */
