/* The libdwfl engine (unwind/dwfl-unwinder.c).

   Known call paths: every sample of the committed fixture recording
   (tests/data/fixture, its capture and its perf.data) unwinds to _start,
   and each one whose leaf is st_leaf_work along exactly the path of
   st-fixture.c (st_leaf_work, st_recurse x 6..61, st_run, main, then
   glibc's start), functions told by st-fixture's symbol table read with
   libelf (tests/lib/fixture-call-path.c); each frame's stack pointer is
   above its callee's, the leaf's the sampled one.  The stack copy cut
   short gives a prefix of that path, truncated at the end of the stack;
   a frame limit, the limit.

   Frame pointers where there is no CFI: a stack built after the x86_64
   ABI's frame layout through fp-prog (built without any CFI,
   tests/lib/prog-samples.c) unwinds through each frame to _start; a
   stop in a PLT entry (a CFA expression of RIP) finds the return
   address where the call and the entry's push put it.

   Bad input: no mappings, no registers, a PC in no module, a stack of
   zeros (a return address of 0 ends the walk), only mappings of a file
   that is not there.  The engine's Dwfl names the fixture's functions
   as its symbol table does, and its module list is the process's.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "fixture-call-path.h"
#include "prog-samples.h"
#include "format/capture-types.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/dwfl-unwinder.h"
#include "unwind/registers.h"

#define FIXTURE ST_FIXTURE_DIR "/st-fixture"
#define FP_PROG ST_PROGS_DIR "/fp-prog"
#define PLT_CALLS ST_PROGS_DIR "/plt-calls"

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_SP 7
#define REG_IP 8

typedef struct
{
  FixtureSymbols *symbols;
  StModuleCache *modules;
  StDwflUnwinder *unwinder;
  StProcessTable *processes;
  guint samples, in_work, complete;
  uint32_t max_ips;
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} Check;

static void
check_init (Check *c)
{
  memset (c, 0, sizeof *c);
  c->symbols = fixture_symbols_load (FIXTURE);
  c->modules = st_module_cache_new (ST_FIXTURE_DIR);
  c->unwinder = st_dwfl_unwinder_new (c->modules);
  c->processes = st_process_table_new ();
  c->max_ips = ST_UNWIND_MAX_FRAMES;
}

static void
check_clear (Check *c)
{
  st_process_table_free (c->processes);
  st_dwfl_unwinder_free (c->unwinder);
  st_module_cache_free (c->modules);
  fixture_symbols_free (c->symbols);
}

static void
unwind_fixture_sample (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult res;
  uint64_t sp;

  st_dwfl_unwinder_unwind (c->unwinder, p, ev, c->ips, c->sps, c->max_ips,
                           &res);
  c->samples++;
  g_assert_cmpint (res.path, ==, ST_PATH_DWFL);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NONE);
  c->in_work += fixture_call_path_assert (c->symbols, ev, c->ips, &res);
  g_assert_true (st_event_register (ev, REG_SP, &sp));
  g_assert_cmphex (c->sps[0], ==, sp);
  for (guint i = 1; i < res.n_ips; i++)
    g_assert_cmphex (c->sps[i], >, c->sps[i - 1]);
}

static void
check_recording (const char *path)
{
  Check c;

  check_init (&c);
  fixture_for_each_sample (path, c.processes, unwind_fixture_sample, &c);
  g_test_message ("%s: %u samples unwound to _start, %u of them along the "
                  "whole path from st_leaf_work", path, c.samples, c.in_work);
  /* ~300 samples, all but a few in st_leaf_work (tests/data/README).  */
  g_assert_cmpuint (c.samples, >=, 250);
  g_assert_cmpuint (c.in_work, >=, c.samples * 9 / 10);
  check_clear (&c);
}

static void
test_fixture_capture (void)
{
  check_recording (ST_FIXTURE_DIR "/fixture.syscap");
}

static void
test_fixture_perf (void)
{
  check_recording (ST_FIXTURE_DIR "/fixture.data");
}

/* --- variations on fixture samples ---------------------------------------- */

