/* The engine the pipeline unwinds with (unwind/unwinder.c): the engine
   chosen, and what it adds to either engine's walk.

   Both engines (fast, dwfl) unwind every sample of the committed
   fixture along its known path (st-fixture.c's, by its symbol table:
   tests/lib/fixture-call-path.c), each reporting its own path (rules,
   libdwfl); their names; the Dwfl for symbols names the fixture's
   functions as its symbol table does.

   The recorder's frame-pointer chain where DWARF stops early: a fixture
   sample cut short (its stack copy ends at frame 10's stack pointer)
   with the chain a frame-pointer walk of it gives (the sampled IP, then
   each caller's return address, taken from the full walk) is
   completed to exactly the full walk's frames; a chain that does not
   start at the sampled IP, a walk stopped by the frame limit, and a
   complete walk get nothing from it; code addresses past the process's
   mappings are not appended.

   Unprimed: with modules still being prepared on a worker (held at a
   gate), a sample gets its sampled IP and stack pointer alone, marked
   unprimed, and the readiness says so; once ready, the known path.

   No usable module at all (the process's only file missing, no [vdso]):
   the walk cannot start, and the sample still keeps its sampled IP and
   stack pointer, in both engines.

   One sample context (unwind/sample-context.h) walked again, as the
   service does after fetching a file, in both engines, on every fixture
   sample whole and with its stack copy cut short (failed reads): each
   walk gives the chain, stack pointers and result of the sample
   unwound alone.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "fixture-call-path.h"
#include "format/capture-types.h"
#include "model/address-space.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "test-gate.h"
#include "unwind/dwfl-offline.h"
#include "unwind/registers.h"
#include "unwind/rule-cache.h"
#include "unwind/unwinder.h"

#define FIXTURE ST_FIXTURE_DIR "/st-fixture"
#define RECORDING ST_FIXTURE_DIR "/fixture.syscap"

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_SP 7
#define REG_IP 8

typedef struct
{
  StEngine engine;
  FixtureSymbols *symbols;
  StModuleCache *modules;
  StUnwinder *unwinder;
  StProcessTable *processes;
  guint samples, in_work, continued;
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} Check;

static void
check_init (Check *c, StEngine engine)
{
  memset (c, 0, sizeof *c);
  c->engine = engine;
  c->symbols = fixture_symbols_load (FIXTURE);
  c->modules = st_module_cache_new (ST_FIXTURE_DIR);
  c->unwinder = st_unwinder_new (engine, c->modules);
  c->processes = st_process_table_new ();
}

static void
check_clear (Check *c)
{
  st_process_table_free (c->processes);
  st_unwinder_free (c->unwinder);
  st_module_cache_free (c->modules);
  fixture_symbols_free (c->symbols);
}

static void
unwind (Check *c, StProcess *p, const StEvent *ev, uint32_t max,
        StUnwindResult *res)
{
  st_unwinder_unwind (c->unwinder, p, ev, c->ips, c->sps, max, res);
}

/* --- the engines ---------------------------------------------------------- */

static void
unwind_known (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult res;

  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &res);
  c->in_work += fixture_call_path_assert (c->symbols, ev, c->ips, &res);
  g_assert_cmpint (res.path, ==,
                   c->engine == ST_ENGINE_FAST ? ST_PATH_RULES : ST_PATH_DWFL);
  g_assert_cmpuint (res.n_fp_chain, ==, 0);
  g_assert_false (res.unprimed);
  c->samples++;
}

