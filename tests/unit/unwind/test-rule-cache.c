/* The rule cache of a module (unwind/rule-cache.h) against libdw 0.188
   on real files (the test programs plt-calls, its library, dbgframe-prog
   whose .eh_frame holds only _start and the PLT, mixed-frames whose leaf
   is only in its debug file's .debug_frame, fp-prog without any CFI;
   this system's libc for size):

   - every address of the small modules, in descending and in ascending
     order (the rows of an FDE are read in either order), and around
     them: the rule is the one libdw's .eh_frame, then .debug_frame, give
     (st_cfi_rule_from_frame), no CFI where neither has a row;
   - the ranges the hot table records: every address of each must have
     that range's rule in libdw's eyes (the hot path answers for all of
     them without asking), and rules from .debug_frame or for no CFI
     are kept for their one address (.eh_frame comes first and might
     cover a neighbour);
   - the index API: the same index by the inline and the slow lookup;
     rules interned (equal rules, one index; different rules, different
     indices); each rule's lean form the one st_lean_rule_from_rule
     gives;
   - addresses outside the module, 0 and the top of the address space:
     no CFI;
   - libc's many ranges, beyond what the first hot table holds: the same
     answers before and after it grows;
   - cooled by its byte budget (emptied, util/byte-budget.h): small
     tables until used again, then the same rules as before, read again
     from the CFI, in tables that start smaller.  */
#include "config.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "rule-cache-module.h"
#include "unwind/fast-arch.h"

typedef struct
{
  uint64_t start;
  uint32_t len;
  uint32_t rule;
} Range;

typedef struct
{
  guint addresses, from[3];
  GHashTable *ranges;   /* "start:len" -> Range */
  GHashTable *indices;  /* index -> 1 */
} Seen;

/* Looks ADDR up both ways, against libdw; records the hot range.  */
static void
check_address (RuleCacheModule *o, const char *path, uint64_t addr,
               Seen *seen)
{
  StUnwindRule want;
  LibdwRuleSource src = libdw_module_rule (o->dmod, addr, &want);
  uint32_t index = st_rule_cache_lookup_index (o->rules, addr);
  const StUnwindRule *got = st_rule_cache_rule (o->rules, index);

  if (memcmp (got, &want, sizeof want) != 0)
    g_error ("%s: %#" G_GINT64_MODIFIER "x: rule differs from libdw's "
             "(kind %u/%u, cfa %u%+d/%u%+d)", path, addr, got->kind,
             want.kind, got->cfa_reg, got->cfa_offset, want.cfa_reg,
             want.cfa_offset);
  /* The slow path agrees (it may grow the hot table, emptying it), and
     leaves ADDR's range in its slot.  */
  g_assert_cmpuint (st_rule_cache_lookup_slow (o->rules, addr), ==, index);
  const StRuleHot *h = st_rule_cache_hot_slot ((struct StRuleCachePublic *)
                                               o->rules, addr);
  g_assert_cmpuint (h->rule, ==, index);
  g_assert_cmphex (addr - h->start, <, h->len);
  g_assert_true (st_rule_cache_lookup (o->rules, addr)
                 == st_rule_cache_rule (o->rules, index));
  if (src != LIBDW_FROM_EH)
    g_assert_cmpuint (h->len, ==, 1);

  char *key = g_strdup_printf ("%" G_GINT64_MODIFIER "x:%u", h->start,
                               h->len);
  Range *r = g_new (Range, 1);
  *r = (Range) { h->start, h->len, index };
  g_hash_table_replace (seen->ranges, key, r);
  g_hash_table_add (seen->indices, GUINT_TO_POINTER (index + 1));
  seen->from[src]++;
  seen->addresses++;
}

/* Every address of every range recorded: the range's rule.  */
static void
check_ranges (RuleCacheModule *o, const char *path, Seen *seen)
{
  GHashTableIter it;
  gpointer value;
  guint64 checked = 0;

  g_hash_table_iter_init (&it, seen->ranges);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const Range *r = value;
      const StUnwindRule *rule = st_rule_cache_rule (o->rules, r->rule);
      for (uint64_t a = r->start; a - r->start < r->len; a++)
        {
          StUnwindRule want;
          libdw_module_rule (o->dmod, a, &want);
          if (memcmp (rule, &want, sizeof want) != 0)
            g_error ("%s: the range %#" G_GINT64_MODIFIER "x+%u holds %#"
                     G_GINT64_MODIFIER "x, whose rule differs", path,
                     r->start, r->len, a);
          checked++;
        }
    }
  g_test_message ("%s: %u ranges, %" G_GUINT64_FORMAT " addresses in them",
                  path, g_hash_table_size (seen->ranges), checked);
}

