/* Load bias of a mapping (model/load-bias.c).

   Synthetic: the segment layouts of bfd, gold, lld and mold, PIE and
   ET_EXEC, mapped with and without a recorded protection, alone and
   beside the other mappings of the same file.

   Live, against libdwfl: a test program runs (it writes a byte to
   ST_READY_FD once main runs, so every library is mapped); libdwfl
   reports the process from /proc/PID/maps (dwfl_linux_proc_report) and
   gives each module's bias, which must equal ours for every mapping of
   the module's file: as recorded (protection known), as a Sysprof
   capture has it (no protection), the code mapping alone, and the code
   mapping split in two (a mapping that does not start a segment).  The
   loader's PROT_NONE reservations between segments, file mappings too,
   may have no bias when no protection is known, never a wrong one.

     test-load-bias                       the synthetic cases, then the
                                          live check of the built test
                                          programs (ST_PROGS_DIR)
     test-load-bias --live PROG...        the live check of PROGs only
                                          (tests/integration/linker-matrix.sh)  */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/load-bias.h"

/* --- synthetic layouts ----------------------------------------------------- */

#define R PF_R
#define RX (PF_R | PF_X)
#define RW (PF_R | PF_W)

static StModule
module_of (const StLoadSegment *loads, guint n, gboolean fixed)
{
  StModule m = { 0 };

  m.loads = (StLoadSegment *) loads;
  m.n_loads = n;
  m.fixed_address = fixed;
  m.machine = EM_X86_64;
  m.low_vaddr = loads[0].vaddr & ~0xfffull;
  for (guint i = 0; i < n; i++)
    m.high_vaddr = MAX (m.high_vaddr, loads[i].vaddr + loads[i].memsz);
  return m;
}

static StMap
map_at (uint64_t start, uint64_t end, uint64_t pgoff, int prot)
{
  StMap map = { 0 };

  map.start = start;
  map.end = end;
  map.pgoff = pgoff;
  map.inode = 42;
  map.filename = "/opt/prog";
  map.exec_known = prot >= 0;
  map.prot = prot >= 0 ? (uint32_t) prot : 0;
  return map;
}

static uint64_t
bias_of (const StModule *m, const StMap *map, const StAddressSpace *as)
{
  uint64_t bias = 0xdead;

  g_assert_true (st_load_bias (m, map, as, &bias));
  return bias;
}

/* lld and mold: every segment in file page 0; the code segment's page
   is mapped at base + 0x1000 from file offset 0.  */
