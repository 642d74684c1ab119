/* The fast engine (unwind/fast-unwinder.c).

   Known call paths: every sample of the committed fixture recording
   (tests/data/fixture, capture and perf.data) unwinds by the cached
   rules alone (no libdwfl, no frame pointer) to _start, and each one
   whose leaf is st_leaf_work along exactly the path of st-fixture.c
   (st_leaf_work, st_recurse x 6..61, st_run, main, then glibc's start;
   functions told by st-fixture's symbol table read with libelf,
   tests/lib/fixture-call-path.c), with the lean walk and with the full
   walk alone; the stack copy cut at a frame's stack pointer gives
   exactly the frames whose return addresses it holds; a frame limit,
   the limit.  As a cross-check only: the same frames and stack
   pointers as the libdwfl engine, sample by sample.

   Frame pointers where there is no CFI: a stack built after the x86_64
   ABI's frame layout through fp-prog (tests/lib/prog-samples.c) is
   walked by frame pointer (three steps) to _start; its leaf at its
   entry, after its push, at its pop and ret, by its code then by frame
   pointer, frame #1 checked against the word of the stack copy; a
   return address that follows no call stops the walk.  A stop in a PLT
   entry (its CFA an expression of RIP) by the rules: the return
   address where the call and the entry's push put it.  A return
   address just past its function (a call at the function's end): the
   caller's CFI, not the next function's.

   The fallback to libdwfl, with the reason: a sample of the 32-bit ABI
   or of modules without rule tables (libdwfl gives the fixture's known
   path all the same), and a signal
   frame -- the C library's signal return trampoline, found as the
   return address of a signal handler of this process, over a
   ucontext_t whose saved registers point into fp-prog: the
   interrupted frame (its PC not moved back: no call there), then its
   callers by frame pointer.  */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <glib.h>

#include "fixture-call-path.h"
#include "prog-samples.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/fast-unwinder.h"
#include "unwind/registers.h"

#define FIXTURE ST_FIXTURE_DIR "/st-fixture"
#define FP_PROG ST_PROGS_DIR "/fp-prog"
#define PLT_CALLS ST_PROGS_DIR "/plt-calls"

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 8

typedef struct
{
  FixtureSymbols *symbols;
  StModuleCache *modules;
  StFastUnwinder *fast;
  StProcessTable *processes;
  gboolean lean;
  guint samples, in_work, lean_walks, cuts;
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} Check;

static void
check_init (Check *c, gboolean lean)
{
  memset (c, 0, sizeof *c);
  c->symbols = fixture_symbols_load (FIXTURE);
  c->modules = st_module_cache_new (ST_FIXTURE_DIR);
  c->fast = st_fast_unwinder_new (c->modules);
  c->processes = st_process_table_new ();
  c->lean = lean;
  st_fast_unwinder_set_lean (c->fast, lean);
}

static void
check_clear (Check *c)
{
  st_process_table_free (c->processes);
  st_fast_unwinder_free (c->fast);
  st_module_cache_free (c->modules);
  fixture_symbols_free (c->symbols);
}

static void
unwind (Check *c, StProcess *p, const StEvent *ev, uint32_t max,
        StUnwindResult *res)
{
  st_process_table_use_unwind_state (c->processes, p);
  st_fast_unwinder_unwind (c->fast, p, ev, c->ips, c->sps, max, res);
}

static void
fast_unwind (void *engine, StProcess *p, const StEvent *ev, uint64_t *ips,
             uint64_t *sps, uint32_t max_ips, StUnwindResult *res)
{
  st_fast_unwinder_unwind (engine, p, ev, ips, sps, max_ips, res);
}

static void
unwind_fixture_sample (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult res;
  gboolean in_work;
  uint64_t sp;

  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &res);
  c->samples++;
  in_work = fixture_call_path_assert (c->symbols, ev, c->ips, &res);
  c->in_work += in_work;
  g_assert_cmpint (res.path, ==, ST_PATH_RULES);
  g_assert_cmpint (res.fallback, ==, ST_FALLBACK_NONE);
  g_assert_cmpuint (res.n_fp_frames, ==, 0);
  g_assert_false (res.unprimed);
  if (!c->lean)
    g_assert_false (res.lean);
  c->lean_walks += res.lean;
  g_assert_true (st_event_register (ev, REG_SP, &sp));
  g_assert_cmphex (c->sps[0], ==, sp);
  for (guint i = 1; i < res.n_ips; i++)
    g_assert_cmphex (c->sps[i], >, c->sps[i - 1]);
  if (in_work && res.n_ips >= 20 && c->cuts < 40)
    {
      c->cuts++;
      fixture_check_cut_walks (fast_unwind, c->fast, p, ev, c->ips, c->sps,
                               res.n_ips);
    }
}