/* The rules by index: interned, each with its lean form.  */
static void
check_indices (RuleCacheModule *o, Seen *seen)
{
  const StFastArch *arch = st_fast_arch (EM_X86_64);
  GList *keys = g_hash_table_get_keys (seen->indices);

  for (GList *a = keys; a != NULL; a = a->next)
    {
      uint32_t i = GPOINTER_TO_UINT (a->data) - 1;
      StLeanRule lean;
      st_lean_rule_from_rule (st_rule_cache_rule (o->rules, i), arch, &lean);
      g_assert_true (memcmp (&lean, st_rule_cache_lean (o->rules, i),
                             sizeof lean) == 0);
      for (GList *b = a->next; b != NULL; b = b->next)
        {
          uint32_t j = GPOINTER_TO_UINT (b->data) - 1;
          g_assert_false (memcmp (st_rule_cache_rule (o->rules, i),
                                  st_rule_cache_rule (o->rules, j),
                                  sizeof (StUnwindRule)) == 0);
        }
    }
  g_list_free (keys);
}

static void
seen_init (Seen *s)
{
  memset (s, 0, sizeof *s);
  s->ranges = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     g_free);
  s->indices = g_hash_table_new (NULL, NULL);
}

static void
seen_clear (Seen *s)
{
  g_hash_table_destroy (s->ranges);
  g_hash_table_destroy (s->indices);
}

static const struct
{
  const char *path;
  gboolean eh, debug;   /* rows expected from .eh_frame, .debug_frame */
} small[] = {
  { ST_PROGS_DIR "/plt-calls", TRUE, FALSE },
  { ST_PROGS_DIR "/libstcallee.so", TRUE, FALSE },
  { ST_PROGS_DIR "/dbgframe-prog", TRUE, TRUE },
  { ST_PROGS_DIR "/mixed-frames", TRUE, TRUE },
  /* (Its own code has no CFI; the C runtime's _start has.)  */
  { ST_PROGS_DIR "/fp-prog", TRUE, FALSE },
};

/* Every address of each small module, and 64 bytes either side; one
   fresh cache descending, one ascending.  */
static void
test_every_address (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (small); i++)
    for (int descending = 1; descending >= 0; descending--)
      {
        RuleCacheModule o;
        Seen seen;
        rule_cache_module_open (&o, small[i].path);
        seen_init (&seen);
        uint64_t lo = o.m->low_vaddr - MIN (o.m->low_vaddr, 64);
        uint64_t hi = o.m->high_vaddr + 64;
        for (uint64_t k = 0; k < hi - lo; k++)
          check_address (&o, small[i].path, descending ? hi - 1 - k : lo + k,
                         &seen);
        check_ranges (&o, small[i].path, &seen);
        check_indices (&o, &seen);
        g_test_message ("%s: %u addresses, %u from .eh_frame, %u from "
                        ".debug_frame, %u without CFI; %u rules",
                        small[i].path, seen.addresses,
                        seen.from[LIBDW_FROM_EH], seen.from[LIBDW_FROM_DEBUG],
                        seen.from[LIBDW_NO_CFI],
                        g_hash_table_size (seen.indices));
        g_assert_cmpint (seen.from[LIBDW_FROM_EH] > 0, ==, small[i].eh);
        g_assert_cmpint (seen.from[LIBDW_FROM_DEBUG] > 0, ==,
                         small[i].debug);
        g_assert_cmpuint (seen.from[LIBDW_NO_CFI], >, 0);
        seen_clear (&seen);
        rule_cache_module_close (&o);
      }
}

/* Addresses no module holds.  */
static void
test_outside (void)
{
  static const uint64_t far[] = {
    0, 1, 0xfff, 0x7fffffffffffull, G_MAXUINT64 - 1, G_MAXUINT64,
    G_MAXUINT64 - 15,
  };
  RuleCacheModule o;
  Seen seen;

  rule_cache_module_open (&o, small[0].path);
  seen_init (&seen);
  for (guint i = 0; i < G_N_ELEMENTS (far); i++)
    {
      check_address (&o, small[0].path, far[i], &seen);
      g_assert_cmpuint (st_rule_cache_lookup (o.rules, far[i])->kind, ==,
                        ST_RULE_NO_CFI);
    }
  /* Every no-CFI answer is one rule.  */
  g_assert_cmpuint (g_hash_table_size (seen.indices), ==, 1);
  seen_clear (&seen);
  rule_cache_module_close (&o);
}

