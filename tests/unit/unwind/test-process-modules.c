/* A process's mappings to modules (unwind/process-modules.c).

   Synthetic address spaces of real ELF files (the test programs, the
   committed fixture, this process's vDSO), mapped the way the loader
   maps them: the expected module of each file (start, end, bias) is
   worked out here from its program headers read with libelf.  Cases:
   the several mappings of one file are one module, with and without a
   recorded protection; modules sorted with the gaps between them
   unmatched (lookups checked against a linear search); the loader's
   PROT_NONE reservations between the segments of a library aligned to
   2 MiB; anonymous and JIT code (no ELF file) and the heap left out; the
   vDSO, and one of another size (another kernel's); a file loaded twice;
   a stale mapping inside another module; removal; when the list is
   stale; modules still being prepared on a worker left out, then
   listed; modules whose files are still to be fetched noted, then
   listed.

   Live, against libdwfl: this process, with that 2 MiB-aligned library
   dlopen'ed (PROT_NONE reservations of its file) and a JIT-like memfd
   mapped executable, read from /proc/self/maps: every module libdwfl
   reports from the same maps (dwfl_linux_proc_report) with an ELF file,
   the vDSO too, is listed at libdwfl's start address and bias, and
   nothing else is.  */
#include "config.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "test-gate.h"
#include "model/address-space.h"
#include "model/module-cache.h"
#include "unwind/process-modules.h"
#include "unwind/registers.h"

#define PAGE 0x1000ull
#define PAGE_DOWN(x) ((x) & ~(PAGE - 1))
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))

#define LIB ST_PROGS_DIR "/libstcallee.so"
#define LIB_2M ST_PROGS_DIR "/libstcallee-2m.so"
#define FP_PROG ST_PROGS_DIR "/fp-prog"
#define FIXTURE ST_FIXTURE_DIR "/st-fixture"

/* --- a file's loadable segments, by libelf -------------------------------- */

typedef struct
{
  uint64_t vaddr, offset, filesz, memsz;
  uint32_t flags;
} Segment;

typedef struct
{
  Segment segs[16];
  guint n;
  gboolean fixed;           /* ET_EXEC */
  uint64_t low, high;       /* first vaddr (page), end of the last */
  uint64_t inode;
} Layout;

static void
layout_of_image (Elf *elf, Layout *l)
{
  GElf_Ehdr eh;
  size_t n;

  g_assert_nonnull (gelf_getehdr (elf, &eh));
  l->fixed = eh.e_type == ET_EXEC;
  g_assert_cmpint (elf_getphdrnum (elf, &n), ==, 0);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, (int) i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      g_assert_cmpuint (l->n, <, G_N_ELEMENTS (l->segs));
      Segment s = { ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz,
                    ph.p_flags };
      if (l->n == 0)
        l->low = PAGE_DOWN (s.vaddr);
      l->high = MAX (l->high, s.vaddr + s.memsz);
      l->segs[l->n++] = s;
    }
  g_assert_cmpuint (l->n, >, 0);
}

static void
layout_of (const char *path, Layout *l)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  memset (l, 0, sizeof *l);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  l->inode = st.st_ino;
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  g_assert_nonnull (elf);
  layout_of_image (elf, l);
  elf_end (elf);
  close (fd);
}

static int
prot_of (uint32_t flags)
{
  return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0)
         | ((flags & PF_X) ? PROT_EXEC : 0);
}

/* Adds a mapping of PATH to AS; PROT < 0: not recorded (a capture).  */
static void
add_map (StAddressSpace *as, const char *path, uint64_t inode, uint64_t start,
         uint64_t end, uint64_t pgoff, int prot)
{
  StMap map = { 0 };

  map.start = start;
  map.end = end;
  map.pgoff = pgoff;
  map.inode = inode;
  map.filename = path;
  map.exec_known = prot >= 0;
  map.prot = prot >= 0 ? (uint32_t) prot : 0;
  st_address_space_add (as, &map);
}

/* Maps PATH at BASE as the loader does: each segment's file pages with
   its protection (PROT_KNOWN) or none recorded, and, with
   RESERVATIONS, the PROT_NONE rest of the loader's first mapping of the
   file in the holes between segments.  Anonymous .bss is left out (no
   file).  */