static void
check_recording (const char *path, gboolean lean)
{
  Check c;

  check_init (&c, lean);
  fixture_for_each_sample (path, c.processes, unwind_fixture_sample, &c);
  g_test_message ("%s: %u samples unwound to _start by the rules (%u by "
                  "the lean walk), %u along the whole path from "
                  "st_leaf_work", path, c.samples, c.lean_walks, c.in_work);
  /* ~300 samples, all but a few in st_leaf_work (tests/data/README).  */
  g_assert_cmpuint (c.samples, >=, 250);
  g_assert_cmpuint (c.in_work, >=, c.samples * 9 / 10);
  g_assert_cmpuint (c.cuts, >, 10);
  if (lean)
    g_assert_cmpuint (c.lean_walks, >=, c.samples * 9 / 10);
  check_clear (&c);
}

static void
test_fixture_capture (void)
{
  check_recording (ST_FIXTURE_DIR "/fixture.syscap", TRUE);
}

static void
test_fixture_perf (void)
{
  check_recording (ST_FIXTURE_DIR "/fixture.data", TRUE);
}

static void
test_fixture_full_walk (void)
{
  check_recording (ST_FIXTURE_DIR "/fixture.syscap", FALSE);
}

/* --- against the libdwfl engine (a cross-check) --------------------------- */

static void
compare_with_dwfl (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult fast, dwfl;
  uint64_t ips[ST_UNWIND_MAX_FRAMES], sps[ST_UNWIND_MAX_FRAMES];

  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &fast);
  st_dwfl_unwinder_unwind (st_fast_unwinder_dwfl_engine (c->fast), p, ev, ips,
                           sps, ST_UNWIND_MAX_FRAMES, &dwfl);
  g_assert_cmpint (fast.status, ==, dwfl.status);
  g_assert_cmpint (fast.cause, ==, dwfl.cause);
  g_assert_cmpuint (fast.n_ips, ==, dwfl.n_ips);
  g_assert_cmpmem (c->ips, fast.n_ips * sizeof ips[0], ips,
                   dwfl.n_ips * sizeof ips[0]);
  g_assert_cmpmem (c->sps, fast.n_ips * sizeof sps[0], sps,
                   dwfl.n_ips * sizeof sps[0]);
  c->samples++;
}

static void
test_same_as_dwfl (void)
{
  Check c;

  check_init (&c, TRUE);
  fixture_for_each_sample (ST_FIXTURE_DIR "/fixture.data", c.processes,
                           compare_with_dwfl, &c);
  g_assert_cmpuint (c.samples, >=, 250);
  check_clear (&c);
}

/* --- frame pointers, fallbacks -------------------------------------------- */

static void
test_frame_pointers (void)
{
  Check c;
  ProgSample fp;
  StUnwindResult res;

  for (int lean = 1; lean >= 0; lean--)
    {
      check_init (&c, lean);
      prog_sample_fp (&fp, FP_PROG, c.processes, 5151);
      unwind (&c, st_process_table_get (c.processes, 5151), &fp.ev,
              ST_UNWIND_MAX_FRAMES, &res);
      g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
      g_assert_cmpint (res.path, ==, ST_PATH_RULES);
      g_assert_cmpuint (res.n_fp_frames, ==, 3);
      g_assert_cmpuint (res.n_ips, ==, fp.n);
      g_assert_cmpmem (c.ips, sizeof fp.ips, fp.ips, sizeof fp.ips);
      g_assert_cmpmem (c.sps, sizeof fp.sps, fp.sps, sizeof fp.sps);
      check_clear (&c);
    }
}

/* The leaf without CFI at its entry, after its push, at its pop and at
   its ret (tests/lib/prog-samples.c): frame #1 is the return address
   the stack copy holds where the code says (not the caller's caller the
   frame-pointer step would give), then the frame-pointer walk on;
   lean walk and full walk alike.  */
