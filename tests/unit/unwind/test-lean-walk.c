/* The fast engine's lean walk against its full walk: the fast engine
   with the lean walk (lean-walk.h) must give exactly what it gives with
   the full walk alone -- the same frames, stack pointers, status, cause,
   message, frame-pointer steps and fallbacks -- on

   - every sample of the committed fixture capture (a static program),
     and many variants of each: stack copies cut short, stack words
     overwritten with zeros, other stack addresses, code addresses or
     noise, the stack, frame and instruction pointers moved (the lean
     walk must also have taken most of the original samples itself);
   - synthetic samples of a process that maps this system's libc and
     dynamic linker and the test programs' plt-calls with its library:
     PCs anywhere in their code, PLTs included (whose CFA is a DWARF
     expression, and _start without CFI), stacks of code addresses,
     stack addresses and noise.

   ST_LEAN_CHECK_INPUTS (a colon-separated list of captures or perf.data
   files, whose mapped files are read at their recorded paths) adds
   other recordings, e.g. the benchmark's; ST_LEAN_CHECK_VARIANTS (default
   64) sets the variants per sample.  */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "format/reader.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/fast-unwinder.h"
#include "unwind/registers.h"

#define MAX_REGS 64

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  StFastUnwinder *fast;
  GRand *rand;
  guint variants;
  /* Code addresses seen as sampled IPs: variants reuse them.  */
  GArray *code;
  guint64 samples, compared, lean_original, originals, lean_variants;
  guint64 by_cause[ST_CAUSE_N];
} Check;

typedef struct
{
  StUnwindResult res;
  uint64_t ips[ST_UNWIND_MAX_FRAMES];
  uint64_t sps[ST_UNWIND_MAX_FRAMES];
} Walked;

static void
walk (Check *c, StProcess *p, const StEvent *ev, gboolean lean, Walked *w)
{
  memset (w, 0, sizeof *w);
  st_process_table_use_unwind_state (c->processes, p);
  st_fast_unwinder_set_lean (c->fast, lean);
  st_fast_unwinder_unwind (c->fast, p, ev, w->ips, w->sps,
                           ST_UNWIND_MAX_FRAMES, &w->res);
}

/* Unwinds EV both ways and asserts that the results agree.  Returns
   whether the lean walk did it alone.  */
static gboolean
compare (Check *c, StProcess *p, const StEvent *ev, const char *what)
{
  Walked a, b;

  walk (c, p, ev, TRUE, &a);
  walk (c, p, ev, FALSE, &b);
  c->compared++;
  if (b.res.cause < ST_CAUSE_N)
    c->by_cause[b.res.cause]++;
  if (a.res.status != b.res.status || a.res.cause != b.res.cause
      || a.res.n_ips != b.res.n_ips || a.res.path != b.res.path
      || a.res.fallback != b.res.fallback
      || a.res.n_fp_frames != b.res.n_fp_frames
      || a.res.unprimed != b.res.unprimed
      || g_strcmp0 (a.res.detail, b.res.detail) != 0
      || memcmp (a.ips, b.ips, a.res.n_ips * sizeof a.ips[0]) != 0
      || memcmp (a.sps, b.sps, a.res.n_ips * sizeof a.sps[0]) != 0)
    {
      g_test_message ("%s at offset %" G_GUINT64_FORMAT ": lean %u frames "
                      "status %d cause %s fp %u; full %u frames status %d "
                      "cause %s fp %u", what, ev->offset, a.res.n_ips,
                      a.res.status, st_unwind_cause_name (a.res.cause),
                      a.res.n_fp_frames, b.res.n_ips, b.res.status,
                      st_unwind_cause_name (b.res.cause), b.res.n_fp_frames);
      for (guint i = 0; i < MAX (a.res.n_ips, b.res.n_ips); i++)
        g_test_message ("  %2u: %#" G_GINT64_MODIFIER "x/%#"
                        G_GINT64_MODIFIER "x  %#" G_GINT64_MODIFIER "x/%#"
                        G_GINT64_MODIFIER "x", i, a.ips[i], a.sps[i],
                        b.ips[i], b.sps[i]);
      g_test_fail ();
    }
  return a.res.lean;
}

/* The index of perf register REG in EV's compacted array, or -1.  */
static int
reg_index (const StEvent *ev, int reg)
{
  uint64_t mask = ev->stack.regs_mask;

  if (reg < 0 || !(mask & (1ull << reg)))
    return -1;
  int i = __builtin_popcountll (mask & ((1ull << reg) - 1));
  return (guint) i < ev->stack.n_regs ? i : -1;
}

