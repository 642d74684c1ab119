/* The Dwfl over the module cache's Elfs (unwind/dwfl-offline.c).

   A Dwfl of one module (st_dwfl_of_module) is the module at its ELF
   addresses: the fixture's extent is its program headers' (read with
   libelf), its symbols name each function of the fixture's symbol table
   at that function's address, its CFI covers them; its Elf is the
   cache's own, still usable after the Dwfl ends (ASan would see a
   double free or a use after free).  A module with no file gives a
   module without an Elf, no crash.  mixed-frames (stripped, its leaf's
   CFI only in the .debug_frame of its debug file) gets that CFI through
   the Dwfl: its debug file found by its debuglink, which the stripped
   file's own CFI (libdw, on the file) does not cover.

   The prepare hook (st_dwfl_offline_prepare) asks the cache's finder for
   the debug file of a module whose CFI may be only there (dbgframe-prog
   stripped, alone in a directory), by that file's build ID (read with
   libdw), once; and never for a module with CFI of its own (the
   fixture, mixed-frames).  */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>

#include "fixture-call-path.h"
#include "module-probe.h"
#include "unwind/dwfl-offline.h"

#define FIXTURE ST_FIXTURE_DIR "/st-fixture"
#define PROGS ST_PROGS_DIR

static void
test_module_dwfl (void)
{
  ProbeModules m;
  Dwfl_Module *mod;
  Dwarf_Addr start, end, bias;
  FixtureSymbols *symbols = fixture_symbols_load (FIXTURE);

  probe_modules_init (&m, ST_FIXTURE_DIR);
  StModule *module = probe_modules_get (&m, "/gone/st-fixture");
  g_assert_nonnull (module->elf);
  /* bfd's static ET_EXEC: LOAD 0x400000 .. 0x49e758 + 0xb348.  */
  g_assert_cmphex (module->low_vaddr, ==, 0x400000);
  g_assert_cmphex (module->high_vaddr, ==, 0x4a9aa0);

  Dwfl *dwfl = st_dwfl_of_module (module, &mod);
  g_assert_nonnull (dwfl);
  g_assert_nonnull (mod);
  dwfl_module_info (mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
  g_assert_cmphex (start, ==, 0x400000);
  g_assert_cmphex (end, ==, 0x4a9aa0);
  Elf *elf = dwfl_module_getelf (mod, &bias);
  g_assert_true (elf == module->elf);
  g_assert_cmphex (bias, ==, 0);
  g_assert_true (dwfl_addrmodule (dwfl, 0x401000) == mod);
  g_assert_null (dwfl_addrmodule (dwfl, 0x3ff000));

  static const char *const functions[] = {
    "st_leaf_work", "st_recurse", "st_run", "main", "_start",
    "__libc_start_call_main",
  };
  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    {
      uint64_t addr = fixture_symbols_address (symbols, functions[i]);
      g_assert_cmphex (addr, !=, 0);
      g_assert_cmpstr (dwfl_module_addrname (mod, addr + 1), ==,
                       functions[i]);
      g_assert_true (probe_module_cfi_covers (mod, addr + 1));
    }
  dwfl_end (dwfl);
  /* The cache's Elf outlives the Dwfl.  */
  g_assert_cmpint (elf_kind (module->elf), ==, ELF_K_ELF);
  g_assert_nonnull (elf_getident (module->elf, NULL));

  StModule *gone = probe_modules_get (&m, "/gone/not-anywhere");
  g_assert_null (gone->elf);
  dwfl = st_dwfl_of_module (gone, &mod);
  if (mod != NULL)
    g_assert_null (dwfl_module_getelf (mod, &bias));
  dwfl_end (dwfl);

  probe_modules_clear (&m);
  fixture_symbols_free (symbols);
}

/* mixed-frames' leaf: CFI only in its debug file's .debug_frame, which
   the Dwfl finds by the debuglink next to the file.  */
static void
test_debug_file_by_debuglink (void)
{
  ProbeModules m;
  Dwfl_Module *mod;
  FixtureSymbols *symbols = fixture_symbols_load (PROGS "/mixed-frames.full");
  uint64_t leaf = fixture_symbols_address (symbols, "st_mx_leaf");
  uint64_t main_ = fixture_symbols_address (symbols, "main");
  const char *debugfile = NULL;

  g_assert_cmphex (leaf, !=, 0);
  g_assert_false (probe_file_cfi_covers (PROGS "/mixed-frames", leaf));
  g_assert_true (probe_file_cfi_covers (PROGS "/mixed-frames.debug", leaf));
  g_assert_true (probe_file_cfi_covers (PROGS "/mixed-frames", main_));

  probe_modules_init (&m, NULL);
  StModule *module = probe_modules_get (&m, PROGS "/mixed-frames");
  g_assert_nonnull (module->elf);
  Dwfl *dwfl = st_dwfl_of_module (module, &mod);
  g_assert_nonnull (mod);
  /* At its ELF addresses.  */
  g_assert_true (probe_module_cfi_covers (mod, leaf));
  g_assert_true (probe_module_cfi_covers (mod, main_));
  dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  g_assert_cmpstr (debugfile, ==, PROGS "/mixed-frames.debug");
  /* Found locally: no finder.  */
  g_assert_cmpuint (m.finder_calls, ==, 0);
  dwfl_end (dwfl);

  probe_modules_clear (&m);
  fixture_symbols_free (symbols);
}

/* The prepare hook asks the finder for dbgframe-prog's debug file (alone
   in a directory: no debuglink can find it) by its build ID; not for
   files with CFI of their own.  */
static void
test_prepare (void)
{
  ProbeModules m;
  g_autofree char *dir = NULL;
  g_autofree char *prog = probe_copy_alone (PROGS "/dbgframe-stripped", &dir);
  GBytes *id = probe_build_id (prog);

  probe_modules_init (&m, NULL);
  st_module_cache_set_prepare (m.cache, st_dwfl_offline_prepare, NULL);
  m.finder_answer = PROGS "/dbgframe-stripped.debug";

  StModule *module = probe_modules_get (&m, FIXTURE);
  g_assert_nonnull (module->elf);
  module = probe_modules_get (&m, PROGS "/mixed-frames");
  g_assert_nonnull (module->elf);
  g_assert_cmpuint (m.finder_calls, ==, 0);

  module = probe_modules_get (&m, prog);
  g_assert_nonnull (module->elf);
  g_assert_cmpuint (m.finder_calls, ==, 1);
  g_assert_cmpint (m.finder_kind, ==, ST_MODULE_FILE_DEBUGINFO);
  g_assert_true (g_bytes_equal (m.finder_build_id, id));

  g_bytes_unref (id);
  probe_modules_clear (&m);
  g_assert_cmpint (g_unlink (prog), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  elf_version (EV_CURRENT);
  g_test_add_func ("/dwfl-offline/module-dwfl", test_module_dwfl);
  g_test_add_func ("/dwfl-offline/debug-file-by-debuglink",
                   test_debug_file_by_debuglink);
  g_test_add_func ("/dwfl-offline/prepare", test_prepare);
  return g_test_run ();
}