static void
map_like_loader (StAddressSpace *as, const char *path, const Layout *l,
                 uint64_t base, gboolean prot_known, gboolean reservations)
{
  uint64_t prev_end = 0, prev_start = 0, prev_pgoff = 0;

  for (guint i = 0; i < l->n; i++)
    {
      const Segment *s = &l->segs[i];
      uint64_t start = PAGE_DOWN (base + s->vaddr);
      uint64_t end = PAGE_UP (base + s->vaddr + s->filesz);
      if (reservations && i > 0 && start > prev_end)
        add_map (as, path, l->inode, prev_end, start,
                 prev_pgoff + (prev_end - prev_start), prot_known ? 0 : -1);
      add_map (as, path, l->inode, start, end, PAGE_DOWN (s->offset),
               prot_known ? prot_of (s->flags) : -1);
      prev_start = start;
      prev_end = end;
      prev_pgoff = PAGE_DOWN (s->offset);
    }
}

static uint64_t
code_address (const Layout *l, uint64_t bias)
{
  for (guint i = 0; i < l->n; i++)
    if (l->segs[i].flags & PF_X)
      return bias + l->segs[i].vaddr + l->segs[i].filesz / 2;
  g_assert_not_reached ();
}

typedef struct
{
  StModuleCache *cache;
  StAddressSpace *as;
  StProcessModules pm;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->cache = st_module_cache_new (NULL);
  f->as = st_address_space_new ();
  st_process_modules_init (&f->pm, f->cache);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  st_process_modules_clear (&f->pm);
  st_address_space_free (f->as);
  st_module_cache_free (f->cache);
}

/* Asserts that entry I is PATH's module at BIAS, as its layout says.  */
static void
assert_module (Fixture *f, guint i, const char *path, const Layout *l,
               uint64_t bias)
{
  g_assert_cmpuint (i, <, f->pm.n);
  const StProcessModule *m = &f->pm.mods[i];
  g_assert_cmpstr (m->module->name, ==, path);
  g_assert_nonnull (m->module->elf);
  g_assert_cmphex (m->bias, ==, bias);
  g_assert_cmphex (m->start, ==, bias + l->low);
  g_assert_cmphex (m->end, ==, bias + l->high);
}

/* This process's [vdso] mapping in /proc/self/maps (which
   st_address_space_load_proc leaves out): FALSE if none.  */
static gboolean
own_vdso (uint64_t *start, uint64_t *end)
{
  g_autofree char *maps = NULL;
  gboolean found = FALSE;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  for (char *line = strtok (maps, "\n"); line != NULL && !found;
       line = strtok (NULL, "\n"))
    {
      unsigned long long s, e;
      if (g_str_has_suffix (line, "[vdso]")
          && sscanf (line, "%llx-%llx", &s, &e) == 2)
        {
          *start = s;
          *end = e;
          found = TRUE;
        }
    }
  return found;
}

/* --- synthetic ------------------------------------------------------------ */

/* A library's four mappings (R, R-X, R, RW) are one module, whether the
   protection was recorded (perf.data) or not (a capture).  */
static void
test_one_file (Fixture *f, gconstpointer data)
{
  const uint64_t base = 0x7f1234500000ull;
  Layout l;

  layout_of (LIB, &l);
  for (int prot_known = 1; prot_known >= 0; prot_known--)
    {
      st_address_space_clear (f->as);
      map_like_loader (f->as, LIB, &l, base, prot_known, FALSE);
      g_assert_cmpuint (st_address_space_size (f->as), >=, 2);
      st_process_modules_build (&f->pm, f->as);
      g_assert_cmpuint (f->pm.n, ==, 1);
      assert_module (f, 0, LIB, &l, base);
      g_assert_false (st_process_modules_partial (&f->pm));
      g_assert_cmpint (st_process_modules_readiness (&f->pm), ==,
                       ST_MODULES_READY);
      g_assert_true (f->pm.layout == st_register_layout (EM_X86_64));

      /* The bounds: first byte in, end out.  */
      g_assert_true (st_process_modules_find (&f->pm, base + l.low)
                     == &f->pm.mods[0]);
      g_assert_true (st_process_modules_find (&f->pm, base + l.high - 1)
                     == &f->pm.mods[0]);
      g_assert_null (st_process_modules_find (&f->pm, base + l.low - 1));
      g_assert_null (st_process_modules_find (&f->pm, base + l.high));
      g_assert_null (st_process_modules_find (&f->pm, 0));
      g_assert_null (st_process_modules_find (&f->pm, UINT64_MAX));
    }
}