/* A word to plant in a stack: what walks trip over.  */
static uint64_t
plant (Check *c, uint64_t sp, uint64_t size, uint64_t old)
{
  switch (g_rand_int_range (c->rand, 0, 7))
    {
    case 0:
      return 0;
    case 6:     /* below the copy: the walk would go down */
      return sp - g_rand_int_range (c->rand, 1, 64) * 8;
    case 1:
      return ((uint64_t) g_rand_int (c->rand) << 32) | g_rand_int (c->rand);
    case 2:     /* somewhere in (or just past) the copy */
      return sp + (g_rand_int_range (c->rand, 0, (gint32) (size / 8 + 4))
                   * 8);
    case 3:     /* a code address, maybe just after a call */
      if (c->code->len > 0)
        return g_array_index (c->code, uint64_t,
                              g_rand_int_range (c->rand, 0, c->code->len))
               + g_rand_int_range (c->rand, 0, 8);
      return old;
    case 4:
      return old + 8;
    default:
      return old - 8;
    }
}

/* A variant of raw-stack event EV in VAR, its registers in REGS and its
   stack in STACK (EV's sizes).  */
static void
make_variant (Check *c, const StEvent *ev, StEvent *var, uint64_t *regs,
              uint8_t *stack)
{
  const StRegisterLayout *l = st_register_layout_guess (ev);
  int isp = reg_index (ev, l->perf_sp), iip = reg_index (ev, l->perf_ip);
  int ibp = reg_index (ev, l->perf_of_dwarf[6]);
  uint64_t size = ev->stack.stack_size;
  uint64_t sp = isp >= 0 ? ev->stack.regs[isp] : 0;

  *var = *ev;
  memcpy (regs, ev->stack.regs, ev->stack.n_regs * sizeof *regs);
  memcpy (stack, ev->stack.stack, size);
  var->stack.regs = regs;
  var->stack.stack = stack;

  guint changes = g_rand_int_range (c->rand, 1, 4);
  for (guint k = 0; k < changes; k++)
    switch (g_rand_int_range (c->rand, 0, 6))
      {
      case 0:   /* a shorter copy */
        var->stack.stack_size = g_rand_int_range (c->rand, 0,
                                                  (gint32) size + 1);
        break;
      case 1:
      case 2:   /* stack words */
        if (size >= 8)
          for (guint i = g_rand_int_range (c->rand, 1, 5); i > 0; i--)
            {
              uint64_t at = g_rand_int_range (c->rand, 0, (gint32) (size / 8))
                            * 8;
              uint64_t old;
              memcpy (&old, stack + at, 8);
              old = plant (c, sp, size, old);
              memcpy (stack + at, &old, 8);
            }
        break;
      case 3:
        if (isp >= 0)
          regs[isp] += (g_rand_int_range (c->rand, -8, 9)) * 8;
        break;
      case 4:
        if (ibp >= 0)
          regs[ibp] = plant (c, sp, size, regs[ibp]);
        break;
      default:
        if (iip >= 0)
          regs[iip] = plant (c, sp, size, regs[iip]);
        break;
      }
}

static void
check_sample (Check *c, const StEvent *ev)
{
  StProcess *p = st_process_table_get (c->processes, ev->pid);
  const StRegisterLayout *l = st_register_layout_guess (ev);
  uint64_t ip;

  c->samples++;
  if (l != NULL && st_event_register (ev, l->perf_ip, &ip))
    {
      if (c->code->len < 4096)
        g_array_append_val (c->code, ip);
      else
        g_array_index (c->code, uint64_t,
                       g_rand_int_range (c->rand, 0, 4096)) = ip;
    }
  c->originals++;
  c->lean_original += compare (c, p, ev, "original");
  if (l == NULL || ev->stack.n_regs > MAX_REGS)
    return;

  uint64_t regs[MAX_REGS];
  uint8_t *stack = g_malloc (MAX (ev->stack.stack_size, 1));
  for (guint v = 0; v < c->variants; v++)
    {
      StEvent var;
      make_variant (c, ev, &var, regs, stack);
      c->lean_variants += compare (c, p, &var, "variant");
    }
  g_free (stack);
}

