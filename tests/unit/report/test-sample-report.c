/* Unit tests: what a sample's chain gives the reports.  A process maps
   the committed static fixture program (main -> st_run -> st_recurse ...
   -> st_leaf_work); synthetic samples with addresses inside those
   functions, and outside every module, must give the --chains line and
   the call graph that name them.  */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/module-cache.h"
#include "model/process-table.h"
#include "report/sample-report.h"
#include "summary-text.h"
#include "unwind/unwinder.h"

#define PID 42
#define TID 43

/* An address no module maps.  */
#define NOWHERE 0x10

typedef struct
{
  StModuleCache *modules;
  StUnwinder *unwinder;
  StProcessTable *processes;
  Dwfl *dwfl;
  /* Inside each function, past its first instruction.  */
  uint64_t leaf, recurse, run, main;
} Fixture;

/* MAP events for the loadable segments of PATH (a static ET_EXEC: where
   it was linked), as the loader maps them.  */
static void
map_file (StProcessTable *t, const char *path)
{
  int fd = open (path, O_RDONLY);
  g_assert_cmpint (fd, >=, 0);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  GElf_Ehdr ehdr;
  size_t n = 0;

  g_assert_nonnull (elf);
  g_assert_nonnull (gelf_getehdr (elf, &ehdr));
  g_assert_cmpint (ehdr.e_type, ==, ET_EXEC);
  g_assert_cmpint (elf_getphdrnum (elf, &n), ==, 0);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      StEvent ev = { 0 };
      ev.kind = ST_EVENT_MAP;
      ev.pid = ev.tid = PID;
      ev.map.start = ph.p_vaddr & ~4095ull;
      ev.map.end = (ph.p_vaddr + ph.p_memsz + 4095) & ~4095ull;
      ev.map.pgoff = ph.p_offset & ~4095ull;
      ev.map.prot = (ph.p_flags & PF_X) ? 4 /* PROT_EXEC */ : 1;
      ev.map.exec_known = TRUE;
      ev.map.filename = path;
      st_process_table_apply (t, &ev);
    }
  elf_end (elf);
  close (fd);
}

static int
first_module (Dwfl_Module *mod, void **userdata, const char *name,
              Dwarf_Addr start, void *arg)
{
  *(Dwfl_Module **) arg = mod;
  return DWARF_CB_ABORT;
}

/* The address of function NAME in the fixture's module, plus 4.  */
static uint64_t
inside (Dwfl *dwfl, const char *name)
{
  Dwfl_Module *mod = NULL;

  dwfl_getmodules (dwfl, first_module, &mod, 0);
  g_assert_nonnull (mod);
  int n = dwfl_module_getsymtab (mod);
  for (int i = 1; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Addr value;
      const char *s = dwfl_module_getsym_info (mod, i, &sym, &value, NULL,
                                               NULL, NULL);
      if (s != NULL && g_str_equal (s, name)
          && GELF_ST_TYPE (sym.st_info) == STT_FUNC)
        {
          g_assert_cmpuint (sym.st_size, >, 4);
          return value + 4;
        }
    }
  g_error ("no function %s in the fixture", name);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const char *tests_data = g_getenv ("TESTS_DATA");
  g_autofree char *path = g_build_filename (tests_data ? tests_data : "data",
                                            "fixture", "st-fixture", NULL);

  elf_version (EV_CURRENT);
  f->modules = st_module_cache_new (NULL);
  f->unwinder = st_unwinder_new (ST_ENGINE_FAST, f->modules);
  f->processes = st_process_table_new ();
  map_file (f->processes, path);
  f->dwfl = st_unwinder_dwfl (f->unwinder,
                              st_process_table_get (f->processes, PID));
  g_assert_nonnull (f->dwfl);
  f->leaf = inside (f->dwfl, "st_leaf_work");
  f->recurse = inside (f->dwfl, "st_recurse");
  f->run = inside (f->dwfl, "st_run");
  f->main = inside (f->dwfl, "main");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  st_process_table_free (f->processes);
  st_unwinder_free (f->unwinder);
  st_module_cache_free (f->modules);
}