static void
test_engines (void)
{
  const StEngine engines[] = { ST_ENGINE_FAST, ST_ENGINE_DWFL };

  g_assert_cmpstr (st_engine_name (ST_ENGINE_FAST), ==, "fast");
  g_assert_cmpstr (st_engine_name (ST_ENGINE_DWFL), ==, "dwfl");
  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      Check c;
      check_init (&c, engines[e]);
      fixture_for_each_sample (RECORDING, c.processes, unwind_known, &c);
      g_test_message ("%s: %u samples, %u along the whole path",
                      st_engine_name (engines[e]), c.samples, c.in_work);
      g_assert_cmpuint (c.samples, >=, 250);
      g_assert_cmpuint (c.in_work, >=, c.samples * 9 / 10);

      /* The Dwfl for symbols.  */
      StProcess *p = st_process_table_get (c.processes, 16165);
      Dwfl *dwfl = st_unwinder_dwfl (c.unwinder, p);
      g_assert_nonnull (dwfl);
      uint64_t work = fixture_symbols_address (c.symbols, "st_leaf_work");
      Dwfl_Module *mod = dwfl_addrmodule (dwfl, work);
      g_assert_nonnull (mod);
      g_assert_cmpstr (dwfl_module_addrname (mod, work), ==, "st_leaf_work");
      g_assert_cmpint (st_unwinder_readiness (c.unwinder, p), ==,
                       ST_MODULES_READY);
      check_clear (&c);
    }
  st_unwinder_free (NULL);
}

/* --- one context, walked again -------------------------------------------- */

static void
assert_same_walk (const StUnwindResult *a, const uint64_t *a_ips,
                  const uint64_t *a_sps, const StUnwindResult *b,
                  const uint64_t *b_ips, const uint64_t *b_sps)
{
  g_assert_cmpuint (a->n_ips, ==, b->n_ips);
  g_assert_cmpint (a->status, ==, b->status);
  g_assert_cmpint (a->cause, ==, b->cause);
  g_assert_cmpint (a->path, ==, b->path);
  g_assert_cmpint (a->fallback, ==, b->fallback);
  g_assert_cmpint (a->lean, ==, b->lean);
  g_assert_cmpint (a->unprimed, ==, b->unprimed);
  g_assert_cmpuint (a->n_fp_frames, ==, b->n_fp_frames);
  g_assert_cmpuint (a->n_code_frames, ==, b->n_code_frames);
  g_assert_cmpuint (a->n_fp_chain, ==, b->n_fp_chain);
  g_assert_cmpmem (a_ips, a->n_ips * sizeof *a_ips, b_ips,
                   b->n_ips * sizeof *b_ips);
  g_assert_cmpmem (a_sps, a->n_ips * sizeof *a_sps, b_sps,
                   b->n_ips * sizeof *b_sps);
}

static void
walk_again (StProcess *p, const StEvent *raw_ev, void *user)
{
  Check *c = user;
  static uint64_t ips[ST_UNWIND_MAX_FRAMES], sps[ST_UNWIND_MAX_FRAMES];
  static const uint64_t cuts[] = { 0, 512, 96 };

  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    {
      StEvent ev = *raw_ev;
      if (cuts[i] > 0 && ev.stack.stack_size > cuts[i])
        ev.stack.stack_size = cuts[i];
      StUnwindResult alone, res;
      unwind (c, p, &ev, ST_UNWIND_MAX_FRAMES, &alone);
      memcpy (ips, c->ips, alone.n_ips * sizeof *ips);
      memcpy (sps, c->sps, alone.n_ips * sizeof *sps);

      StSampleContext sample;
      st_unwinder_sample_init (c->unwinder, &sample, p, &ev);
      for (guint walk = 0; walk < 2; walk++)
        {
          memset (c->ips, 0xa5, sizeof c->ips);
          st_unwinder_unwind_sample (c->unwinder, &sample, c->ips, c->sps,
                                     ST_UNWIND_MAX_FRAMES, &res);
          assert_same_walk (&alone, ips, sps, &res, c->ips, c->sps);
        }
      c->in_work += alone.status != ST_UNWIND_COMPLETE;
    }
  c->samples++;
}

