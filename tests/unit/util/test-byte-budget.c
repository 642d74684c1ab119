/* Unit tests of the byte budget (util/byte-budget.h): entries count from
   their first touch, the least recently touched are cooled first, down
   to three quarters of the bound, and a cooled or removed entry leaves
   the total.  */
#include "config.h"

#include "util/byte-budget.h"

typedef struct
{
  StByteBudgetEntry entry;  /* first */
  const char *name;
  size_t kept;              /* what cooling leaves allocated */
  GString *log;
} Cache;

static void
cool (StByteBudgetEntry *e)
{
  Cache *c = (Cache *) e;

  g_string_append_printf (c->log, "%s ", c->name);
  st_byte_budget_charge (e, -(gssize) e->bytes);
  st_byte_budget_charge (e, c->kept);
}

static void
cache_init (Cache *c, StByteBudget *b, const char *name, GString *log)
{
  st_byte_budget_entry_init (&c->entry, b, cool);
  c->name = name;
  c->kept = 10;
  c->log = log;
}

static void
test_least_recent_first (void)
{
  GString *log = g_string_new ("");
  StByteBudget b;
  Cache a, c1, c2, d;

  st_byte_budget_init (&b, 1000);
  cache_init (&a, &b, "a", log);
  cache_init (&c1, &b, "b", log);
  cache_init (&c2, &b, "c", log);
  cache_init (&d, &b, "d", log);

  /* Charged before its first touch (prepared on a worker): not counted
     until touched.  */
  st_byte_budget_charge (&a.entry, 300);
  g_assert_cmpuint (b.bytes, ==, 0);
  st_byte_budget_touch (&a.entry);
  g_assert_cmpuint (b.bytes, ==, 300);
  st_byte_budget_touch (&c1.entry);
  st_byte_budget_charge (&c1.entry, 300);
  st_byte_budget_touch (&c2.entry);
  st_byte_budget_charge (&c2.entry, 300);
  g_assert_cmpuint (b.bytes, ==, 900);
  st_byte_budget_enforce (&b);
  g_assert_cmpstr (log->str, ==, "");

  /* a used again: b is now the least recent.  */
  st_byte_budget_touch (&a.entry);
  st_byte_budget_touch (&d.entry);
  st_byte_budget_charge (&d.entry, 150);
  g_assert_cmpuint (b.bytes, ==, 1050);
  /* Over 1000: cooled from the least recent until <= 750.  */
  st_byte_budget_enforce (&b);
  g_assert_cmpstr (log->str, ==, "b ");
  g_assert_cmpuint (b.bytes, ==, 750);
  g_assert_cmpuint (b.coolings, ==, 1);
  /* Cooled: out of the list, its remains counted again at its next use.  */
  g_assert_cmpuint (c1.entry.bytes, ==, 10);
  g_assert_cmpuint (b.lru.length, ==, 3);
  st_byte_budget_touch (&c1.entry);
  g_assert_cmpuint (b.bytes, ==, 760);

  /* Not over the bound: nothing happens.  */
  st_byte_budget_enforce (&b);
  g_assert_cmpstr (log->str, ==, "b ");

  /* 300 more for c, now the least recent (b, d, a, c): 1060, and c
     cooled is enough.  */
  st_byte_budget_charge (&c2.entry, 300);
  st_byte_budget_enforce (&b);
  g_assert_cmpstr (log->str, ==, "b c ");
  g_assert_cmpuint (b.bytes, ==, 460);

  /* Removed (freed with its cache): out of the total.  */
  st_byte_budget_entry_remove (&d.entry);
  g_assert_cmpuint (b.bytes, ==, 310);
  st_byte_budget_entry_remove (&a.entry);
  g_assert_cmpuint (b.bytes, ==, 10);
  st_byte_budget_clear (&b);
  g_assert_cmpuint (b.bytes, ==, 0);
  g_assert_null (c1.entry.budget);
  /* Without a budget, charges only count for the entry.  */
  st_byte_budget_touch (&c1.entry);
  st_byte_budget_charge (&c1.entry, 5);
  g_assert_cmpuint (c1.entry.bytes, ==, 15);
  g_string_free (log, TRUE);
}

/* No bound (0): never cooled.  */
static void
test_unbounded (void)
{
  GString *log = g_string_new ("");
  StByteBudget b;
  Cache a;

  st_byte_budget_init (&b, 0);
  cache_init (&a, &b, "a", log);
  st_byte_budget_touch (&a.entry);
  st_byte_budget_charge (&a.entry, (gssize) 1 << 40);
  st_byte_budget_enforce (&b);
  g_assert_cmpstr (log->str, ==, "");
  st_byte_budget_entry_remove (&a.entry);
  g_assert_cmpuint (b.bytes, ==, 0);
  g_string_free (log, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/byte-budget/least-recent-first",
                   test_least_recent_first);
  g_test_add_func ("/byte-budget/unbounded", test_unbounded);
  return g_test_run ();
}