/* libc: thousands of ranges, more misses than the first hot table has
   slots (it grows, emptied); the same indices and rules after.  */
static void
test_growth (void)
{
  const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
  GRand *rand = g_rand_new_with_seed (15);
  RuleCacheModule o;
  Seen seen;
  enum { N = 20000 };
  uint64_t *addrs = g_new (uint64_t, N);
  uint32_t *first = g_new (uint32_t, N);

  rule_cache_module_open (&o, libc);
  seen_init (&seen);
  struct StRuleCachePublic *pub = (struct StRuleCachePublic *) o.rules;
  uint32_t shift_before = pub->hot_shift;
  for (guint k = 0; k < N; k++)
    {
      addrs[k] = o.m->low_vaddr
                 + g_rand_int_range (rand, 0,
                                     o.m->high_vaddr - o.m->low_vaddr);
      check_address (&o, libc, addrs[k], &seen);
      first[k] = st_rule_cache_lookup_index (o.rules, addrs[k]);
    }
  g_test_message ("libc: hot table of 2^%u slots, then 2^%u", 64
                  - shift_before, 64 - pub->hot_shift);
  g_assert_cmpuint (pub->hot_shift, <, shift_before);
  for (guint k = 0; k < N; k++)
    g_assert_cmpuint (st_rule_cache_lookup_index (o.rules, addrs[k]), ==,
                      first[k]);
  check_indices (&o, &seen);
  g_free (addrs);
  g_free (first);
  seen_clear (&seen);
  rule_cache_module_close (&o);
  g_rand_free (rand);
}

/* libc's tables charged to a budget: 5,000 addresses looked up, then the
   budget lowered below what they hold and enforced (between walks):
   the tables are emptied and leave the budget, and every address gets
   the same rule again (and libdw's).  */
static void
test_cooled (void)
{
  const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
  GRand *rand = g_rand_new_with_seed (25);
  StByteBudget budget;
  RuleCacheModule o;
  Seen seen;
  enum { N = 5000 };
  uint64_t *addrs = g_new (uint64_t, N);
  StUnwindRule *rules = g_new (StUnwindRule, N);

  st_byte_budget_init (&budget, 0);
  rule_cache_module_open_budget (&o, libc, &budget);
  /* Prepared, not used yet: small tables, not counted yet.  */
  g_assert_cmpuint (budget.bytes, ==, 0);
  seen_init (&seen);
  for (guint k = 0; k < N; k++)
    {
      addrs[k] = o.m->low_vaddr
                 + g_rand_int_range (rand, 0,
                                     o.m->high_vaddr - o.m->low_vaddr);
      check_address (&o, libc, addrs[k], &seen);
      rules[k] = *st_rule_cache_lookup (o.rules, addrs[k]);
    }
  size_t used = budget.bytes;
  g_test_message ("libc: %zu bytes of tables for %u addresses", used, N);
  g_assert_cmpuint (used, >, 64 * 1024);

  budget.max_bytes = used - 1;
  st_byte_budget_enforce (&budget);
  g_assert_cmpuint (budget.coolings, ==, 1);
  g_assert_cmpuint (budget.bytes, ==, 0);
  g_assert_cmpuint (budget.lru.length, ==, 0);

  seen_clear (&seen);
  seen_init (&seen);
  for (guint k = 0; k < N; k++)
    {
      check_address (&o, libc, addrs[k], &seen);
      g_assert_cmpmem (st_rule_cache_lookup (o.rules, addrs[k]),
                       sizeof (StUnwindRule), &rules[k],
                       sizeof (StUnwindRule));
    }
  /* Used again: counted again; its tables start smaller this time
     (they grow with misses).  */
  g_assert_cmpuint (budget.lru.length, ==, 1);
  g_test_message ("libc: %zu bytes of tables used again", budget.bytes);
  g_assert_cmpuint (budget.bytes, >, 0);
  g_assert_cmpuint (budget.bytes, <, used);
  seen_clear (&seen);
  rule_cache_module_close (&o);
  /* Freed with its module: out of the budget.  */
  g_assert_cmpuint (budget.bytes, ==, 0);
  g_assert_cmpuint (budget.lru.length, ==, 0);
  g_free (addrs);
  g_free (rules);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_test_add_func ("/rule-cache/every-address", test_every_address);
  g_test_add_func ("/rule-cache/outside", test_outside);
  g_test_add_func ("/rule-cache/growth", test_growth);
  g_test_add_func ("/rule-cache/cooled", test_cooled);
  return g_test_run ();
}
