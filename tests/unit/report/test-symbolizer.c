/* The symbolizer's index against libdwfl's own search, on real files:
   for addresses around the symbols of each file (start, middle, last
   byte, one past the end, one before) and a grid over its code, the name
   must be exactly what dwfl_module_addrname gives.  Files: the committed
   static fixture, the C library (aliases, weak symbols, sizeless
   assembly labels), and the test programs when built.  Demangled, the
   names of cc1 (C++) must be what binutils' c++filt prints for
   libdwfl's; outside every module, the names of JIT code come from the
   process's perf map, "[JIT]" in anonymous code it does not name.  */
#include "config.h"

#include <gelf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* c++filt's names of NAMES (one process for all), or NULL without it.  */
static char **
cxxfilt (GPtrArray *names)
{
  g_autoptr (GString) in = g_string_new (NULL);
  g_autofree char *out = NULL;
  g_autofree char *path = g_find_program_in_path ("c++filt");
  int status;

  if (path == NULL)
    return NULL;
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (in, "%s\n", (char *) names->pdata[i]);
  g_autofree char *in_path = NULL;
  int fd = g_file_open_tmp ("st-cxxfilt-XXXXXX", &in_path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, in->str, in->len), ==, (gssize) in->len);
  close (fd);
  g_autofree char *cmd = g_strdup_printf ("sh -c 'c++filt < %s'", in_path);
  gboolean ran = g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL);
  g_unlink (in_path);
  if (!ran || status != 0)
    return NULL;
  return g_strsplit (out, "\n", -1);
}

/* Whether c++filt, which demangles verbosely (DMGL_VERBOSE), spells
   NAME otherwise than perf and gdb do: it writes the standard
   abbreviations (Sa, Sb, Ss, Si, So, Sd: std::string and the like) out
   in full.  (Crude: an identifier holding those letters is left out
   too.)  */
static gboolean
has_std_abbreviation (const char *name)
{
  static const char *const abbreviations[] = { "Sa", "Sb", "Ss", "Si", "So",
                                               "Sd" };

  for (guint i = 0; i < G_N_ELEMENTS (abbreviations); i++)
    if (strstr (name, abbreviations[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Every 50th symbol of cc1 (C++: about 100,000 symbols), demangled by
   the symbolizer, against c++filt on libdwfl's name (but for the
   abbreviations c++filt writes out).  */
static void
test_demangled (void)
{
  const char *path = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1";
  MappedProgram mp = { 0 };
  StSymbolizer *s = st_symbolizer_new ();
  g_autoptr (GPtrArray) raw = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) ours = g_ptr_array_new_with_free_func (g_free);
  /* Declared before the first goto: a jump past its initialization
     would free an uninitialized pointer at the end.  */
  g_auto (GStrv) want = NULL;
  guint mangled = 0;

  st_symbolizer_set_demangle (s, TRUE);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)
      || !mapped_program_open (&mp, path, 1))
    {
      g_test_skip ("no cc1");
      goto out;
    }
  Dwfl *dwfl = mapped_program_dwfl (&mp);
  Dwfl_Module *mod = NULL;
  dwfl_getmodules (dwfl, first_module, &mod, 0);
  g_assert_nonnull (mod);
  Dwarf_Addr low, high;
  dwfl_module_info (mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
  int syms = dwfl_module_getsymtab (mod);
  for (int i = 1; i < syms; i += 50)
    {
      GElf_Sym sym;
      GElf_Addr value;
      if (dwfl_module_getsym_info (mod, i, &sym, &value, NULL, NULL, NULL)
          == NULL || value < low || value >= high)
        continue;
      const char *name = dwfl_module_addrname (mod, value);
      if (name == NULL || has_std_abbreviation (name))
        continue;
      GString *mine = g_string_new (NULL);
      /* Twice: the second from the memo.  */
      st_symbolize (s, dwfl, value, mine);
      g_string_truncate (mine, 0);
      st_symbolize (s, dwfl, value, mine);
      g_ptr_array_add (raw, g_strdup (name));
      g_ptr_array_add (ours, g_string_free (mine, FALSE));
      mangled += g_str_has_prefix (name, "_Z");
    }
  want = cxxfilt (raw);
  if (want == NULL)
    {
      g_test_skip ("no c++filt");
      goto out;
    }
  for (guint i = 0; i < raw->len; i++)
    if (strcmp (ours->pdata[i], want[i]) != 0)
      g_error ("%s: demangled '%s', c++filt says '%s'",
               (char *) raw->pdata[i], (char *) ours->pdata[i], want[i]);
  g_test_message ("%u names, %u of them mangled, as c++filt gives them",
                  raw->len, mangled);
  g_assert_cmpuint (mangled, >, 100);
out:
  st_symbolizer_free (s);
  mapped_program_close (&mp);
}

/* Addresses in no module: named by the process's perf map, "[JIT]" in
   anonymous executable memory it does not cover, "[unknown]" elsewhere;
   another process's map is not used.  */
static void
test_outside_modules (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-symbolizer-XXXXXX", NULL);
  g_autofree char *map = g_build_filename (dir, "perf-77.map", NULL);
  g_assert_true (g_file_set_contents (map, "7f0000001000 40 JS:*hot a.js:1"
                                      "\n", -1, NULL));
  StJitNames *jit = st_jit_names_new (NULL, dir, NULL, NULL);
  StSymbolizer *s = st_symbolizer_new ();
  StAddressSpace *as = st_address_space_new ();
  StMap anon = { .start = 0x7f0000000000, .end = 0x7f0000100000,
                 .filename = "//anon", .prot = PROT_READ | PROT_EXEC,
                 .exec_known = TRUE };
  StMap data = { .start = 0x7f0000100000, .end = 0x7f0000200000,
                 .filename = "//anon", .prot = PROT_READ | PROT_WRITE,
                 .exec_known = TRUE };
  g_autoptr (GString) out = g_string_new (NULL);

  st_address_space_add (as, &anon);
  st_address_space_add (as, &data);
  st_symbolizer_set_jit_names (s, jit);
  st_symbolizer_set_process (s, 77, as);
  st_symbolize (s, NULL, 0x7f0000001010, out);
  g_string_append_c (out, ';');
  st_symbolize (s, NULL, 0x7f0000002000, out);
  g_string_append_c (out, ';');
  st_symbolize (s, NULL, 0x7f0000100010, out);
  g_string_append_c (out, ';');
  st_symbolize (s, NULL, 0x1000, out);
  g_assert_cmpstr (out->str, ==, "JS:*hot a.js:1;[JIT];[unknown];[unknown]");

  g_string_truncate (out, 0);
  st_symbolizer_set_process (s, 78, as);
  st_symbolize (s, NULL, 0x7f0000001010, out);
  g_assert_cmpstr (out->str, ==, "[JIT]");

  st_address_space_free (as);
  st_symbolizer_free (s);
  st_jit_names_free (jit);
  g_unlink (map);
  g_rmdir (dir);
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
      g_autofree char *name
        = g_strdup_printf ("/symbolizer/%u-%s", i,
                           strrchr (files->pdata[i], '/') + 1);
      g_test_add_data_func (name, files->pdata[i], check_file);
    }
  g_test_add_func ("/symbolizer/demangled", test_demangled);
  g_test_add_func ("/symbolizer/outside-modules", test_outside_modules);
  int rc = g_test_run ();
  g_ptr_array_free (files, TRUE);
  return rc;
}