static void
test_leaf_without_cfi (void)
{
  for (int at = FP_LEAF_ENTRY; at <= FP_LEAF_AT_RET; at++)
    for (int lean = 1; lean >= 0; lean--)
      {
        Check c;
        ProgSample fp;
        StUnwindResult res;

        check_init (&c, lean);
        prog_sample_fp_leaf (&fp, FP_PROG, c.processes, 5150, at);
        unwind (&c, st_process_table_get (c.processes, 5150), &fp.ev,
                ST_UNWIND_MAX_FRAMES, &res);
        g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
        g_assert_cmpint (res.path, ==, ST_PATH_RULES);
        g_assert_cmpuint (res.n_code_frames, ==, 1);
        g_assert_cmpuint (res.n_fp_frames, ==, 2);
        g_assert_cmpuint (res.n_ips, ==, fp.n);
        /* Frame #1: the word the sample's stack holds at SP + 8 * the
           words the leaf pushed, minus 1.  */
        uint64_t ra;
        memcpy (&ra, (const uint8_t *) fp.stack + (at == FP_LEAF_AFTER_PUSH
                                                   || at == FP_LEAF_AT_POP
                                                   ? 8 : 0), 8);
        g_assert_cmphex (c.ips[1], ==, ra - 1);
        g_assert_cmpmem (c.ips, sizeof fp.ips, fp.ips, sizeof fp.ips);
        g_assert_cmpmem (c.sps, sizeof fp.sps, fp.sps, sizeof fp.sps);
        check_clear (&c);
      }
}

/* A return address that follows no call instruction (here: one inside
   st_fp_leaf's body) is no frame: the walk stops before it, with a
   cause of its own.  */
static void
test_return_not_after_call (void)
{
  for (int lean = 1; lean >= 0; lean--)
    {
      Check c;
      ProgSample fp;
      StUnwindResult res;

      check_init (&c, lean);
      prog_sample_fp (&fp, FP_PROG, c.processes, 5153);
      fp.stack[0x18 / 8] = fp.ips[0] + 8;
      unwind (&c, st_process_table_get (c.processes, 5153), &fp.ev,
              ST_UNWIND_MAX_FRAMES, &res);
      g_assert_cmpint (res.status, ==, ST_UNWIND_TRUNCATED);
      g_assert_cmpint (res.cause, ==, ST_CAUSE_NOT_AFTER_CALL);
      g_assert_cmpuint (res.n_ips, ==, 1);
      check_clear (&c);
    }
}

/* Stopped in a PLT entry (tests/lib/prog-samples.c): the PLT's CFA
   expression is one the rules express, no fallback.  */
static void
test_plt (void)
{
  for (int after_push = 0; after_push <= 1; after_push++)
    for (int lean = 1; lean >= 0; lean--)
      {
        Check c;
        ProgSample plt;
        StUnwindResult res;

        check_init (&c, lean);
        prog_sample_plt (&plt, PLT_CALLS, c.processes, 5252, after_push);
        unwind (&c, st_process_table_get (c.processes, 5252), &plt.ev,
                ST_UNWIND_MAX_FRAMES, &res);
        g_assert_cmpint (res.path, ==, ST_PATH_RULES);
        g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
        g_assert_cmpuint (res.n_ips, ==, plt.n);
        g_assert_cmpmem (c.ips, plt.n * sizeof c.ips[0], plt.ips,
                         plt.n * sizeof plt.ips[0]);
        g_assert_cmpmem (c.sps, plt.n * sizeof c.sps[0], plt.sps,
                         plt.n * sizeof plt.sps[0]);
        check_clear (&c);
      }
}

/* A fixture sample with registers of the 32-bit ABI: not for the fast
   engine; libdwfl unwinds it (the registers are the same).  */
static void
unwind_as_abi32 (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult res;
  gboolean in_work;

  if (c->samples++ >= 20)
    return;
  StEvent ev32 = *ev;
  ev32.stack.abi = ST_REGS_ABI_32;
  unwind (c, p, &ev32, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.path, ==, ST_PATH_FALLBACK);
  g_assert_cmpint (res.fallback, ==, ST_FALLBACK_ARCH);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
  g_autofree char *why = fixture_call_path_check (c->symbols, c->ips,
                                                  res.n_ips, &in_work);
  g_assert_null (why);
  c->in_work += in_work;
}

/* Modules prepared without the fast engine's rule tables (another
   prepare hook): the process is not for the rules; libdwfl unwinds it,
   along the known path.  */