/* Three files given out of order (a PIE, a library and a static
   ET_EXEC) come out sorted, and every address finds what a linear
   search of the expected ranges finds: gaps nothing.  */
static void
test_sorted_gaps (Fixture *f, gconstpointer data)
{
  struct
  {
    const char *path;
    uint64_t base;
    Layout l;
  } files[] = {
    { LIB, 0x7f0000200000ull },
    { FP_PROG, 0x555555554000ull },
    { FIXTURE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      layout_of (files[i].path, &files[i].l);
      map_like_loader (f->as, files[i].path, &files[i].l, files[i].base, TRUE,
                       FALSE);
    }
  g_assert_true (files[2].l.fixed);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 3);
  assert_module (f, 0, FIXTURE, &files[2].l, 0);
  assert_module (f, 1, FP_PROG, &files[1].l, files[1].base);
  assert_module (f, 2, LIB, &files[0].l, files[0].base);

  GRand *rand = g_rand_new_with_seed (15);
  for (guint k = 0; k < 20000; k++)
    {
      uint64_t addr;
      const guint i = g_rand_int_range (rand, 0, G_N_ELEMENTS (files));
      /* Near a module's ends, or anywhere in its neighbourhood.  */
      uint64_t lo = files[i].base + files[i].l.low;
      uint64_t hi = files[i].base + files[i].l.high;
      switch (g_rand_int_range (rand, 0, 3))
        {
        case 0:
          addr = lo + g_rand_int_range (rand, -64, 64);
          break;
        case 1:
          addr = hi + g_rand_int_range (rand, -64, 64);
          break;
        default:
          addr = lo - (hi - lo)
                 + (uint64_t) g_rand_double_range (rand, 0, 3.0 * (hi - lo));
        }
      const StProcessModule *want = NULL;
      for (guint j = 0; j < G_N_ELEMENTS (files); j++)
        if (addr >= files[j].base + files[j].l.low
            && addr < files[j].base + files[j].l.high)
          for (guint e = 0; e < f->pm.n; e++)
            if (strcmp (f->pm.mods[e].module->name, files[j].path) == 0)
              want = &f->pm.mods[e];
      g_assert_true (st_process_modules_find (&f->pm, addr) == want);
    }
  g_rand_free (rand);
}

/* A library aligned to 2 MiB: the loader maps its whole span from file
   offset 0 first, maps each segment over it, and leaves the holes
   PROT_NONE -- mappings of the file too (of no segment's bytes at the
   page offsets they keep).  One module at the library's bias, whether
   the protections were recorded or not; the loader's first mapping
   alone (before the segments come) is no code.  */
static void
test_reservations (Fixture *f, gconstpointer data)
{
  const uint64_t base = 0x7fa109400000ull;
  Layout l;

  layout_of (LIB_2M, &l);
  g_assert_cmpuint (l.segs[1].vaddr - l.segs[0].vaddr, >=, 0x200000);
  for (int prot_known = 1; prot_known >= 0; prot_known--)
    {
      st_address_space_clear (f->as);
      map_like_loader (f->as, LIB_2M, &l, base, prot_known, TRUE);
      /* Segments and holes alternate.  */
      g_assert_cmpuint (st_address_space_size (f->as), ==, 2 * l.n - 1);
      st_process_modules_build (&f->pm, f->as);
      g_assert_cmpuint (f->pm.n, ==, 1);
      assert_module (f, 0, LIB_2M, &l, base);
      /* An address in a hole is the module's (its extent), as libdwfl
         has it.  */
      g_assert_nonnull (st_process_modules_find (&f->pm, base + 0x100000));
    }

  st_address_space_clear (f->as);
  add_map (f->as, LIB_2M, l.inode, base, PAGE_UP (base + l.high), 0,
           PROT_READ);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 0);
  /* The architecture, once known from a complete list, stays.  */
  g_assert_true (f->pm.layout == st_register_layout (EM_X86_64));
}

/* Code of no ELF file: anonymous executable memory (a JIT), a memfd
   mapped executable (named like a path, no such file), the heap, the
   stack: none is a module, and the library beside them still is.  */
