/* The unwinder's guards against bad stacks, on the committed fixture
   binary: a walk whose stack pointer goes down stops as a loop, and any
   walk ends within its frame bound.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "format/capture-types.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/dwfl-unwinder.h"

#define PID 16165

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 8

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  StDwflUnwinder *unwinder;
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  StEvent ev;

  f->processes = st_process_table_new ();
  f->modules = st_module_cache_new (ST_FIXTURE_DIR);
  f->unwinder = st_dwfl_unwinder_new (f->modules);
  /* The text mapping of the fixture recording.  */
  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_MAP;
  ev.pid = ev.tid = PID;
  ev.map.start = 0x401000;
  ev.map.end = 0x477000;
  ev.map.pgoff = 0x1000;
  ev.map.filename = "/gone/st-fixture";
  st_process_table_apply (f->processes, &ev);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  st_process_table_free (f->processes);
  st_dwfl_unwinder_free (f->unwinder);
  st_module_cache_free (f->modules);
}

static void
unwind (Fixture *f, const uint64_t *regs, const uint8_t *stack,
        size_t stack_size, StUnwindResult *res)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_STACK_USER;
  ev.pid = ev.tid = PID;
  ev.stack.abi = ST_REGS_ABI_64;
  ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  ev.stack.regs = regs;
  ev.stack.n_regs = 17;
  ev.stack.stack = stack;
  ev.stack.stack_size = stack_size;
  st_dwfl_unwinder_unwind (f->unwinder,
                           st_process_table_get (f->processes, PID), &ev,
                           f->ips, f->sps, ST_UNWIND_MAX_FRAMES, res);
}

/* 0x404250 lies in _nl_find_msg, whose CFA is RBP + 16 there.  With RBP
   pointing into the mapped file, far below SP, the caller's stack
   pointer (the CFA) is below the sampled one.  */
static void
test_sp_goes_down (Fixture *f, gconstpointer data)
{
  uint64_t regs[17] = { 0 };
  uint8_t stack[256] = { 0 };
  StUnwindResult res;

  regs[REG_IP] = 0x404250;
  regs[REG_SP] = 0x7ffd00000000ull;
  regs[REG_BP] = 0x450030;
  unwind (f, regs, stack, sizeof stack, &res);
  g_test_message ("%u frame(s), cause %s (%s)", res.n_ips,
                  st_unwind_cause_name (res.cause), res.detail);
  g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
  g_assert_cmpint (res.cause, ==, ST_CAUSE_LOOP);
  g_assert_cmpuint (res.n_ips, ==, 1);
  g_assert_cmpuint (f->ips[0], ==, 0x404250);
}

/* Stacks full of return addresses into the binary: whatever the walk
   finds, it ends within the bound, with increasing stack pointers.  */
static void
test_bounded (Fixture *f, gconstpointer data)
{
  uint64_t regs[17] = { 0 };
  uint64_t stack[4096];
  StUnwindResult res;

  for (int round = 0; round < 64; round++)
    {
      GRand *rand = g_rand_new_with_seed (round);
      for (guint i = 0; i < G_N_ELEMENTS (stack); i++)
        stack[i] = g_rand_int_range (rand, 0, 4) == 0
                   ? 0x7ffd00000000ull + 8 * g_rand_int_range (rand, 0, 4096)
                   : 0x401000 + (uint64_t) g_rand_int_range (rand, 0, 0x76000);
      for (int r = 0; r < 17; r++)
        regs[r] = stack[g_rand_int_range (rand, 0, 4096)];
      regs[REG_SP] = 0x7ffd00000000ull;
      regs[REG_IP] = 0x401000 + g_rand_int_range (rand, 0, 0x76000);
      unwind (f, regs, (const uint8_t *) stack, sizeof stack, &res);
      g_assert_cmpuint (res.n_ips, <=, ST_UNWIND_MAX_FRAMES);
      for (uint32_t i = 1; i < res.n_ips; i++)
        if (f->sps[i] != 0 && f->sps[i - 1] != 0)
          g_assert_cmpuint (f->sps[i], >=, f->sps[i - 1]);
      g_rand_free (rand);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/unwind-limits/sp-goes-down", Fixture, NULL, fixture_set_up,
              test_sp_goes_down, fixture_tear_down);
  g_test_add ("/unwind-limits/bounded", Fixture, NULL, fixture_set_up,
              test_bounded, fixture_tear_down);
  return g_test_run ();
}