static void
no_tables (StModule *module, void *user_data)
{
}

static void
unwind_without_tables (StProcess *p, const StEvent *ev, void *user)
{
  Check *c = user;
  StUnwindResult res;

  if (c->samples++ >= 20)
    return;
  unwind (c, p, ev, ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.path, ==, ST_PATH_FALLBACK);
  g_assert_cmpint (res.fallback, ==, ST_FALLBACK_ARCH);
  c->in_work += fixture_call_path_assert (c->symbols, ev, c->ips, &res);
}

static void
test_fallback_no_tables (void)
{
  Check c;

  check_init (&c, TRUE);
  st_module_cache_set_prepare (c.modules, no_tables, NULL);
  fixture_for_each_sample (ST_FIXTURE_DIR "/fixture.syscap", c.processes,
                           unwind_without_tables, &c);
  g_assert_cmpuint (c.in_work, >, 10);
  check_clear (&c);
}

static void
test_fallback_arch (void)
{
  Check c;

  check_init (&c, TRUE);
  fixture_for_each_sample (ST_FIXTURE_DIR "/fixture.syscap", c.processes,
                           unwind_as_abi32, &c);
  g_assert_cmpuint (c.in_work, >, 10);
  check_clear (&c);
}

/* x86_64's signal frame, through its ucontext_t (aarch64 and i386:
   test-arch and test-arch-samples).  */
#ifdef __x86_64__
static volatile uint64_t signal_return;

static void
note_return (int sig, siginfo_t *info, void *context)
{
  signal_return = (uint64_t) (uintptr_t) __builtin_return_address (0);
}

typedef struct
{
  uint64_t addr;
  char *path;
  uint64_t bias;
  const ElfW (Phdr) *phdr;
  guint n_phdr;
} Containing;

static int
find_containing (struct dl_phdr_info *info, size_t size, void *data)
{
  Containing *c = data;

  for (guint i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_LOAD && c->addr >= info->dlpi_addr + ph->p_vaddr
          && c->addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
        {
          c->path = g_strdup (info->dlpi_name);
          c->bias = info->dlpi_addr;
          c->phdr = info->dlpi_phdr;
          c->n_phdr = info->dlpi_phnum;
          return 1;
        }
    }
  return 0;
}

/* The C library's signal return trampoline (where a handler returns
   to), mapped in process PID as in this process: its address, or 0.  */
static uint64_t
map_signal_return (StProcessTable *processes, int32_t pid)
{
  struct sigaction sa = { 0 }, old;

  sa.sa_sigaction = note_return;
  sa.sa_flags = SA_SIGINFO;
  g_assert_cmpint (sigaction (SIGUSR1, &sa, &old), ==, 0);
  raise (SIGUSR1);
  g_assert_cmpint (sigaction (SIGUSR1, &old, NULL), ==, 0);

  Containing c = { signal_return };
  if (c.addr == 0 || !dl_iterate_phdr (find_containing, &c)
      || c.path == NULL || c.path[0] != '/')
    {
      g_free (c.path);
      return 0;
    }
  for (guint i = 0; i < c.n_phdr; i++)
    {
      const ElfW (Phdr) *ph = &c.phdr[i];
      StEvent ev;
      if (ph->p_type != PT_LOAD)
        continue;
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_MAP;
      ev.pid = ev.tid = pid;
      ev.map.start = (c.bias + ph->p_vaddr) & ~0xfffull;
      ev.map.end = (c.bias + ph->p_vaddr + ph->p_filesz + 0xfff) & ~0xfffull;
      ev.map.pgoff = ph->p_offset & ~0xfffull;
      ev.map.exec_known = true;
      ev.map.prot = (ph->p_flags & PF_X) ? PROT_READ | PROT_EXEC : PROT_READ;
      ev.map.filename = c.path;
      st_process_table_apply (processes, &ev);
    }
  g_test_message ("signal return at %#" G_GINT64_MODIFIER "x in %s",
                  c.addr, c.path);
  g_free (c.path);
  return c.addr;
}

/* Stopped at the signal return trampoline: SP points to the ucontext_t
   the kernel saved, whose registers are fp-prog's sample's (interrupted
   in st_fp_leaf).  The walk needs the trampoline's CFI (a signal frame,
   its CFA an expression): libdwfl's.  The interrupted frame's PC is
   where it was interrupted, then its callers by frame pointer.  */