static void
test_anonymous (Fixture *f, gconstpointer data)
{
  const uint64_t base = 0x7f5500000000ull;
  const int rx = PROT_READ | PROT_EXEC;
  Layout l;

  layout_of (LIB, &l);
  add_map (f->as, "", 0, 0x7f4400000000ull, 0x7f4400010000ull, 0, rx);
  add_map (f->as, "//anon", 0, 0x7f4400010000ull, 0x7f4400020000ull, 0, rx);
  add_map (f->as, "/memfd:jit-code (deleted)", 77, 0x7f4400020000ull,
           0x7f4400030000ull, 0, rx);
  add_map (f->as, "[heap]", 0, 0x5600000000ull, 0x5600021000ull, 0, -1);
  add_map (f->as, "[stack]", 0, 0x7ffc00000000ull, 0x7ffc00021000ull, 0, -1);
  add_map (f->as, "/nonexistent/libgone.so", 78, 0x7f4400040000ull,
           0x7f4400050000ull, 0, rx);
  map_like_loader (f->as, LIB, &l, base, TRUE, FALSE);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 1);
  assert_module (f, 0, LIB, &l, base);
  g_assert_null (st_process_modules_find (&f->pm, 0x7f4400000000ull));
  g_assert_null (st_process_modules_find (&f->pm, 0x7f4400025000ull));
  g_assert_null (st_process_modules_find (&f->pm, 0x5600000100ull));
  g_assert_nonnull (st_process_modules_find (&f->pm, code_address (&l, base)));
}

/* This process's own vDSO, where the kernel put it (its [vdso] line):
   its start is the image's address (AT_SYSINFO_EHDR), its bias that
   minus the image's first vaddr.  A [vdso] of another size was another
   kernel's: none.  */
static void
test_vdso (Fixture *f, gconstpointer data)
{
  uint64_t start, end;
  Layout l = { 0 };

  if (!own_vdso (&start, &end))
    {
      g_test_skip ("no vDSO");
      return;
    }
  g_assert_cmphex (start, ==, getauxval (AT_SYSINFO_EHDR));
  elf_version (EV_CURRENT);
  Elf *elf = elf_memory ((char *) (uintptr_t) start, end - start);
  g_assert_nonnull (elf);
  layout_of_image (elf, &l);
  elf_end (elf);

  add_map (f->as, "[vdso]", 0, start, end, 0, PROT_READ | PROT_EXEC);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 1);
  assert_module (f, 0, "[vdso]", &l, start - l.low);
  g_assert_nonnull (st_process_modules_find (&f->pm, start));

  /* In a new cache: the [vdso] module above is found again by name.  */
  st_process_modules_clear (&f->pm);
  st_module_cache_free (f->cache);
  f->cache = st_module_cache_new (NULL);
  st_process_modules_init (&f->pm, f->cache);
  st_address_space_clear (f->as);
  add_map (f->as, "[vdso]", 0, start, end + PAGE, 0, PROT_READ | PROT_EXEC);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 0);
}

/* One file loaded twice (dlmopen): two modules, each at its own bias,
   one StModule.  */
static void
test_two_loads (Fixture *f, gconstpointer data)
{
  const uint64_t a = 0x7f1000000000ull, b = 0x7f2000000000ull;
  Layout l;

  layout_of (LIB, &l);
  map_like_loader (f->as, LIB, &l, b, FALSE, FALSE);
  map_like_loader (f->as, LIB, &l, a, FALSE, FALSE);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 2);
  assert_module (f, 0, LIB, &l, a);
  assert_module (f, 1, LIB, &l, b);
  g_assert_true (f->pm.mods[0].module == f->pm.mods[1].module);
  g_assert_true (st_process_modules_find (&f->pm, code_address (&l, b))
                 == &f->pm.mods[1]);
}

/* A file mapped inside another module's extent (a stale mapping the
   stream never unmapped): the list never overlaps, the module that
   starts first keeps its range.  Removing it leaves the rest.  */