typedef struct
{
  Check *c;
  guint done;
} Variations;

static void
dwfl_unwind (void *engine, StProcess *p, const StEvent *ev, uint64_t *ips,
             uint64_t *sps, uint32_t max_ips, StUnwindResult *res)
{
  st_dwfl_unwinder_unwind (engine, p, ev, ips, sps, max_ips, res);
}

/* Cut stacks and a frame limit (fixture_check_cut_walks) on samples
   with the whole path.  */
static void
vary_sample (StProcess *p, const StEvent *ev, void *user)
{
  Variations *v = user;
  Check *c = v->c;
  StUnwindResult full;
  gboolean in_work;

  st_dwfl_unwinder_unwind (c->unwinder, p, ev, c->ips, c->sps,
                           ST_UNWIND_MAX_FRAMES, &full);
  g_free (fixture_call_path_check (c->symbols, c->ips, full.n_ips, &in_work));
  if (!in_work || full.n_ips < 20 || v->done >= 40)
    return;
  v->done++;
  fixture_check_cut_walks (dwfl_unwind, c->unwinder, p, ev, c->ips, c->sps,
                           full.n_ips);
}

static void
test_cut_and_limited (void)
{
  Check c;
  Variations v = { &c };

  check_init (&c);
  fixture_for_each_sample (ST_FIXTURE_DIR "/fixture.syscap", c.processes,
                           vary_sample, &v);
  g_assert_cmpuint (v.done, >, 10);
  check_clear (&c);
}

/* --- the process's Dwfl and modules --------------------------------------- */

static void
first_sample (StProcess *p, const StEvent *ev, void *user)
{
  StEvent **out = user;

  if (*out == NULL)
    *out = st_event_copy (ev);
}

/* The engine's Dwfl: one module, the fixture (ET_EXEC, bias 0), naming
   the leaf's function as the symbol table does.  */
static void
test_dwfl_and_modules (void)
{
  Check c;
  StEvent *ev = NULL;
  uint64_t ip;

  check_init (&c);
  fixture_for_each_sample (ST_FIXTURE_DIR "/fixture.syscap", c.processes,
                           first_sample, &ev);
  g_assert_nonnull (ev);
  StProcess *p = st_process_table_get (c.processes, ev->pid);
  g_assert_true (st_event_register (ev, REG_IP, &ip));

  StProcessModules *pm = st_dwfl_unwinder_modules (c.unwinder, p);
  /* The fixture (bias 0: ET_EXEC), and the recording's [vdso] where
     this machine's matches it.  */
  const StProcessModule *m = st_process_modules_find (pm, ip);
  g_assert_nonnull (m);
  g_assert_true (m == &pm->mods[0]);
  g_assert_true (g_str_has_suffix (m->module->name, "/st-fixture"));
  g_assert_cmphex (m->bias, ==, 0);
  g_assert_cmphex (m->start, ==, 0x400000);
  for (guint i = 1; i < pm->n; i++)
    g_assert_cmpstr (pm->mods[i].module->name, ==, "[vdso]");
  g_assert_cmpint (st_dwfl_unwinder_readiness (c.unwinder, p), ==,
                   ST_MODULES_READY);

  Dwfl *dwfl = st_dwfl_unwinder_dwfl (c.unwinder, p);
  g_assert_nonnull (dwfl);
  uint64_t work = fixture_symbols_address (c.symbols, "st_leaf_work");
  Dwfl_Module *mod = dwfl_addrmodule (dwfl, work);
  g_assert_nonnull (mod);
  g_assert_cmpstr (dwfl_module_addrname (mod, work), ==, "st_leaf_work");
  g_assert_cmpstr (dwfl_module_addrname (mod, ip), ==,
                   fixture_symbols_name (c.symbols, ip));
  g_assert_null (dwfl_addrmodule (dwfl, 0x1000));
  /* The same Dwfl while the mappings stay.  */
  g_assert_true (st_dwfl_unwinder_dwfl (c.unwinder, p) == dwfl);

  g_free (ev);
  check_clear (&c);
}

/* --- bad input ------------------------------------------------------------ */