static void
test_fallback_signal_frame (void)
{
  Check c;
  ProgSample fp;
  StUnwindResult res;
  const int32_t pid = 6161;

  check_init (&c, TRUE);
  prog_sample_fp (&fp, FP_PROG, c.processes, pid);
  uint64_t trampoline = map_signal_return (c.processes, pid);
  if (trampoline == 0)
    {
      g_test_skip ("no signal return trampoline in a file");
      check_clear (&c);
      return;
    }

  /* A stack of the ucontext_t, then fp-prog's sample's stack.  */
  const uint64_t inner_sp = fp.sps[0];
  const uint64_t sp = inner_sp - 0x400;
  G_STATIC_ASSERT (sizeof (ucontext_t) <= 0x400);
  guint8 *stack = g_malloc0 (0x400 + sizeof fp.stack);
  ucontext_t *uc = (ucontext_t *) stack;
  uc->uc_mcontext.gregs[REG_RIP] = fp.ips[0];
  uc->uc_mcontext.gregs[REG_RSP] = inner_sp;
  uc->uc_mcontext.gregs[REG_RBP] = fp.regs[REG_BP];
  memcpy (stack + 0x400, fp.stack, sizeof fp.stack);
  uint64_t regs[17] = { 0 };
  regs[REG_IP] = trampoline;
  regs[REG_SP] = sp;
  StEvent ev = fp.ev;
  ev.stack.regs = regs;
  ev.stack.stack = stack;
  ev.stack.stack_size = 0x400 + sizeof fp.stack;

  unwind (&c, st_process_table_get (c.processes, pid), &ev,
          ST_UNWIND_MAX_FRAMES, &res);
  g_assert_cmpint (res.path, ==, ST_PATH_FALLBACK);
  g_assert_cmpint (res.fallback, ==, ST_FALLBACK_SIGNAL);
  g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
  g_assert_cmpuint (res.n_ips, ==, 1 + fp.n);
  g_assert_cmphex (c.ips[0], ==, trampoline);
  g_assert_cmphex (c.sps[0], ==, sp);
  g_assert_cmpmem (c.ips + 1, sizeof fp.ips, fp.ips, sizeof fp.ips);
  g_assert_cmpmem (c.sps + 1, sizeof fp.sps, fp.sps, sizeof fp.sps);
  g_free (stack);
  check_clear (&c);
}
#endif

/* A return address just past its function: the call was the function's
   last instruction (a call that does not return, as the C library's
   cold paths end).  The caller's CFI is the one at the call, at the
   return address - 1, not that of the function after it.  In the
   fixture: _nl_load_domain.cold ends with a call, abort starts right
   after it.  The CFA offsets at each PC are libdw's, on the file.  A
   leaf in st_leaf_work returns there; the caller's return address (at
   its CFA - 8) is 0, the outermost frame, and the word where the next
   function's CFI would put it is a code address, which a lookup at the
   wrong address would take for a third frame.  */
static int64_t
cfa_rsp_offset (Dwarf_CFI *cfi, uint64_t pc)
{
  Dwarf_Frame *frame;
  Dwarf_Op *ops;
  size_t nops;

  g_assert_cmpint (dwarf_cfi_addrframe (cfi, pc, &frame), ==, 0);
  g_assert_cmpint (dwarf_frame_cfa (frame, &ops, &nops), ==, 0);
  /* rsp + N */
  g_assert_cmpuint (nops, ==, 1);
  g_assert_cmpint (ops[0].atom, ==, DW_OP_bregx);
  g_assert_cmpuint (ops[0].number, ==, 7);
  int64_t off = (int64_t) ops[0].number2;
  free (frame);
  return off;
}

