/* Where a module's separate debug file is, and when to fetch it
   (unwind/find-debuginfo.c), on the test programs as built and stripped
   at check time (tests/Makefile.am), with answers from libdw on the
   files themselves (tests/lib/module-probe.c).

   st_find_debuginfo_wanted: for dbgframe-prog stripped -- a build ID,
   no .debug_frame, and .eh_frame covering none of its own functions
   (libdw: neither main nor st_np_leaf has a frame there); not for the
   same file with its .debug_frame, nor for the fixture or the C library
   (.eh_frame for all their code), nor without a build ID or an ELF.

   st_find_debuginfo, as libdwfl's find_debuginfo callback of a Dwfl of
   the module: by build ID through the cache's finder for dbgframe-prog
   stripped alone in a directory (no debuglink can reach its debug
   file): asked once for the debug file of that build ID, and then the
   Dwfl has the CFI of its functions, which it has not without the
   finder's answer, nor when the answer is a FIFO or a file of another
   build ID; by debuglink, locally, for mixed-frames, with no finder
   call; never the finder for a module whose CFI is not wanted from it
   (the C library), nor for a dwz alternate file.

   st_find_debuginfo_may_have_debug_frame: TRUE exactly when the file or
   the debug file its debuglink reaches has a section named
   .debug_frame (libelf on both): mixed-frames yes, plain-stripped no,
   dbgframe-prog (its own) yes.  */
#include "config.h"

#include <elfutils/libdw.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture-call-path.h"
#include "module-probe.h"
#include "unwind/dwfl-offline.h"
#include "unwind/find-debuginfo.h"

#define PROGS ST_PROGS_DIR
/* Stripped, with unwind tables for all its code.  */
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static void
test_wanted (void)
{
  ProbeModules m;
  FixtureSymbols *symbols = fixture_symbols_load (PROGS "/dbgframe-prog");
  uint64_t leaf = fixture_symbols_address (symbols, "st_np_leaf");
  uint64_t main_ = fixture_symbols_address (symbols, "main");

  /* What makes dbgframe-prog stripped a case: its code has CFI only in
     the .debug_frame that stripping moved out.  */
  g_assert_false (probe_file_cfi_covers (PROGS "/dbgframe-stripped", leaf));
  g_assert_false (probe_file_cfi_covers (PROGS "/dbgframe-stripped", main_));
  g_assert_true (probe_file_cfi_covers (PROGS "/dbgframe-prog", leaf));
  g_assert_true (probe_has_section (PROGS "/dbgframe-prog", ".debug_frame"));
  g_assert_false (probe_has_section (PROGS "/dbgframe-stripped",
                                     ".debug_frame"));

  probe_modules_init (&m, ST_FIXTURE_DIR);
  StModule *stripped = probe_modules_get (&m, PROGS "/dbgframe-stripped");
  g_assert_nonnull (stripped->elf);
  g_assert_true (st_find_debuginfo_wanted (stripped));
  /* The same without a build ID: nothing to ask for.  */
  StModule copy = *stripped;
  copy.build_id_len = 0;
  g_assert_false (st_find_debuginfo_wanted (&copy));
  copy.build_id_len = stripped->build_id_len;
  copy.elf = NULL;
  g_assert_false (st_find_debuginfo_wanted (&copy));

  g_assert_false (st_find_debuginfo_wanted (
    probe_modules_get (&m, PROGS "/dbgframe-prog")));
  g_assert_false (st_find_debuginfo_wanted (
    probe_modules_get (&m, "/gone/st-fixture")));
  if (g_file_test (LIBC, G_FILE_TEST_EXISTS))
    g_assert_false (st_find_debuginfo_wanted (probe_modules_get (&m, LIBC)));
  g_assert_cmpuint (m.finder_calls, ==, 0);

  probe_modules_clear (&m);
  fixture_symbols_free (symbols);
}

/* The Dwfl of PATH's module (alone in a directory) finds CFI for
   st_np_leaf with the finder answering ANSWER; returns whether, and
   checks the finder's request.  */