static void
test_overlap_and_remove (Fixture *f, gconstpointer data)
{
  const uint64_t base = 0x7f3000000000ull;
  Layout big, small, lib;

  layout_of (LIB_2M, &big);
  layout_of (FP_PROG, &small);
  layout_of (LIB, &lib);
  map_like_loader (f->as, LIB_2M, &big, base, TRUE, FALSE);
  /* In the hole between the 2 MiB-aligned library's first segments.  */
  map_like_loader (f->as, FP_PROG, &small, base + 0x100000, TRUE, FALSE);
  map_like_loader (f->as, LIB, &lib, base + 0x10000000, TRUE, FALSE);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 2);
  assert_module (f, 0, LIB_2M, &big, base);
  assert_module (f, 1, LIB, &lib, base + 0x10000000);
  g_assert_true (st_process_modules_find (&f->pm,
                                          code_address (&small,
                                                        base + 0x100000))
                 == &f->pm.mods[0]);

  uint64_t in_lib = code_address (&lib, base + 0x10000000);
  g_assert_true (st_process_modules_find (&f->pm, in_lib) == &f->pm.mods[1]);
  st_process_modules_remove (&f->pm, 0);
  g_assert_cmpuint (f->pm.n, ==, 1);
  g_assert_null (st_process_modules_find (&f->pm, code_address (&big, base)));
  g_assert_true (st_process_modules_find (&f->pm, in_lib) == &f->pm.mods[0]);
  assert_module (f, 0, LIB, &lib, base + 0x10000000);
}

/* The list is stale once the mappings change, not before; rebuilt, it
   keeps the very modules still mapped (held, never evicted and
   reopened, even past the cache's bound).  */
static void
test_stale (Fixture *f, gconstpointer data)
{
  Layout lib, prog;

  st_module_cache_set_limits (f->cache, 1, 0);
  layout_of (LIB, &lib);
  layout_of (FP_PROG, &prog);
  map_like_loader (f->as, LIB, &lib, 0x7f0000000000ull, TRUE, FALSE);
  map_like_loader (f->as, FP_PROG, &prog, 0x555555554000ull, TRUE, FALSE);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 2);
  g_assert_false (st_process_modules_stale (&f->pm, f->as));
  StModule *first = f->pm.mods[0].module, *second = f->pm.mods[1].module;

  add_map (f->as, "", 0, 0x7f7000000000ull, 0x7f7000001000ull, 0,
           PROT_READ | PROT_WRITE);
  g_assert_true (st_process_modules_stale (&f->pm, f->as));
  st_process_modules_build (&f->pm, f->as);
  g_assert_false (st_process_modules_stale (&f->pm, f->as));
  g_assert_cmpuint (f->pm.n, ==, 2);
  g_assert_true (f->pm.mods[0].module == first);
  g_assert_true (f->pm.mods[1].module == second);
}

/* With workers, a module being prepared is left out and held; the list
   is stale once it is ready, and lists it when rebuilt.  */
static void
gated_prepare (StModule *module, void *user_data)
{
  test_gate_pass (user_data);
}

static void
test_pending (Fixture *f, gconstpointer data)
{
  TestGate *gate = test_gate_new ();
  const uint64_t base = 0x7f0000000000ull;
  Layout l;

  st_module_cache_set_prepare (f->cache, gated_prepare, gate);
  st_module_cache_set_workers (f->cache, 1, FALSE);
  layout_of (LIB, &l);
  map_like_loader (f->as, LIB, &l, base, TRUE, FALSE);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 0);
  g_assert_true (st_process_modules_partial (&f->pm));
  g_assert_cmpint (st_process_modules_readiness (&f->pm), ==,
                   ST_MODULES_PREPARING);
  g_assert_null (f->pm.layout);
  g_assert_false (st_process_modules_stale (&f->pm, f->as));

  test_gate_open (gate);
  StModule *m = f->pm.pending->pdata[0];
  st_module_cache_wait_for (f->cache, m);
  g_assert_true (st_process_modules_stale (&f->pm, f->as));
  st_process_modules_build (&f->pm, f->as);
  g_assert_false (st_process_modules_partial (&f->pm));
  g_assert_cmpuint (f->pm.n, ==, 1);
  assert_module (f, 0, LIB, &l, base);
  g_assert_true (f->pm.layout == st_register_layout (EM_X86_64));
  st_process_modules_clear (&f->pm);
  st_module_cache_free (f->cache);
  f->cache = NULL;
  st_process_modules_init (&f->pm, NULL);
  test_gate_free (gate);
}

static char *
find_lib (StModuleFileKind kind, const char *path, const uint8_t *build_id,
          guint build_id_len, char **why, void *user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return kind == ST_MODULE_FILE_EXECUTABLE ? g_strdup (LIB) : NULL;
}

