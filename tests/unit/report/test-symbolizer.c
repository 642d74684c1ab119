/* The symbolizer's index against libdwfl's own search, on real files:
   for addresses around the symbols of each file (start, middle, last
   byte, one past the end, one before) and a grid over its code, the name
   must be exactly what dwfl_module_addrname gives.  Files: the committed
   static fixture, the C library (aliases, weak symbols, sizeless
   assembly labels), and the test programs when built.  */
#include "config.h"

#include <gelf.h>
#include <glib.h>
#include <string.h>

#include "mapped-program.h"
#include "report/symbolizer.h"

/* Queries per file, at most: the reference search is linear, so a file
   with many symbols gets fewer (about 40 million symbols visited).  */
#define MAX_SYMBOL_QUERIES 2500
#define MAX_GRID_QUERIES 1500
#define REFERENCE_BUDGET 40000000

/* The old way: libdwfl's search for every address.  */
static void
reference_name (Dwfl *dwfl, uint64_t addr, GString *out)
{
  Dwfl_Module *mod = dwfl_addrmodule (dwfl, addr);

  if (mod == NULL)
    {
      g_string_append (out, "[unknown]");
      return;
    }
  const char *name = dwfl_module_addrname (mod, addr);
  if (name != NULL)
    {
      g_string_append (out, name);
      return;
    }
  const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL);
  Dwarf_Addr bias = 0;
  dwfl_module_getelf (mod, &bias);
  const char *slash = modname ? strrchr (modname, '/') : NULL;
  g_string_append_printf (out, "[%s+0x%" G_GINT64_MODIFIER "x]",
                          slash ? slash + 1 : (modname ? modname : "?"),
                          (guint64) (addr - bias));
}

static int
first_module (Dwfl_Module *mod, void **userdata, const char *name,
              Dwarf_Addr start, void *arg)
{
  *(Dwfl_Module **) arg = mod;
  return DWARF_CB_ABORT;
}

static void
compare (StSymbolizer *s, Dwfl *dwfl, uint64_t addr, guint *n)
{
  g_autoptr (GString) ours = g_string_new (NULL);
  g_autoptr (GString) ref = g_string_new (NULL);

  st_symbolize (s, dwfl, addr, ours);
  reference_name (dwfl, addr, ref);
  if (strcmp (ours->str, ref->str) != 0)
    g_error ("0x%" G_GINT64_MODIFIER "x: index says %s, libdwfl says %s",
             (guint64) addr, ours->str, ref->str);
  (*n)++;
}

static void
check_file (gconstpointer data)
{
  const char *path = data;
  MappedProgram mp = { 0 };
  StSymbolizer *s = st_symbolizer_new ();
  guint n = 0;

  /* Mapped as the loader maps it: a position-independent file at a high
     base, another where it was linked.  */
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)
      || !mapped_program_open (&mp, path, 1))
    {
      g_test_skip ("file not there");
      goto out;
    }
  Dwfl *dwfl = mapped_program_dwfl (&mp);
  Dwfl_Module *mod = NULL;
  g_assert_nonnull (dwfl);
  dwfl_getmodules (dwfl, first_module, &mod, 0);
  g_assert_nonnull (mod);

  Dwarf_Addr low, high;
  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  int syms = dwfl_module_getsymtab (mod);
  g_assert_cmpint (syms, >, 1);
  int queries = MIN (MAX_SYMBOL_QUERIES, REFERENCE_BUDGET / 2 / syms);
  int grid = MIN (MAX_GRID_QUERIES, REFERENCE_BUDGET / 2 / syms);
  int step = MAX (1, (syms - 1) / MAX (queries / 5, 1));
  for (int i = 1; i < syms; i += step)
    {
      GElf_Sym sym;
      GElf_Addr value;
      if (dwfl_module_getsym_info (mod, i, &sym, &value, NULL, NULL, NULL)
          == NULL || value < low || value >= high)
        continue;
      compare (s, dwfl, value, &n);
      compare (s, dwfl, value - 1, &n);
      compare (s, dwfl, value + sym.st_size / 2, &n);
      if (sym.st_size > 0)
        compare (s, dwfl, value + sym.st_size - 1, &n);
      compare (s, dwfl, value + sym.st_size, &n);
    }
  for (uint64_t a = low; a < high; a += MAX ((high - low) / MAX (grid, 1), 1))
    compare (s, dwfl, a, &n);
  /* A second time: from the memo.  */
  for (uint64_t a = low; a < high; a += MAX ((high - low) / MAX (grid, 1), 1))
    compare (s, dwfl, a, &n);

  uint64_t indexed, searched;
  st_symbolizer_counts (s, &indexed, &searched);
  g_test_message ("%s: %d symbols, %u addresses compared; the index named "
                  "%" G_GUINT64_FORMAT ", libdwfl's search %" G_GUINT64_FORMAT,
                  path, syms - 1, n, indexed, searched);
  g_assert_cmpuint (indexed, >, 0);

out:
  st_symbolizer_free (s);
  mapped_program_close (&mp);
}

int
main (int argc, char **argv)
{
  const char *data = g_getenv ("TESTS_DATA");
  const char *builddir = g_getenv ("TESTS_BUILDDIR");
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_ptr_array_add (files, g_build_filename (data ? data : "data", "fixture",
                                            "st-fixture", NULL));
  g_ptr_array_add (files, g_strdup ("/lib/x86_64-linux-gnu/libc.so.6"));
  /* Some 100,000 symbols, the case the index is for.  */
  g_ptr_array_add (files, g_strdup ("/usr/lib/gcc/x86_64-linux-gnu/12/cc1"));
  if (builddir != NULL)
    {
      g_ptr_array_add (files, g_build_filename (builddir, "progs",
                                                "libstcallee.so", NULL));
      g_ptr_array_add (files, g_build_filename (builddir, "progs",
                                                "plt-calls", NULL));
    }
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("/symbolizer/%u-%s", i,
                                               strrchr (files->pdata[i], '/') + 1);
      g_test_add_data_func (name, files->pdata[i], check_file);
    }
  int rc = g_test_run ();
  g_ptr_array_free (files, TRUE);
  return rc;
}
