/* The call graph summary (report/callgraph-summary.c).

   Chains through the functions of a test program (deep-recursion, built
   at check time, mapped into a made-up process; addresses from binutils'
   nm), added leaf first, printed root first: the tree, totals and self
   shares worked out by hand, siblings by total then name, direct
   recursion folded into one node (mutual recursion not), the cut under
   MIN_PERCENT, the indent capped for deep chains, process names from
   the input escaped, a sample of an unknown process.  */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "mapped-program.h"
#include "report/callgraph-summary.h"
#include "summary-text.h"

#ifndef ST_PROGS_DIR
#define ST_PROGS_DIR "progs"
#endif

static char *
printed (const StCallgraph *g, double min_percent)
{
  return summary_text_call_graph (g, min_percent);
}

typedef struct
{
  MappedProgram mp;
  Dwfl *dwfl;
  StSymbolizer *symbolizer;
  uint64_t leaf, recurse, run, main_fn;   /* addresses inside each */
} Program;

static gboolean
program_open (Program *p)
{
  g_autofree char *path = g_build_filename (ST_PROGS_DIR, "deep-recursion",
                                            NULL);

  memset (p, 0, sizeof *p);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("test program not built");
      return FALSE;
    }
  p->leaf = nm_symbol (path, "st_leaf_work");
  p->recurse = nm_symbol (path, "st_recurse");
  p->run = nm_symbol (path, "st_run");
  p->main_fn = nm_symbol (path, "main");
  if (p->leaf == 0 || p->recurse == 0 || p->run == 0 || p->main_fn == 0)
    {
      g_test_skip ("no nm, or symbols missing");
      return FALSE;
    }
  g_assert_true (mapped_program_open (&p->mp, path, 77));
  p->dwfl = mapped_program_dwfl (&p->mp);
  g_assert_nonnull (p->dwfl);
  p->symbolizer = st_symbolizer_new ();
  p->leaf += p->mp.base + 1;
  p->recurse += p->mp.base + 1;
  p->run += p->mp.base + 1;
  p->main_fn += p->mp.base + 1;
  return TRUE;
}

static void
program_close (Program *p)
{
  st_symbolizer_free (p->symbolizer);
  mapped_program_close (&p->mp);
}

static void
test_tree (void)
{
  Program p;

  if (!program_open (&p))
    return;
  StCallgraph *g = st_callgraph_new ();
  /* main > st_recurse (x3, folded) > st_leaf_work.  */
  const uint64_t a[] = { p.leaf, p.recurse, p.recurse, p.recurse, p.main_fn };
  /* main > st_recurse, ending there.  */
  const uint64_t b[] = { p.recurse, p.main_fn };
  /* main itself.  */
  const uint64_t c[] = { p.main_fn };
  /* An address in no module, of a process never named.  */
  const uint64_t d[] = { 0x10 };
  st_callgraph_add (g, p.symbolizer, p.dwfl, "prog", a, G_N_ELEMENTS (a));
  st_callgraph_add (g, p.symbolizer, p.dwfl, "prog", b, G_N_ELEMENTS (b));
  st_callgraph_add (g, p.symbolizer, p.dwfl, "prog", c, G_N_ELEMENTS (c));
  st_callgraph_add (g, p.symbolizer, p.dwfl, NULL, d, G_N_ELEMENTS (d));

  /* Of 4: prog 3 (main 3: self 1, st_recurse 2: self 1, st_leaf_work
     1: self 1), the unknown process 1.  */
  g_autofree char *all = printed (g, 0.0);
  g_assert_cmpstr (all, ==,
    "Call graph of 4 unwound samples (top-down; total%, self%; paths under "
    "0.0% omitted):\n"
    "  75.0%    0.0%  prog\n"
    "  75.0%   25.0%    main\n"
    "  50.0%   25.0%      st_recurse\n"
    "  25.0%   25.0%        st_leaf_work\n"
    "  25.0%    0.0%  [unknown process]\n"
    "  25.0%   25.0%    [unknown]\n");

  /* Under 30 %: st_leaf_work and the unknown process go.  */
  g_autofree char *cut = printed (g, 30.0);
  g_assert_cmpstr (cut, ==,
    "Call graph of 4 unwound samples (top-down; total%, self%; paths under "
    "30.0% omitted):\n"
    "  75.0%    0.0%  prog\n"
    "  75.0%   25.0%    main\n"
    "  50.0%   25.0%      st_recurse\n");
  st_callgraph_free (g);
  program_close (&p);
}