static StEvent
sample_event (int64_t time)
{
  StEvent ev = { 0 };

  ev.kind = ST_EVENT_STACK_USER;
  ev.pid = PID;
  ev.tid = TID;
  ev.time = time;
  return ev;
}

/* The line: pid, tid, time, the addresses leaf first, their names;
   an address outside every module is [unknown].  */
static void
test_chain_line (Fixture *f, gconstpointer data)
{
  StSampleReport *r = st_sample_report_new (TRUE, FALSE, FALSE, NULL);
  StEvent ev = sample_event (1234567);
  uint64_t ips[] = { f->leaf, f->recurse, f->recurse, f->run, f->main,
                     NOWHERE };
  g_autofree char *line = st_sample_report_add (r, f->dwfl, NULL, &ev,
                                                "st-fixture", ips,
                                                G_N_ELEMENTS (ips));
  g_autofree char *want = g_strdup_printf (
    "42\t43\t1234567\t0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
    ",0x%" PRIx64 ",0x10\t"
    "st_leaf_work;st_recurse;st_recurse;st_run;main;[unknown]\n",
    f->leaf, f->recurse, f->recurse, f->run, f->main);

  g_assert_cmpstr (line, ==, want);
  g_assert_null (st_sample_report_callgraph (r));

  /* Without the process's Dwfl nothing has a name; without frames the
     line still says whose sample it was.  */
  g_autofree char *bare = st_sample_report_add (r, NULL, NULL, &ev, NULL,
                                                ips, 2);
  g_autofree char *want_bare = g_strdup_printf (
    "42\t43\t1234567\t0x%" PRIx64 ",0x%" PRIx64 "\t[unknown];[unknown]\n",
    f->leaf, f->recurse);
  g_assert_cmpstr (bare, ==, want_bare);
  g_autofree char *empty = st_sample_report_add (r, f->dwfl, NULL, &ev, NULL,
                                                 ips, 0);
  g_assert_cmpstr (empty, ==, "42\t43\t1234567\t\t\n");
  st_sample_report_free (r);
}

/* Two samples of one process: the tree root first, the direct recursion
   folded into one node, the unknown leaf named so; no --chains line.  */
static void
test_callgraph (Fixture *f, gconstpointer data)
{
  StSampleReport *r = st_sample_report_new (FALSE, TRUE, FALSE, NULL);
  StEvent ev = sample_event (1);
  uint64_t deep[] = { f->leaf, f->recurse, f->recurse, f->run, f->main };
  uint64_t lost[] = { NOWHERE, f->run, f->main };
  g_assert_null (st_sample_report_add (r, f->dwfl, NULL, &ev, "st-fixture",
                                       deep, G_N_ELEMENTS (deep)));
  g_assert_null (st_sample_report_add (r, f->dwfl, NULL, &ev, "st-fixture",
                                       lost, G_N_ELEMENTS (lost)));
  g_assert_nonnull (st_sample_report_callgraph (r));
  g_autofree char *text
    = summary_text_call_graph (st_sample_report_callgraph (r), 0.0);
  g_assert_cmpstr (text, ==,
    "Call graph of 2 unwound samples (top-down; total%, self%; paths "
    "under 0.0% omitted):\n"
    " 100.0%    0.0%  st-fixture\n"
    " 100.0%    0.0%    main\n"
    " 100.0%    0.0%      st_run\n"
    "  50.0%   50.0%        [unknown]\n"
    "  50.0%    0.0%        st_recurse\n"
    "  50.0%   50.0%          st_leaf_work\n");
  st_sample_report_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/sample-report/chain-line", Fixture, NULL, fixture_set_up,
              test_chain_line, fixture_tear_down);
  g_test_add ("/sample-report/callgraph", Fixture, NULL, fixture_set_up,
              test_callgraph, fixture_tear_down);
  return g_test_run ();
}