static void
test_return_address_at_function_end (void)
{
  const int32_t pid = 7171;
  FixtureSymbols *symbols = fixture_symbols_load (FIXTURE);
  uint64_t caller = fixture_symbols_address (symbols, "_nl_load_domain.cold");
  uint64_t next = fixture_symbols_address (symbols, "abort");
  uint64_t leaf = fixture_symbols_address (symbols, "st_leaf_work") + 4;
  uint64_t run = fixture_symbols_address (symbols, "st_run");

  if (caller == 0 || next == 0
      || !fixture_symbols_in (symbols, next - 1, "_nl_load_domain.cold"))
    {
      g_test_skip ("the fixture has no such pair of functions");
      fixture_symbols_free (symbols);
      return;
    }
  int fd = open (FIXTURE, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  Dwarf_CFI *cfi = dwarf_getcfi_elf (elf);
  g_assert_nonnull (cfi);
  int64_t leaf_cfa = cfa_rsp_offset (cfi, leaf);
  int64_t caller_cfa = cfa_rsp_offset (cfi, next - 1);
  int64_t next_cfa = cfa_rsp_offset (cfi, next);
  dwarf_cfi_end (cfi);
  elf_end (elf);
  close (fd);
  g_assert_cmpint (caller_cfa, !=, next_cfa);
  g_assert_cmpint (leaf_cfa + MAX (caller_cfa, next_cfa), <=, 4096);

  const uint64_t sp = 0x7ffd00200000ull;
  uint64_t stack[512] = { 0 };
  uint64_t regs[17] = { 0 };
  stack[(leaf_cfa - 8) / 8] = next;                   /* the leaf's RA */
  stack[(leaf_cfa + next_cfa - 8) / 8] = run + 8;     /* a decoy */
  stack[(leaf_cfa + caller_cfa - 8) / 8] = 0;         /* outermost */
  regs[REG_IP] = leaf;
  regs[REG_SP] = sp;

  for (int lean = 1; lean >= -1; lean--)
    {
      Check c;
      StUnwindResult res;
      StEvent map;
      check_init (&c, lean > 0);
      memset (&map, 0, sizeof map);
      map.kind = ST_EVENT_MAP;
      map.pid = map.tid = pid;
      map.map.start = 0x401000;
      map.map.end = 0x477000;
      map.map.pgoff = 0x1000;
      map.map.filename = "/gone/st-fixture";
      st_process_table_apply (c.processes, &map);
      StEvent ev;
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_STACK_USER;
      ev.pid = ev.tid = pid;
      ev.stack.abi = ST_REGS_ABI_64;
      ev.stack.regs_mask = 0xff01ff;    /* AX..IP, R8..R15 */
      ev.stack.regs = regs;
      ev.stack.n_regs = 17;
      ev.stack.stack = (const uint8_t *) stack;
      ev.stack.stack_size = sizeof stack;
      StProcess *p = st_process_table_get (c.processes, pid);
      if (lean >= 0)
        unwind (&c, p, &ev, ST_UNWIND_MAX_FRAMES, &res);
      else  /* the reference */
        st_dwfl_unwinder_unwind (st_fast_unwinder_dwfl_engine (c.fast), p,
                                 &ev, c.ips, c.sps, ST_UNWIND_MAX_FRAMES,
                                 &res);
      g_assert_cmpuint (res.n_ips, ==, 2);
      g_assert_cmphex (c.ips[0], ==, leaf);
      g_assert_cmphex (c.ips[1], ==, next - 1);
      g_assert_cmphex (c.sps[1], ==, sp + leaf_cfa);
      g_assert_cmpint (res.status, ==, ST_UNWIND_COMPLETE);
      check_clear (&c);
    }
  fixture_symbols_free (symbols);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fast-unwinder/fixture-capture", test_fixture_capture);
  g_test_add_func ("/fast-unwinder/fixture-perf", test_fixture_perf);
  g_test_add_func ("/fast-unwinder/fixture-full-walk", test_fixture_full_walk);
  g_test_add_func ("/fast-unwinder/same-as-dwfl", test_same_as_dwfl);
  g_test_add_func ("/fast-unwinder/frame-pointers", test_frame_pointers);
  g_test_add_func ("/fast-unwinder/leaf-without-cfi", test_leaf_without_cfi);
  g_test_add_func ("/fast-unwinder/return-not-after-call",
                   test_return_not_after_call);
  g_test_add_func ("/fast-unwinder/plt", test_plt);
  g_test_add_func ("/fast-unwinder/return-address-at-function-end",
                   test_return_address_at_function_end);
  g_test_add_func ("/fast-unwinder/fallback-arch", test_fallback_arch);
  g_test_add_func ("/fast-unwinder/fallback-no-tables",
                   test_fallback_no_tables);
#ifdef __x86_64__
  g_test_add_func ("/fast-unwinder/fallback-signal-frame",
                   test_fallback_signal_frame);
#endif
  return g_test_run ();
}