static void
test_context_again (void)
{
  const StEngine engines[] = { ST_ENGINE_FAST, ST_ENGINE_DWFL };

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      Check c;
      check_init (&c, engines[e]);
      fixture_for_each_sample (RECORDING, c.processes, walk_again, &c);
      g_assert_cmpuint (c.samples, >=, 250);
      /* The cut copies end walks early.  */
      g_assert_cmpuint (c.in_work, >=, c.samples);
      check_clear (&c);
    }
}

/* --- the frame-pointer chain ---------------------------------------------- */

static void
continue_by_fp_chain (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult full, res;
  uint64_t ips[ST_UNWIND_MAX_FRAMES], sps[ST_UNWIND_MAX_FRAMES];
  uint64_t chain[ST_UNWIND_MAX_FRAMES + 1];
  gboolean in_work;

  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &full);
  g_free (fixture_call_path_check (c->symbols, c->ips, full.n_ips, &in_work));
  if (!in_work || full.n_ips < 20 || c->continued >= 40)
    return;
  c->continued++;
  const uint32_t n = full.n_ips;
  memcpy (ips, c->ips, n * sizeof ips[0]);
  memcpy (sps, c->sps, n * sizeof sps[0]);

  /* What a frame-pointer walk of this stack gives: the sampled IP, then
     return addresses.  */
  chain[0] = ips[0];
  for (uint32_t i = 1; i < n; i++)
    chain[i] = ips[i] + 1;
  StEvent cut = *ev;
  cut.stack.stack_size = sps[10] - sps[0];
  cut.stack.user_callchain = chain;
  cut.stack.n_user_callchain = n;
  unwind (c, p, &cut, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_NONE);
  g_assert_cmpuint (res.n_ips, ==, n);
  g_assert_cmpuint (res.n_fp_chain, ==, n - 11);
  g_assert_cmpmem (c->ips, n * sizeof ips[0], ips, n * sizeof ips[0]);
  g_assert_cmpmem (c->sps, 11 * sizeof sps[0], sps, 11 * sizeof sps[0]);
  for (uint32_t i = 11; i < n; i++)
    g_assert_cmphex (c->sps[i], ==, 0);

  /* Past the process's code: not appended.  */
  chain[n] = 0x12345;
  cut.stack.n_user_callchain = n + 1;
  unwind (c, p, &cut, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpuint (res.n_ips, ==, n);

  /* Another sampled IP: the chain is of another moment.  */
  chain[0] = ips[0] + 1;
  cut.stack.n_user_callchain = n;
  unwind (c, p, &cut, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_STACK_END);
  g_assert_cmpuint (res.n_ips, ==, 11);
  g_assert_cmpuint (res.n_fp_chain, ==, 0);
  chain[0] = ips[0];

  /* Stopped by the frame limit: left so.  */
  StEvent limited = *ev;
  limited.stack.user_callchain = chain;
  limited.stack.n_user_callchain = n;
  unwind (c, p, &limited, 7, &res);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_MAX_DEPTH);
  g_assert_cmpuint (res.n_ips, ==, 7);
  g_assert_cmpuint (res.n_fp_chain, ==, 0);

  /* Complete already: nothing to add.  */
  unwind (c, p, &limited, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
  g_assert_cmpuint (res.n_ips, ==, n);
  g_assert_cmpuint (res.n_fp_chain, ==, 0);
}

static void
test_fp_chain (void)
{
  const StEngine engines[] = { ST_ENGINE_FAST, ST_ENGINE_DWFL };

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      Check c;
      check_init (&c, engines[e]);
      fixture_for_each_sample (RECORDING, c.processes, continue_by_fp_chain,
                               &c);
      g_assert_cmpuint (c.continued, >, 10);
      check_clear (&c);
    }
}

/* --- unprimed ------------------------------------------------------------- */

typedef struct
{
  TestGate *gate;
  StModulePrepare prepare;    /* the engine's own hook */
} GatedPrepare;

static void
gated_prepare (StModule *module, void *user_data)
{
  GatedPrepare *g = user_data;

  test_gate_pass (g->gate);
  g->prepare (module, NULL);
}