static gboolean
cfi_with_answer (const char *path, const char *answer, uint64_t leaf)
{
  ProbeModules m;
  Dwfl_Module *mod;
  g_autofree char *dir = NULL;
  g_autofree char *prog = probe_copy_alone (path, &dir);
  GBytes *id = probe_build_id (prog);

  probe_modules_init (&m, NULL);
  m.finder_answer = answer;
  StModule *module = probe_modules_get (&m, prog);
  g_assert_nonnull (module->elf);
  g_assert_cmpuint (m.finder_calls, ==, 0);
  Dwfl *dwfl = st_dwfl_of_module (module, &mod);
  g_assert_nonnull (mod);
  gboolean covered = probe_module_cfi_covers (mod, leaf);
  g_assert_cmpuint (m.finder_calls, ==, 1);
  g_assert_cmpint (m.finder_kind, ==, ST_MODULE_FILE_DEBUGINFO);
  g_assert_true (g_bytes_equal (m.finder_build_id, id));
  g_assert_cmpstr (m.finder_path, ==, prog);
  if (covered)
    {
      const char *debugfile = NULL;
      dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
      g_assert_cmpstr (debugfile, ==, answer);
    }
  dwfl_end (dwfl);

  g_bytes_unref (id);
  probe_modules_clear (&m);
  g_assert_cmpint (g_unlink (prog), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  return covered;
}

static void
test_by_build_id (void)
{
  FixtureSymbols *symbols = fixture_symbols_load (PROGS "/dbgframe-prog");
  uint64_t leaf = fixture_symbols_address (symbols, "st_np_leaf");
  g_autofree char *dir = g_dir_make_tmp ("st-find-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.debug", NULL);

  g_assert_true (cfi_with_answer (PROGS "/dbgframe-stripped",
                                  PROGS "/dbgframe-stripped.debug", leaf));
  g_assert_false (cfi_with_answer (PROGS "/dbgframe-stripped", NULL, leaf));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (cfi_with_answer (PROGS "/dbgframe-stripped", fifo, leaf));
  /* Another program's debug file: libdwfl checks its build ID.  */
  g_assert_false (cfi_with_answer (PROGS "/dbgframe-stripped",
                                   PROGS "/mixed-frames.debug", leaf));

  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  fixture_symbols_free (symbols);
}

/* mixed-frames: its debug file next to it (debuglink) gives the leaf's
   CFI, without asking the finder; alone (and the finder answering
   nothing), no CFI for the leaf.  The C library's debug file is not
   asked for (unwind tables for all its code), nor a dwz alternate file
   (asked for under its own name: only the local search applies).  */
static void
test_by_debuglink (void)
{
  ProbeModules m;
  Dwfl_Module *mod;
  FixtureSymbols *symbols = fixture_symbols_load (PROGS "/mixed-frames.full");
  uint64_t leaf = fixture_symbols_address (symbols, "st_mx_leaf");
  g_autofree char *dir = NULL;
  g_autofree char *alone = probe_copy_alone (PROGS "/mixed-frames", &dir);

  g_assert_false (probe_file_cfi_covers (PROGS "/mixed-frames", leaf));
  probe_modules_init (&m, NULL);
  StModule *module = probe_modules_get (&m, PROGS "/mixed-frames");
  Dwfl *dwfl = st_dwfl_of_module (module, &mod);
  g_assert_true (probe_module_cfi_covers (mod, leaf));
  g_assert_cmpuint (m.finder_calls, ==, 0);
  dwfl_end (dwfl);

  module = probe_modules_get (&m, alone);
  dwfl = st_dwfl_of_module (module, &mod);
  g_assert_false (probe_module_cfi_covers (mod, leaf));
  dwfl_end (dwfl);

  if (g_file_test (LIBC, G_FILE_TEST_EXISTS))
    {
      guint calls = m.finder_calls;
      module = probe_modules_get (&m, LIBC);
      dwfl = st_dwfl_of_module (module, &mod);
      Dwarf_Addr bias;
      dwfl_module_dwarf_cfi (mod, &bias);
      g_assert_cmpuint (m.finder_calls, ==, calls);
      dwfl_end (dwfl);
    }

  module = probe_modules_get (&m, PROGS "/dbgframe-stripped");
  dwfl = st_dwfl_of_module (module, &mod);
  void *userdata = module;
  char *found = NULL;
  guint calls = m.finder_calls;
  g_assert_cmpint (st_find_debuginfo (mod, &userdata, module->name, 0,
                                      "/usr/lib/debug/.dwz/alt.debug",
                                      "alt.debug", 0, &found), ==, -1);
  g_assert_null (found);
  g_assert_cmpuint (m.finder_calls, ==, calls);
  dwfl_end (dwfl);

  probe_modules_clear (&m);
  g_assert_cmpint (g_unlink (alone), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  fixture_symbols_free (symbols);
}

/* Whether PATH or the debug file next to it (DEBUG, may be NULL) has a
   section named .debug_frame, by libelf.  */
static gboolean
names_debug_frame (const char *path, const char *debug)
{
  return probe_has_section (path, ".debug_frame")
         || (debug != NULL && probe_has_section (debug, ".debug_frame"));
}

static void
test_may_have_debug_frame (void)
{
  static const struct
  {
    const char *path, *debug;
  } files[] = {
    { PROGS "/mixed-frames", PROGS "/mixed-frames.debug" },
    { PROGS "/plain-stripped", PROGS "/plain-stripped.debug" },
    { PROGS "/dbgframe-prog", NULL },
    { PROGS "/fp-prog", NULL },
  };
  ProbeModules m;
  Dwfl_Module *mod;
  guint yes = 0, no = 0;

  probe_modules_init (&m, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      gboolean want = names_debug_frame (files[i].path, files[i].debug);
      StModule *module = probe_modules_get (&m, files[i].path);
      Dwfl *dwfl = st_dwfl_of_module (module, &mod);
      g_assert_nonnull (mod);
      g_test_message ("%s: %s", files[i].path, want ? "yes" : "no");
      g_assert_cmpint (st_find_debuginfo_may_have_debug_frame (mod), ==, want);
      dwfl_end (dwfl);
      yes += want;
      no += !want;
    }
  /* Both answers are checked.  */
  g_assert_cmpuint (yes, >=, 2);
  g_assert_cmpuint (no, >=, 2);
  probe_modules_clear (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/find-debuginfo/wanted", test_wanted);
  g_test_add_func ("/find-debuginfo/by-build-id", test_by_build_id);
  g_test_add_func ("/find-debuginfo/by-debuglink", test_by_debuglink);
  g_test_add_func ("/find-debuginfo/may-have-debug-frame",
                   test_may_have_debug_frame);
  return g_test_run ();
}