static void
check_file (const char *path, const char *symfs, guint variants,
            gboolean expect_lean)
{
  GError *error = NULL;
  int fd = open (path, O_RDONLY);
  Check c = { 0 };
  StEvent ev;
  int r;

  g_assert_cmpint (fd, >=, 0);
  StReader *reader = st_reader_new (fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  c.processes = st_process_table_new ();
  c.modules = st_module_cache_new (symfs);
  c.fast = st_fast_unwinder_new (c.modules);
  c.rand = g_rand_new_with_seed (4);
  c.variants = variants;
  c.code = g_array_new (FALSE, FALSE, sizeof (uint64_t));

  while ((r = st_reader_next (reader, &ev, &error)) > 0)
    {
      if (ev.kind == ST_EVENT_STACK_USER)
        check_sample (&c, &ev);
      else
        st_process_table_apply (c.processes, &ev);
    }
  g_assert_no_error (error);
  g_test_message ("%s: %" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT
                  " walks compared; the lean walk took %" G_GUINT64_FORMAT
                  " of the original samples, %" G_GUINT64_FORMAT " of the "
                  "variants", path, c.samples, c.compared, c.lean_original,
                  c.lean_variants);
  for (int i = 0; i < ST_CAUSE_N; i++)
    if (c.by_cause[i] > 0)
      g_test_message ("  cause %s: %" G_GUINT64_FORMAT,
                      st_unwind_cause_name (i), c.by_cause[i]);
  g_assert_cmpuint (c.samples, >, 0);
  if (expect_lean)
    g_assert_cmpuint (c.lean_original, >=, c.originals * 9 / 10);

  g_array_free (c.code, TRUE);
  g_rand_free (c.rand);
  st_process_table_free (c.processes);
  st_fast_unwinder_free (c.fast);
  st_module_cache_free (c.modules);
  st_reader_free (reader);
  close (fd);
}

/* --- synthetic samples ---------------------------------------------------- */

#define SYN_PID 4242
#define SYN_SP 0x7ffd12340000ull
#define SYN_STACK 4096

typedef struct
{
  uint64_t start, end;
} Range;

/* Maps the loadable segments of PATH at BASE in process SYN_PID; adds
   its code to CODE and its PLT sections to PLT.  FALSE if PATH is not
   there.  */
static gboolean
map_file (Check *c, const char *path, uint64_t base, GArray *code,
          GArray *plt)
{
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return FALSE;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  size_t n = 0;
  g_assert_nonnull (elf);
  g_assert_cmpint (elf_getphdrnum (elf, &n), ==, 0);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      StEvent ev;
      if (gelf_getphdr (elf, i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_MAP;
      ev.pid = ev.tid = SYN_PID;
      ev.map.start = (base + ph.p_vaddr) & ~0xfffull;
      ev.map.end = (base + ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffull;
      ev.map.pgoff = ph.p_offset & ~0xfffull;
      ev.map.filename = path;
      st_process_table_apply (c->processes, &ev);
      if (ph.p_flags & PF_X)
        {
          Range r = { base + ph.p_vaddr, base + ph.p_vaddr + ph.p_memsz };
          g_array_append_val (code, r);
        }
    }
  size_t shstrndx;
  g_assert_cmpint (elf_getshdrstrndx (elf, &shstrndx), ==, 0);
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      const char *name;
      if (gelf_getshdr (scn, &sh) != NULL
          && (name = elf_strptr (elf, shstrndx, sh.sh_name)) != NULL
          && g_str_has_prefix (name, ".plt") && sh.sh_size > 0)
        {
          Range r = { base + sh.sh_addr, base + sh.sh_addr + sh.sh_size };
          g_array_append_val (plt, r);
        }
    }
  elf_end (elf);
  close (fd);
  return TRUE;
}

static uint64_t
random_in (Check *c, GArray *ranges)
{
  const Range *r = &g_array_index (ranges, Range,
                                   g_rand_int_range (c->rand, 0,
                                                     ranges->len));
  return r->start + g_rand_int_range (c->rand, 0,
                                      (gint32) MIN (r->end - r->start,
                                                    (uint64_t) G_MAXINT32));
}

static uint64_t
synthetic_word (Check *c, GArray *code)
{
  switch (g_rand_int_range (c->rand, 0, 8))
    {
    case 0: case 1: case 2:
      return random_in (c, code);
    case 3: case 4:
      return SYN_SP + g_rand_int_range (c->rand, 0, SYN_STACK / 8 + 64) * 8;
    case 5:
      return 0;
    default:
      return g_rand_int (c->rand);
    }
}

static void
test_synthetic (void)
{
  static const char *libs[] = {
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib64/ld-linux-x86-64.so.2",
    ST_PROGS_DIR "/plt-calls",
    ST_PROGS_DIR "/libstcallee.so",
  };
  Check c = { 0 };
  GArray *code = g_array_new (FALSE, FALSE, sizeof (Range));
  GArray *plt = g_array_new (FALSE, FALSE, sizeof (Range));
  guint mapped = 0;

  c.processes = st_process_table_new ();
  c.modules = st_module_cache_new (NULL);
  c.fast = st_fast_unwinder_new (c.modules);
  c.rand = g_rand_new_with_seed (7);
  c.code = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  for (guint i = 0; i < G_N_ELEMENTS (libs); i++)
    mapped += map_file (&c, libs[i], 0x7f0000000000ull + i * 0x10000000ull,
                        code, plt);
  if (mapped == 0 || code->len == 0)
    {
      g_test_skip ("no libc or test program to map");
      goto out;
    }

  StProcess *p = st_process_table_get (c.processes, SYN_PID);
  uint64_t regs[17];
  uint64_t words[SYN_STACK / 8];
  guint n = g_test_slow () ? 100000 : 6000;
  for (guint k = 0; k < n; k++)
    {
      StEvent ev;
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_STACK_USER;
      ev.pid = ev.tid = SYN_PID;
      ev.offset = k;
      ev.stack.abi = ST_REGS_ABI_64;
      ev.stack.regs_mask = 0xff01ff;      /* AX..IP, R8..R15 */
      ev.stack.n_regs = 17;
      ev.stack.regs = regs;
      for (guint i = 0; i < 17; i++)
        regs[i] = synthetic_word (&c, code);
      regs[7] = SYN_SP;
      regs[8] = plt->len > 0 && g_rand_int_range (c.rand, 0, 4) == 0
                ? random_in (&c, plt) : random_in (&c, code);
      for (guint i = 0; i < G_N_ELEMENTS (words); i++)
        words[i] = synthetic_word (&c, code);
      ev.stack.stack = (const uint8_t *) words;
      ev.stack.stack_size = g_rand_int_range (c.rand, 0, 8) == 0
                            ? (uint64_t) g_rand_int_range (c.rand, 0, sizeof words)
                            : sizeof words;
      c.lean_variants += compare (&c, p, &ev, "synthetic");
    }
  g_test_message ("%u synthetic samples in %u files, the lean walk took %"
                  G_GUINT64_FORMAT, n, mapped, c.lean_variants);
  for (int i = 0; i < ST_CAUSE_N; i++)
    if (c.by_cause[i] > 0)
      g_test_message ("  cause %s: %" G_GUINT64_FORMAT,
                      st_unwind_cause_name (i), c.by_cause[i]);

out:
  g_array_free (code, TRUE);
  g_array_free (plt, TRUE);
  g_array_free (c.code, TRUE);
  g_rand_free (c.rand);
  st_process_table_free (c.processes);
  st_fast_unwinder_free (c.fast);
  st_module_cache_free (c.modules);
}

static guint
variants (void)
{
  const char *v = g_getenv ("ST_LEAN_CHECK_VARIANTS");
  return v != NULL ? (guint) g_ascii_strtoull (v, NULL, 10) : 64;
}

static void
test_fixture (void)
{
  check_file (ST_FIXTURE_DIR "/fixture.syscap", ST_FIXTURE_DIR, variants (),
              TRUE);
}

static void
test_fixture_perf (void)
{
  check_file (ST_FIXTURE_DIR "/fixture.data", ST_FIXTURE_DIR, variants (),
              TRUE);
}

static void
test_inputs (void)
{
  const char *list = g_getenv ("ST_LEAN_CHECK_INPUTS");

  if (list == NULL || *list == '\0')
    {
      g_test_skip ("ST_LEAN_CHECK_INPUTS not set");
      return;
    }
  char **paths = g_strsplit (list, ":", -1);
  for (char **p = paths; *p != NULL; p++)
    if (**p != '\0')
      check_file (*p, NULL, variants (), FALSE);
  g_strfreev (paths);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lean-walk/fixture", test_fixture);
  g_test_add_func ("/lean-walk/fixture-perf", test_fixture_perf);
  g_test_add_func ("/lean-walk/synthetic", test_synthetic);
  g_test_add_func ("/lean-walk/inputs", test_inputs);
  return g_test_run ();
}