typedef struct
{
  Check *c;
  GatedPrepare *gated;
  guint seen;
} Unprimed;

static void
unwind_unprimed (StProcess *p, const StEvent *ev, void *user)
{
  Unprimed *u = user;
  Check *c = u->c;
  StUnwindResult res;
  uint64_t ip, sp;

  if (u->seen++ > 0)
    return;
  g_assert_true (st_event_register (ev, REG_IP, &ip));
  g_assert_true (st_event_register (ev, REG_SP, &sp));
  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_true (res.unprimed);
  g_assert_cmpuint (res.n_ips, ==, 1);
  g_assert_cmphex (c->ips[0], ==, ip);
  g_assert_cmphex (c->sps[0], ==, sp);
  g_assert_cmpint (st_unwinder_readiness (c->unwinder, p), ==,
                   ST_MODULES_PREPARING);

  test_gate_open (u->gated->gate);
  while (st_unwinder_readiness (c->unwinder, p) != ST_MODULES_READY)
    g_assert_true (st_module_cache_wait_any (c->modules));
  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_false (res.unprimed);
  fixture_call_path_assert (c->symbols, ev, c->ips, &res);
}

static void
test_unprimed (void)
{
  const StEngine engines[] = { ST_ENGINE_FAST, ST_ENGINE_DWFL };

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      Check c;
      GatedPrepare gated = { test_gate_new (),
                             engines[e] == ST_ENGINE_FAST
                             ? st_rule_cache_prepare
                             : st_dwfl_offline_prepare };
      Unprimed u = { &c, &gated };

      check_init (&c, engines[e]);
      st_module_cache_set_prepare (c.modules, gated_prepare, &gated);
      st_module_cache_set_workers (c.modules, 1, FALSE);
      fixture_for_each_sample (RECORDING, c.processes, unwind_unprimed, &u);
      g_assert_cmpuint (u.seen, >, 0);
      check_clear (&c);
      test_gate_free (gated.gate);
    }
}

/* --- no usable module ----------------------------------------------------- */

static void
test_no_usable_module (void)
{
  const StEngine engines[] = { ST_ENGINE_FAST, ST_ENGINE_DWFL };

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      Check c;
      check_init (&c, engines[e]);
      StProcess *p = st_process_table_get (c.processes, 4242);
      StMap map = { .start = 0x400000, .end = 0x480000, .pid = 4242,
                    .filename = "/nonexistent/st-missing-program",
                    .prot = 5, .exec_known = TRUE };
      st_address_space_add (p->maps, &map);

      uint64_t regs[17] = { 0 };
      uint64_t stack[64] = { 0 };
      regs[REG_SP] = 0x7ffc0000;
      regs[REG_IP] = 0x401234;
      StEvent ev = { .kind = ST_EVENT_STACK_USER, .pid = 4242, .tid = 4242 };
      ev.stack.abi = ST_REGS_ABI_64;
      ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
      ev.stack.regs = regs;
      ev.stack.n_regs = 17;
      ev.stack.stack = (const uint8_t *) stack;
      ev.stack.stack_size = sizeof stack;

      StUnwindResult res;
      unwind (&c, p, &ev, ST_UNWIND_MAX_FRAMES, &res);
      g_assert_false (res.unprimed);
      g_assert_cmpint (res.status, ==, ST_UNWIND_FAILED);
      g_assert_cmpuint (res.n_ips, ==, 1);
      g_assert_cmphex (c.ips[0], ==, 0x401234);
      g_assert_cmphex (c.sps[0], ==, 0x7ffc0000);
      check_clear (&c);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/unwinder/engines", test_engines);
  g_test_add_func ("/unwinder/context-again", test_context_again);
  g_test_add_func ("/unwinder/fp-chain", test_fp_chain);
  g_test_add_func ("/unwinder/unprimed", test_unprimed);
  g_test_add_func ("/unwinder/no-usable-module", test_no_usable_module);
  return g_test_run ();
}