/* A file no local candidate gives, with a build-id, under lazy
   fetching: its module is ready without a file, left out of the list,
   and its mappings noted as deferred (a walk that meets them asks for
   the file: StUnwindResult.deferred_pc); once fetched, listed.  */
static void
test_deferred (Fixture *f, gconstpointer data)
{
  const uint64_t base = 0x7f0000000000ull;
  const char *gone = "/nonexistent/st-test/libstcallee.so";
  guint calls = 0;
  Layout l;

  st_module_cache_set_finder (f->cache, find_lib, &calls);
  st_module_cache_set_lazy_fetch (f->cache, TRUE);
  layout_of (LIB, &l);
  StAddressSpace *loaded = st_address_space_new ();
  map_like_loader (loaded, gone, &l, base, TRUE, FALSE);
  /* The library's own build-id, as a stream records it.  */
  int fd = open (LIB, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  const void *id;
  ssize_t id_len = dwelf_elf_gnu_build_id (elf, &id);
  g_assert_cmpint (id_len, >, 0);
  g_assert_cmpint (id_len, <=, ST_BUILD_ID_MAX);
  for (guint i = 0; i < st_address_space_size (loaded); i++)
    {
      StMap map = *st_address_space_get (loaded, i);
      map.build_id_len = (uint8_t) id_len;
      memcpy (map.build_id, id, (size_t) id_len);
      st_address_space_add (f->as, &map);
    }
  st_address_space_free (loaded);
  elf_end (elf);
  close (fd);
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n, ==, 0);
  g_assert_null (f->pm.layout);
  g_assert_cmpuint (calls, ==, 0);
  /* (Its code mapping: the protections were recorded.)  */
  uint64_t code = code_address (&l, base);
  g_assert_cmpuint (f->pm.n_deferred, ==, 1);
  g_assert_cmphex (f->pm.deferred[0].start, <=, code);
  g_assert_cmphex (code, <, f->pm.deferred[0].end);

  uint64_t outside[] = { 0x1000, base - 1 };
  uint64_t chain[] = { 0x1000, code, base - 1 };
  g_assert_cmphex (st_process_modules_deferred_among (&f->pm, outside, 2), ==,
                   0);
  g_assert_cmphex (st_process_modules_deferred_among (&f->pm, chain, 3), ==,
                   code);

  const StMap *map = st_address_space_find (f->as, code);
  StModule *m = st_module_cache_get (f->cache, map);
  g_assert_true (m->fetch_deferred);
  g_assert_true (st_module_cache_fetch (f->cache, m, map));
  g_assert_cmpuint (calls, ==, 1);
  g_assert_true (st_process_modules_stale (&f->pm, f->as));
  st_process_modules_build (&f->pm, f->as);
  g_assert_cmpuint (f->pm.n_deferred, ==, 0);
  g_assert_cmpuint (f->pm.n, ==, 1);
  g_assert_cmphex (st_process_modules_deferred_among (&f->pm, chain, 3), ==,
                   0);
}

/* --- live, against libdwfl ------------------------------------------------ */

static const Dwfl_Callbacks proc_callbacks = {
  .find_elf = dwfl_linux_proc_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
};

typedef struct
{
  char *name;
  uint64_t start, end, bias;
} DwflModule;