/* Siblings of equal total by name; mutual recursion kept as it is;
   the name of the process escaped.  */
static void
test_order_and_names (void)
{
  Program p;

  if (!program_open (&p))
    return;
  StCallgraph *g = st_callgraph_new ();
  const uint64_t to_run[] = { p.run, p.main_fn };
  const uint64_t to_leaf[] = { p.leaf, p.main_fn };
  const uint64_t mutual[] = { p.leaf, p.recurse, p.leaf, p.main_fn };
  st_callgraph_add (g, p.symbolizer, p.dwfl, "x\x1b]0;owned\x07", to_run, 2);
  st_callgraph_add (g, p.symbolizer, p.dwfl, "x\x1b]0;owned\x07", to_leaf, 2);
  st_callgraph_add (g, p.symbolizer, p.dwfl, "x\x1b]0;owned\x07", mutual, 4);
  g_autofree char *text = printed (g, 0.0);
  g_assert_cmpstr (text, ==,
    "Call graph of 3 unwound samples (top-down; total%, self%; paths under "
    "0.0% omitted):\n"
    " 100.0%    0.0%  x\\x1b]0;owned\\x07\n"
    " 100.0%    0.0%    main\n"
    "  66.7%   33.3%      st_leaf_work\n"
    "  33.3%    0.0%        st_recurse\n"
    "  33.3%   33.3%          st_leaf_work\n"
    "  33.3%   33.3%      st_run\n");
  st_callgraph_free (g);
  program_close (&p);
}

/* A chain of 120 frames alternating two functions: 121 lines, the
   indent stops growing at 30 levels.  */
static void
test_deep (void)
{
  Program p;

  if (!program_open (&p))
    return;
  StCallgraph *g = st_callgraph_new ();
  uint64_t chain[120];
  for (guint i = 0; i < G_N_ELEMENTS (chain); i++)
    chain[i] = i % 2 ? p.leaf : p.recurse;
  st_callgraph_add (g, p.symbolizer, p.dwfl, "deep", chain, 120);
  g_autofree char *text = printed (g, 0.0);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 121 + 1);
  /* Line 1 + K is at depth K: 2 * MIN (K, 30) spaces after the two.  */
  for (guint k = 0; k <= 120; k++)
    {
      const char *name = lines[1 + k] + 17;
      guint spaces = strspn (name, " ");
      g_assert_cmpuint (spaces, ==, 2 * MIN (k, 30));
    }
  g_assert_true (g_str_has_suffix (lines[121], "st_recurse"));
  g_assert_true (g_str_has_prefix (lines[121], " 100.0%  100.0%  "));
  st_callgraph_free (g);
  program_close (&p);
}

static void
test_empty (void)
{
  StCallgraph *g = st_callgraph_new ();
  g_autofree char *text = printed (g, 0.5);

  g_assert_cmpstr (text, ==, "Call graph of 0 unwound samples (top-down; "
                   "total%, self%; paths under 0.5% omitted):\n");
  /* A sample without frames: only its process.  */
  StSymbolizer *s = st_symbolizer_new ();
  st_callgraph_add (g, s, NULL, "idle", NULL, 0);
  g_autofree char *one = printed (g, 0.0);
  g_assert_cmpstr (one, ==, "Call graph of 1 unwound samples (top-down; "
                   "total%, self%; paths under 0.0% omitted):\n"
                   " 100.0%  100.0%  idle\n");
  st_symbolizer_free (s);
  st_callgraph_free (g);
  st_callgraph_free (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/callgraph-summary/tree", test_tree);
  g_test_add_func ("/callgraph-summary/order-and-names",
                   test_order_and_names);
  g_test_add_func ("/callgraph-summary/deep", test_deep);
  g_test_add_func ("/callgraph-summary/empty", test_empty);
  return g_test_run ();
}