/* Unwinds a sample with registers REGS (17, x86_64's) and STACK in
   process P.  */
static void
unwind_regs (Check *c, StProcess *p, uint32_t abi, const uint64_t *regs,
             const void *stack, size_t stack_size, StUnwindResult *res)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_STACK_USER;
  ev.pid = ev.tid = p->pid;
  ev.stack.abi = abi;
  ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  ev.stack.regs = regs;
  ev.stack.n_regs = abi == ST_REGS_ABI_NONE ? 0 : 17;
  ev.stack.stack = stack;
  ev.stack.stack_size = stack_size;
  st_dwfl_unwinder_unwind (c->unwinder, p, &ev, c->ips, c->sps,
                           ST_UNWIND_MAX_FRAMES, res);
}

static void
map_fixture_text (StProcessTable *processes, int32_t pid)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_MAP;
  ev.pid = ev.tid = pid;
  ev.map.start = 0x401000;
  ev.map.end = 0x477000;
  ev.map.pgoff = 0x1000;
  ev.map.filename = "/gone/st-fixture";
  st_process_table_apply (processes, &ev);
}

static void
test_bad_input (void)
{
  Check c;
  StUnwindResult res;
  uint64_t regs[17] = { 0 };
  uint64_t stack[64] = { 0 };

  check_init (&c);
  uint64_t work = fixture_symbols_address (c.symbols, "st_leaf_work");

  /* A pid with no mappings in the stream nor in /proc (beyond
     pid_max).  */
  StProcess *nomaps = st_process_table_get (c.processes, 0x7ffffff0);
  regs[REG_IP] = work;
  regs[REG_SP] = 0x7ffd00000000ull;
  unwind_regs (&c, nomaps, ST_REGS_ABI_64, regs, stack, sizeof stack, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_FAILED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NO_MAPS);
  g_assert_cmpuint (res.n_ips, ==, 0);

  map_fixture_text (c.processes, 4242);
  StProcess *p = st_process_table_get (c.processes, 4242);
  unwind_regs (&c, p, ST_REGS_ABI_NONE, regs, stack, sizeof stack, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_FAILED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NO_REGS);
  g_assert_cmpuint (res.n_ips, ==, 0);

  /* A PC in no module (unmapped): that PC alone, failed as such.  */
  regs[REG_IP] = 0x1234;
  unwind_regs (&c, p, ST_REGS_ABI_64, regs, stack, sizeof stack, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_FAILED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NO_MODULE);
  g_assert_cmphex (res.no_module_pc, ==, 0x1234);

  /* st_leaf_work with a stack of zeros: a return address of 0 is the
     outermost frame's mark (libdwfl's convention, which the threads'
     start code follows): the leaf alone, complete.  */
  regs[REG_IP] = work + 4;
  unwind_regs (&c, p, ST_REGS_ABI_64, regs, stack, sizeof stack, &res);
  g_assert_cmpuint (res.n_ips, ==, 1);
  g_assert_cmphex (c.ips[0], ==, work + 4);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);

  /* Only mappings of a file that is not there: no module.  */
  StEvent ev;
  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_MAP;
  ev.pid = ev.tid = 4343;
  ev.map.start = 0x401000;
  ev.map.end = 0x402000;
  ev.map.filename = "/gone/not-a-file-anywhere";
  st_process_table_apply (c.processes, &ev);
  StProcess *gone = st_process_table_get (c.processes, 4343);
  unwind_regs (&c, gone, ST_REGS_ABI_64, regs, stack, sizeof stack, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_FAILED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NO_MODULE);

  check_clear (&c);
}

/* --- frame pointers without CFI ------------------------------------------- */

