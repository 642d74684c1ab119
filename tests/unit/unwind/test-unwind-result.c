/* The names of unwind causes and fallback reasons (unwind/unwind-result.h),
   which the statistics print and export: each enum value against the
   name doc/FORMATS ("causes line", the fast engine's line) and
   doc/ROBUSTNESS (file-shrank) give it, so that a reordered enum
   cannot mislabel a count; every name distinct; values out of range
   "unknown", never a read past the tables.  */
#include "config.h"

#include <glib.h>

#include "unwind/unwind-result.h"

static void
test_cause_names (void)
{
  static const struct { StUnwindCause cause; const char *name; } doc[] = {
    { ST_CAUSE_NONE, "none" },
    { ST_CAUSE_STACK_END, "stack-end" },
    { ST_CAUSE_MEMORY, "memory" },
    { ST_CAUSE_NO_MODULE, "no-module" },
    { ST_CAUSE_NO_CFI, "no-cfi" },
    { ST_CAUSE_NO_REGS, "no-regs" },
    { ST_CAUSE_NO_MAPS, "no-maps" },
    { ST_CAUSE_ARCH, "arch" },
    { ST_CAUSE_MAX_DEPTH, "max-depth" },
    { ST_CAUSE_LOOP, "loop" },
    { ST_CAUSE_FILE_SHRANK, "file-shrank" },
    { ST_CAUSE_NOT_AFTER_CALL, "not-after-call" },
  };

  /* Every cause is named here.  */
  g_assert_cmpuint (G_N_ELEMENTS (doc), ==, ST_CAUSE_N);
  for (guint i = 0; i < G_N_ELEMENTS (doc); i++)
    {
      g_assert_cmpstr (st_unwind_cause_name (doc[i].cause), ==, doc[i].name);
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (st_unwind_cause_name (doc[i].cause), !=,
                         st_unwind_cause_name (doc[j].cause));
    }
  g_assert_cmpstr (st_unwind_cause_name (ST_CAUSE_N), ==, "unknown");
  g_assert_cmpstr (st_unwind_cause_name ((StUnwindCause) 1000), ==,
                   "unknown");
  g_assert_cmpstr (st_unwind_cause_name ((StUnwindCause) -1), ==, "unknown");
}

static void
test_fallback_names (void)
{
  static const struct { StFallbackReason reason; const char *name; } doc[] = {
    { ST_FALLBACK_NONE, "none" },
    { ST_FALLBACK_ARCH, "arch" },
    { ST_FALLBACK_EXPRESSION, "expression" },
    { ST_FALLBACK_SIGNAL, "signal-frame" },
    { ST_FALLBACK_OTHER, "other" },
  };

  g_assert_cmpuint (G_N_ELEMENTS (doc), ==, ST_FALLBACK_N);
  for (guint i = 0; i < G_N_ELEMENTS (doc); i++)
    {
      g_assert_cmpstr (st_fallback_reason_name (doc[i].reason), ==,
                       doc[i].name);
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (st_fallback_reason_name (doc[i].reason), !=,
                         st_fallback_reason_name (doc[j].reason));
    }
  g_assert_cmpstr (st_fallback_reason_name (ST_FALLBACK_N), ==, "unknown");
  g_assert_cmpstr (st_fallback_reason_name ((StFallbackReason) 77), ==,
                   "unknown");
  g_assert_cmpstr (st_fallback_reason_name ((StFallbackReason) -1), ==,
                   "unknown");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/unwind-result/cause-names", test_cause_names);
  g_test_add_func ("/unwind-result/fallback-names", test_fallback_names);
  return g_test_run ();
}