static void
test_lld_layout (void)
{
  static const StLoadSegment loads[] = {
    { 0x0, 0x0, 0x7e4, 0x7e4, R },
    { 0x17f0, 0x7f0, 0x300, 0x300, RX },
    { 0x2af0, 0xaf0, 0x1f8, 0x1f8, RW },
    { 0x3ce8, 0xce8, 0x60, 0x70, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  const uint64_t base = 0x55550000000;
  StMap ro = map_at (base, base + 0x1000, 0, PROT_READ);
  StMap code = map_at (base + 0x1000, base + 0x2000, 0, PROT_READ | PROT_EXEC);
  StMap relro = map_at (base + 0x2000, base + 0x3000, 0, PROT_READ);
  StMap data = map_at (base + 0x3000, base + 0x4000, 0, PROT_READ | PROT_WRITE);

  /* Protection recorded (perf.data).  */
  g_assert_cmphex (bias_of (&m, &code, NULL), ==, base);

  /* No protection (a capture): the code mapping alone takes the
     executable segment; beside the others, all agree on one bias.  */
  code.exec_known = FALSE;
  g_assert_cmphex (bias_of (&m, &code, NULL), ==, base);

  StAddressSpace *as = st_address_space_new ();
  StMap *all[] = { &ro, &code, &relro, &data };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      all[i]->exec_known = FALSE;
      st_address_space_add (as, all[i]);
    }
  for (guint i = 0; i < st_address_space_size (as); i++)
    g_assert_cmphex (bias_of (&m, st_address_space_get (as, i), as), ==, base);
  st_address_space_free (as);
}

/* gold (and bfd -z noseparate-code): headers and code in one segment
   from offset 0, data in the page where the code ends.  */
static void
test_gold_layout (void)
{
  static const StLoadSegment loads[] = {
    { 0x0, 0x0, 0xb98, 0xb98, RX },
    { 0x1da0, 0xda0, 0x2a8, 0x2b8, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  const uint64_t base = 0x7f0000000000;
  StMap code = map_at (base, base + 0x1000, 0, PROT_READ | PROT_EXEC);
  StMap data = map_at (base + 0x1000, base + 0x2000, 0, PROT_READ | PROT_WRITE);

  g_assert_cmphex (bias_of (&m, &code, NULL), ==, base);
  g_assert_cmphex (bias_of (&m, &data, NULL), ==, base);
  code.exec_known = data.exec_known = FALSE;
  g_assert_cmphex (bias_of (&m, &code, NULL), ==, base);

  StAddressSpace *as = st_address_space_new ();
  st_address_space_add (as, &code);
  st_address_space_add (as, &data);
  for (guint i = 0; i < st_address_space_size (as); i++)
    g_assert_cmphex (bias_of (&m, st_address_space_get (as, i), as), ==, base);
  st_address_space_free (as);
}

/* bfd -z separate-code: one segment per page, no sharing.  A mapping
   that starts inside the code segment (split by mprotect) and one of a
   single page in its middle give the same bias.  */
static void
test_bfd_layout (void)
{
  static const StLoadSegment loads[] = {
    { 0x0, 0x0, 0x7a0, 0x7a0, R },
    { 0x1000, 0x1000, 0x3305, 0x3305, RX },
    { 0x5000, 0x5000, 0x128, 0x128, R },
    { 0x6db0, 0x5db0, 0x290, 0x2a0, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  const uint64_t base = 0x560000000000;
  StMap code = map_at (base + 0x1000, base + 0x5000, 0x1000, PROT_READ | PROT_EXEC);
  StMap upper = map_at (base + 0x3000, base + 0x5000, 0x3000, PROT_READ | PROT_EXEC);
  StMap page = map_at (base + 0x2000, base + 0x3000, 0x2000, -1);

  g_assert_cmphex (bias_of (&m, &code, NULL), ==, base);
  g_assert_cmphex (bias_of (&m, &upper, NULL), ==, base);
  g_assert_cmphex (bias_of (&m, &page, NULL), ==, base);
}

/* A static ET_EXEC from lld: loaded at its own addresses, so bias 0,
   though the code page is file page 0 as in the PIE layout.  */
static void
test_static_exec (void)
{
  static const StLoadSegment loads[] = {
    { 0x200000, 0x0, 0x5e4, 0x5e4, R },
    { 0x2015f0, 0x5f0, 0x8000, 0x8000, RX },
    { 0x20a5f0, 0x85f0, 0x200, 0x1000, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), TRUE);
  StMap code = map_at (0x201000, 0x20a000, 0, PROT_READ | PROT_EXEC);

  g_assert_cmphex (bias_of (&m, &code, NULL), ==, 0);
  code.exec_known = FALSE;
  g_assert_cmphex (bias_of (&m, &code, NULL), ==, 0);
}

/* Two loads of one file (dlmopen, or a file mapped again by hand): each
   mapping agrees with its own load's other mappings.  */
static void
test_two_loads (void)
{
  static const StLoadSegment loads[] = {
    { 0x0, 0x0, 0x604, 0x604, R },
    { 0x1610, 0x610, 0x1b0, 0x1b0, RX },
    { 0x27c0, 0x7c0, 0x188, 0x188, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  const uint64_t a = 0x7f1000000000, b = 0x7f2000000000;
  StAddressSpace *as = st_address_space_new ();

  for (guint i = 0; i < 3; i++)
    {
      StMap x = map_at (a + i * 0x1000, a + (i + 1) * 0x1000, 0, -1);
      StMap y = map_at (b + i * 0x1000, b + (i + 1) * 0x1000, 0, -1);
      st_address_space_add (as, &x);
      st_address_space_add (as, &y);
    }
  for (guint i = 0; i < st_address_space_size (as); i++)
    {
      const StMap *map = st_address_space_get (as, i);
      g_assert_cmphex (bias_of (&m, map, as), ==, map->start < b ? a : b);
    }
  st_address_space_free (as);
}

/* The vDSO: one segment from offset 0, its image mapped whole.  */
static void
test_vdso (void)
{
  static const StLoadSegment loads[] = { { 0x0, 0x0, 0x1a2b, 0x1a2b, RX } };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  StMap vdso = map_at (0x7ffd12340000, 0x7ffd12342000, 0, PROT_READ | PROT_EXEC);

  vdso.filename = "[vdso]";
  g_assert_cmphex (bias_of (&m, &vdso, NULL), ==, 0x7ffd12340000);
}

/* Bytes of no segment: no bias.  A segment with no file bytes (.bss
   alone) is never what a file mapping holds.  */
static void
test_outside (void)
{
  static const StLoadSegment loads[] = {
    { 0x0, 0x0, 0x700, 0x700, RX },
    { 0x3000, 0x2000, 0x0, 0x1000, RW },
  };
  StModule m = module_of (loads, G_N_ELEMENTS (loads), FALSE);
  StMap beyond = map_at (0x10000, 0x11000, 0x2000, PROT_READ | PROT_EXEC);
  uint64_t bias;

  g_assert_false (st_load_bias (&m, &beyond, NULL, &bias));
}

/* --- live, against libdwfl ------------------------------------------------ */

static const Dwfl_Callbacks proc_callbacks = {
  .find_elf = dwfl_linux_proc_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
};

typedef struct
{
  GHashTable *bias;     /* module name (a path) -> libdwfl's bias */
} DwflBiases;

static int
collect_bias (Dwfl_Module *mod, void **userdata, const char *name,
              Dwarf_Addr low, void *arg)
{
  DwflBiases *d = arg;
  Dwarf_Addr bias;

  if (name != NULL && name[0] == '/' && dwfl_module_getelf (mod, &bias) != NULL)
    g_hash_table_insert (d->bias, g_strdup (name),
                         g_memdup2 (&bias, sizeof bias));
  return DWARF_CB_OK;
}

/* Starts PROG with ST_READY_FD and waits for its byte: main runs.  */
static pid_t
start_ready (const char *prog)
{
  int fds[2];
  char byte;

  g_assert_cmpint (pipe (fds), ==, 0);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      char fd_text[16];
      close (fds[0]);
      g_snprintf (fd_text, sizeof fd_text, "%d", fds[1]);
      setenv ("ST_READY_FD", fd_text, 1);
      execl (prog, prog, "600000", (char *) NULL);
      _exit (127);
    }
  close (fds[1]);
  ssize_t n;
  do
    n = read (fds[0], &byte, 1);
  while (n < 0 && errno == EINTR);
  close (fds[0]);
  if (n != 1)
    {
      waitpid (pid, NULL, 0);
      return -1;
    }
  return pid;
}

/* Compares, for every file mapping of PID whose file libdwfl reported,
   our bias with libdwfl's, four ways.  Prints one line per mapping
   checked; returns the number of mismatches (-1: nothing checked).  */
static int
compare_with_libdwfl (const char *label, pid_t pid)
{
  DwflBiases d = { g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
  Dwfl *dwfl = dwfl_begin (&proc_callbacks);
  StAddressSpace *as = st_address_space_new ();
  StAddressSpace *blind = st_address_space_new ();   /* no protection */
  StModuleCache *cache = st_module_cache_new (NULL);
  int bad = 0, checked = 0;

  g_assert_nonnull (dwfl);
  dwfl_report_begin (dwfl);
  g_assert_cmpint (dwfl_linux_proc_report (dwfl, pid), ==, 0);
  dwfl_report_end (dwfl, NULL, NULL);
  dwfl_getmodules (dwfl, collect_bias, &d, 0);
  g_assert_true (st_address_space_load_proc (as, pid));
  for (guint i = 0; i < st_address_space_size (as); i++)
    {
      StMap map = *st_address_space_get (as, i);
      map.exec_known = FALSE;
      map.prot = 0;
      st_address_space_add (blind, &map);
    }

  for (guint i = 0; i < st_address_space_size (as); i++)
    {
      const StMap *map = st_address_space_get (as, i);
      const StMap *blind_map = st_address_space_get (blind, i);
      const Dwarf_Addr *want = g_hash_table_lookup (d.bias, map->filename);
      if (want == NULL)
        continue;
      StModule *m = st_module_cache_get (cache, map);
      if (m->elf == NULL)
        continue;

      uint64_t known = 1, unknown = 1, alone = *want, split_lo = *want,
               split_hi = *want;
      gboolean ok = TRUE;
      gboolean code = (map->prot & PROT_EXEC) != 0;
      if (code)
        {
          ok &= st_load_bias (m, map, as, &known) && known == *want;
          StMap lone = *blind_map;
          ok &= st_load_bias (m, &lone, NULL, &alone) && alone == *want;
          if (map->end - map->start >= 0x2000)
            {
              /* Split where mprotect would: a page boundary inside.  */
              uint64_t mid = map->start + ((map->end - map->start) / 2 & ~0xfffull);
              StMap lo = *map, hi = *map;
              lo.end = mid;
              hi.start = mid;
              hi.pgoff += mid - map->start;
              ok &= st_load_bias (m, &lo, NULL, &split_lo) && split_lo == *want;
              ok &= st_load_bias (m, &hi, NULL, &split_hi) && split_hi == *want;
            }
        }
      /* The loader's PROT_NONE reservation between segments maps the
         file too: no segment's, so no bias, or the right one.  */
      if (st_load_bias (m, blind_map, blind, &unknown))
        ok &= unknown == *want;
      else
        ok &= map->prot == 0 && (unknown = *want, TRUE);
      checked++;
      if (!ok)
        bad++;
      printf ("%s: %s %s %" PRIx64 "-%" PRIx64 " pgoff %" PRIx64 ": libdwfl 0x%"
              PRIx64 ", ours: recorded 0x%" PRIx64 ", no protection 0x%" PRIx64
              ", alone 0x%" PRIx64 ", split 0x%" PRIx64 "/0x%" PRIx64 "\n",
              ok ? "ok" : "MISMATCH", label, map->filename, map->start,
              map->end, map->pgoff, (uint64_t) *want, code ? known : *want,
              unknown, alone, split_lo, split_hi);
    }

  st_module_cache_free (cache);
  st_address_space_free (blind);
  st_address_space_free (as);
  dwfl_end (dwfl);
  g_hash_table_unref (d.bias);
  return checked > 0 ? bad : -1;
}

/* The live check of one program: 0 when every mapping agreed.  */
static int
check_program (const char *prog)
{
  pid_t pid = start_ready (prog);
  int status;

  if (pid < 0)
    {
      printf ("FAIL: %s did not start\n", prog);
      return 1;
    }
  int bad = compare_with_libdwfl (prog, pid);
  kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  if (bad != 0)
    printf ("FAIL: %s: %s\n", prog,
            bad < 0 ? "no mapping compared" : "biases differ from libdwfl's");
  return bad != 0;
}

static void
test_live_progs (void)
{
  static const char *const progs[] = { "uses-lib", "nopie-prog", "threads" };

  for (guint i = 0; i < G_N_ELEMENTS (progs); i++)
    {
      g_autofree char *path = g_build_filename (ST_PROGS_DIR, progs[i], NULL);
      g_assert_cmpint (check_program (path), ==, 0);
    }
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--live") == 0)
    {
      int failed = 0;
      for (int i = 2; i < argc; i++)
        failed += check_program (argv[i]);
      return failed ? 1 : 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/load-bias/lld", test_lld_layout);
  g_test_add_func ("/load-bias/gold", test_gold_layout);
  g_test_add_func ("/load-bias/bfd", test_bfd_layout);
  g_test_add_func ("/load-bias/static-exec", test_static_exec);
  g_test_add_func ("/load-bias/two-loads", test_two_loads);
  g_test_add_func ("/load-bias/vdso", test_vdso);
  g_test_add_func ("/load-bias/outside", test_outside);
  g_test_add_func ("/load-bias/live-libdwfl", test_live_progs);
  return g_test_run ();
}