static void
test_frame_pointers (void)
{
  Check c;
  ProgSample fp;
  StUnwindResult res;

  check_init (&c);
  prog_sample_fp (&fp, FP_PROG, c.processes, 5151);
  st_dwfl_unwinder_unwind (c.unwinder,
                           st_process_table_get (c.processes, 5151), &fp.ev,
                           c.ips, c.sps, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
  g_assert_cmpuint (res.n_ips, ==, fp.n);
  for (guint i = 0; i < fp.n; i++)
    {
      g_assert_cmphex (c.ips[i], ==, fp.ips[i]);
      g_assert_cmphex (c.sps[i], ==, fp.sps[i]);
    }
  check_clear (&c);
}

/* The leaf without CFI at its entry, after its push, at its pop and at
   its ret: frame #1 is the return address the stack copy holds where
   the code says, as the fast engine finds it (leaf-code.h).  */
static void
test_leaf_without_cfi (void)
{
  for (int at = FP_LEAF_ENTRY; at <= FP_LEAF_AT_RET; at++)
    {
      Check c;
      ProgSample fp;
      StUnwindResult res;

      check_init (&c);
      prog_sample_fp_leaf (&fp, FP_PROG, c.processes, 5150, at);
      st_dwfl_unwinder_unwind (c.unwinder,
                               st_process_table_get (c.processes, 5150),
                               &fp.ev, c.ips, c.sps, ST_UNWIND_MAX_FRAMES,
                               &res);
      g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
      g_assert_cmpuint (res.n_code_frames, ==, 1);
      g_assert_cmpuint (res.n_ips, ==, fp.n);
      g_assert_cmpmem (c.ips, sizeof fp.ips, fp.ips, sizeof fp.ips);
      g_assert_cmpmem (c.sps, sizeof fp.sps, fp.sps, sizeof fp.sps);
      check_clear (&c);
    }
}

/* A return address that follows no call stops the walk before it.  */
static void
test_return_not_after_call (void)
{
  Check c;
  ProgSample fp;
  StUnwindResult res;

  check_init (&c);
  prog_sample_fp (&fp, FP_PROG, c.processes, 5153);
  fp.stack[0x18 / 8] = fp.ips[0] + 8;
  st_dwfl_unwinder_unwind (c.unwinder,
                           st_process_table_get (c.processes, 5153), &fp.ev,
                           c.ips, c.sps, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NOT_AFTER_CALL);
  g_assert_cmpuint (res.n_ips, ==, 1);
  check_clear (&c);
}

/* Stopped in a PLT entry: the CFA is a DWARF expression of RIP, which
   the engine must give libdwfl (the return address at [SP] before the
   entry's push, at [SP + 8] after it).  */
static void
test_plt (void)
{
  for (int after_push = 0; after_push <= 1; after_push++)
    {
      Check c;
      ProgSample plt;
      StUnwindResult res;

      check_init (&c);
      prog_sample_plt (&plt, PLT_CALLS, c.processes, 5252, after_push);
      st_dwfl_unwinder_unwind (c.unwinder,
                               st_process_table_get (c.processes, 5252),
                               &plt.ev, c.ips, c.sps, ST_UNWIND_MAX_FRAMES,
                               &res);
      g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
      g_assert_cmpuint (res.n_ips, ==, plt.n);
      g_assert_cmpmem (c.ips, plt.n * sizeof c.ips[0], plt.ips,
                       plt.n * sizeof plt.ips[0]);
      g_assert_cmpmem (c.sps, plt.n * sizeof c.sps[0], plt.sps,
                       plt.n * sizeof plt.sps[0]);
      check_clear (&c);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dwfl-unwinder/fixture-capture", test_fixture_capture);
  g_test_add_func ("/dwfl-unwinder/fixture-perf", test_fixture_perf);
  g_test_add_func ("/dwfl-unwinder/cut-and-limited", test_cut_and_limited);
  g_test_add_func ("/dwfl-unwinder/dwfl-and-modules", test_dwfl_and_modules);
  g_test_add_func ("/dwfl-unwinder/bad-input", test_bad_input);
  g_test_add_func ("/dwfl-unwinder/frame-pointers", test_frame_pointers);
  g_test_add_func ("/dwfl-unwinder/leaf-without-cfi", test_leaf_without_cfi);
  g_test_add_func ("/dwfl-unwinder/return-not-after-call",
                   test_return_not_after_call);
  g_test_add_func ("/dwfl-unwinder/plt", test_plt);
  return g_test_run ();
}