static int
collect_module (Dwfl_Module *mod, void **userdata, const char *name,
                Dwarf_Addr low, void *arg)
{
  GArray *out = arg;
  Dwarf_Addr start, end, bias;

  if (dwfl_module_getelf (mod, &bias) == NULL)
    return DWARF_CB_OK;
  dwfl_module_info (mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
  DwflModule m = { g_strdup (name), start, end, bias };
  g_array_append_val (out, m);
  return DWARF_CB_OK;
}

static void
test_live (void)
{
  void *lib = dlopen (LIB_2M, RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull (lib);
  /* JIT-like code: a memfd mapped executable ("/memfd:... (deleted)").  */
  int memfd = memfd_create ("st-jit", MFD_CLOEXEC);
  g_assert_cmpint (memfd, >=, 0);
  g_assert_cmpint (ftruncate (memfd, PAGE), ==, 0);
  void *jit = mmap (NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, memfd, 0);
  g_assert_true (jit != MAP_FAILED);

  StModuleCache *cache = st_module_cache_new (NULL);
  StAddressSpace *as = st_address_space_new ();
  StProcessModules pm;
  GArray *dwfl_mods = g_array_new (FALSE, FALSE, sizeof (DwflModule));
  Dwfl *dwfl = dwfl_begin (&proc_callbacks);

  g_assert_true (st_address_space_load_proc (as, getpid ()));
  uint64_t vdso_start, vdso_end;
  if (own_vdso (&vdso_start, &vdso_end))
    add_map (as, "[vdso]", 0, vdso_start, vdso_end, 0, PROT_READ | PROT_EXEC);
  dwfl_report_begin (dwfl);
  g_assert_cmpint (dwfl_linux_proc_report (dwfl, getpid ()), ==, 0);
  dwfl_report_end (dwfl, NULL, NULL);
  dwfl_getmodules (dwfl, collect_module, dwfl_mods, 0);

  st_process_modules_init (&pm, cache);
  st_process_modules_build (&pm, as);

  /* The 2 MiB-aligned library does have reservations here.  */
  guint reservations = 0;
  for (guint i = 0; i < st_address_space_size (as); i++)
    {
      const StMap *map = st_address_space_get (as, i);
      reservations += strcmp (map->filename, LIB_2M) == 0 && map->prot == 0;
    }
  g_assert_cmpuint (reservations, >, 0);

  gboolean seen_lib = FALSE, seen_vdso = FALSE;
  guint matched = 0;
  for (guint i = 0; i < dwfl_mods->len; i++)
    {
      const DwflModule *d = &g_array_index (dwfl_mods, DwflModule, i);
      gboolean vdso = g_str_has_prefix (d->name, "[vdso");
      if (d->name[0] != '/' && !vdso)
        continue;
      const StProcessModule *m = st_process_modules_find (&pm, d->start);
      g_test_message ("libdwfl: %s %#" G_GINT64_MODIFIER "x-%#"
                      G_GINT64_MODIFIER "x bias %#" G_GINT64_MODIFIER "x; "
                      "ours: %s %#" G_GINT64_MODIFIER "x-%#" G_GINT64_MODIFIER
                      "x bias %#" G_GINT64_MODIFIER "x", d->name, d->start,
                      d->end, d->bias, m ? m->module->name : "none",
                      m ? m->start : 0, m ? m->end : 0, m ? m->bias : 0);
      g_assert_nonnull (m);
      g_assert_cmpstr (m->module->name, ==, vdso ? "[vdso]" : d->name);
      g_assert_cmphex (m->start, ==, d->start);
      g_assert_cmphex (m->bias, ==, d->bias);
      /* Ours reaches the end of the file's last segment in memory,
         libdwfl's the end of its last file mapping.  */
      g_assert_cmphex (PAGE_UP (m->end), >=, d->end);
      matched++;
      seen_lib |= strcmp (d->name, LIB_2M) == 0;
      seen_vdso |= vdso;
    }
  g_assert_true (seen_lib);
  if (getauxval (AT_SYSINFO_EHDR) != 0)
    g_assert_true (seen_vdso);
  /* Nothing libdwfl did not report.  */
  g_assert_cmpuint (pm.n, ==, matched);
  g_assert_null (st_process_modules_find (&pm, (uint64_t) (uintptr_t) jit));

  for (guint i = 0; i < dwfl_mods->len; i++)
    g_free (g_array_index (dwfl_mods, DwflModule, i).name);
  g_array_free (dwfl_mods, TRUE);
  dwfl_end (dwfl);
  st_process_modules_clear (&pm);
  st_address_space_free (as);
  st_module_cache_free (cache);
  munmap (jit, PAGE);
  close (memfd);
  dlclose (lib);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) \
  g_test_add ("/process-modules/" name, Fixture, NULL, fixture_set_up, fn, \
              fixture_tear_down)
  ADD ("one-file-one-module", test_one_file);
  ADD ("sorted-with-gaps", test_sorted_gaps);
  ADD ("loader-reservations", test_reservations);
  ADD ("anonymous-and-jit", test_anonymous);
  ADD ("vdso", test_vdso);
  ADD ("two-loads", test_two_loads);
  ADD ("overlap-and-remove", test_overlap_and_remove);
  ADD ("stale", test_stale);
  ADD ("pending", test_pending);
  ADD ("deferred", test_deferred);
#undef ADD
  g_test_add_func ("/process-modules/live-libdwfl", test_live);
  return g_test_run ();
}
