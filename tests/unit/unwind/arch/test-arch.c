/* The architecture descriptors (unwind/arch/: arch.c, x86_64.c, i386.c,
   aarch64.c) against sources of their own:

   - DWARF register numbers: the names elfutils' backends give them
     (dwfl_module_register_names on an ELF header of each machine, the
     psABIs' numbering);
   - perf register numbers: the kernel's uapi <asm/perf_regs.h> of this
     system (PERF_REG_X86_*) for x86_64 and i386; for aarch64, whose
     header is not installed here, perf's arm64 numbering (X0..X29 =
     0..29, LR 30, SP 31, PC 32, /work/shared/reference/formats.md);
   - the registers the fast engine tracks for x86_64 (libdwfl's: the
     integer registers and rip, DWARF 0..16), its return address,
     stack and frame pointer columns, by libdw's names;
   - the ABI's initial CFI, against what libdw 0.188 runs before a CIE
     (the rules of an FDE without instructions, whose CIE has none);
   - the step for frames without CFI (libdwfl's x86_64 frame-pointer
     unwinder) over a stack image built here, read for read: unknown
     or zero rbp, saved words unreadable (below or beyond the copy),
     misaligned, a frame pointing at itself (a loop), the stack
     pointer not moving up;
   - aarch64's and i386's steps for frames without CFI, as gdb's
     prologue analysis unwinds them (A64 and x86 encodings from the
     architecture manuals, placed in the stack copy so that the step
     reads them as code): a PLT stub and a function before its prologue
     (the return address in x30), after "stp x29, x30, [sp, #-N]!" and
     "sub sp, sp, #M", after the epilogue, a caller frame without a
     prologue (no step), the search stopping at the previous function's
     "ret"; i386's PIC thunk, "push %ebp" not yet run or just run, the
     code up to "ret" in _fini and in glibc's i586 memcpy (code_to_ret,
     also where CFI is wrong), and the ebp chain elsewhere; aarch64's
     return address mask (PAC);
   - lookup by e_machine, unknown machines refused, and the layout a
     sample's registers alone point to.  */
#include "config.h"

#include <asm/perf_regs.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "model/process-table.h"
#include "one-fde-image.h"
#include "unwind/arch/arch.h"

/* --- register names, from libdw's backends ------------------------------ */

#define MAX_NAMES 64

typedef struct
{
  char *name[MAX_NAMES];        /* by DWARF number, NULL: none */
  char *set[MAX_NAMES];
} Names;

static int
collect_name (void *arg, int regno, const char *setname, const char *prefix,
              const char *regname, int bits, int type)
{
  Names *n = arg;

  if (regno >= 0 && regno < MAX_NAMES)
    {
      n->name[regno] = g_strdup (regname);
      n->set[regno] = g_strdup (setname);
    }
  return 0;
}

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

/* libdw's names of the DWARF registers of MACHINE, from a file that is
   only an ELF header of that machine.  */
static void
names_of_machine (int machine, Names *n)
{
  GError *error = NULL;
  char *path;
  int fd = g_file_open_tmp ("st-arch-XXXXXX", &path, &error);
  gboolean is32 = machine == EM_386;

  g_assert_no_error (error);
  /* The same fields in both classes' headers.  */
#define FILL_HEADER(e, class)                           \
  do                                                    \
    {                                                   \
      memcpy ((e).e_ident, ELFMAG, SELFMAG);            \
      (e).e_ident[EI_CLASS] = (class);                  \
      (e).e_ident[EI_DATA] = ELFDATA2LSB;               \
      (e).e_ident[EI_VERSION] = EV_CURRENT;             \
      (e).e_type = ET_REL;                              \
      (e).e_machine = machine;                          \
      (e).e_version = EV_CURRENT;                       \
      (e).e_ehsize = sizeof (e);                        \
      g_assert_cmpint (write (fd, &(e), sizeof (e)), ==, sizeof (e)); \
    }                                                   \
  while (0)
  if (is32)
    {
      Elf32_Ehdr e = { 0 };
      FILL_HEADER (e, ELFCLASS32);
    }
  else
    {
      Elf64_Ehdr e = { 0 };
      FILL_HEADER (e, ELFCLASS64);
    }
#undef FILL_HEADER
  close (fd);

  Dwfl *dwfl = dwfl_begin (&offline_callbacks);
  Dwfl_Module *mod = dwfl_report_offline (dwfl, "arch", path, -1);
  g_assert_nonnull (mod);
  dwfl_report_end (dwfl, NULL, NULL);
  memset (n, 0, sizeof *n);
  g_assert_cmpint (dwfl_module_register_names (mod, collect_name, n), ==, 0);
  dwfl_end (dwfl);
  g_unlink (path);
  g_free (path);
}

static void
names_free (Names *n)
{
  for (guint i = 0; i < MAX_NAMES; i++)
    {
      g_free (n->name[i]);
      g_free (n->set[i]);
    }
}

/* The DWARF number libdw names NAME, or -1.  */
static int
dwarf_number (const Names *n, const char *name)
{
  for (int i = 0; i < MAX_NAMES; i++)
    if (g_strcmp0 (n->name[i], name) == 0)
      return i;
  return -1;
}

/* --- perf register numbers ----------------------------------------------- */

typedef struct
{
  const char *name;     /* libdw's */
  int perf;
} PerfName;

/* The kernel's x86 numbering, by the names of both psABIs (built for
   x86; for aarch64 <asm/perf_regs.h> is arm64's, tools/
   cross-check-aarch64.sh).  */
#if defined __x86_64__ || defined __i386__
static const PerfName x86_64_perf[] = {
  { "rax", PERF_REG_X86_AX }, { "rbx", PERF_REG_X86_BX },
  { "rcx", PERF_REG_X86_CX }, { "rdx", PERF_REG_X86_DX },
  { "rsi", PERF_REG_X86_SI }, { "rdi", PERF_REG_X86_DI },
  { "rbp", PERF_REG_X86_BP }, { "rsp", PERF_REG_X86_SP },
  { "rip", PERF_REG_X86_IP }, { "r8", PERF_REG_X86_R8 },
  { "r9", PERF_REG_X86_R9 }, { "r10", PERF_REG_X86_R10 },
  { "r11", PERF_REG_X86_R11 }, { "r12", PERF_REG_X86_R12 },
  { "r13", PERF_REG_X86_R13 }, { "r14", PERF_REG_X86_R14 },
  { "r15", PERF_REG_X86_R15 }, { NULL, 0 },
};

static const PerfName i386_perf[] = {
  { "eax", PERF_REG_X86_AX }, { "ebx", PERF_REG_X86_BX },
  { "ecx", PERF_REG_X86_CX }, { "edx", PERF_REG_X86_DX },
  { "esi", PERF_REG_X86_SI }, { "edi", PERF_REG_X86_DI },
  { "ebp", PERF_REG_X86_BP }, { "esp", PERF_REG_X86_SP },
  { "eip", PERF_REG_X86_IP }, { NULL, 0 },
};
#endif

/* perf's arm64 numbering (arch/arm64/include/uapi/asm/perf_regs.h):
   x0..x29, lr (x30), sp, pc.  libdw names x30 "x30"; the PC has no
   DWARF number.  */
static PerfName aarch64_perf[34];

static void
init_aarch64_perf (void)
{
  static char names[31][4];

  for (int i = 0; i <= 30; i++)
    {
      g_snprintf (names[i], sizeof names[i], "x%d", i);
      aarch64_perf[i] = (PerfName) { names[i], i };
    }
  aarch64_perf[31] = (PerfName) { "sp", 31 };
  aarch64_perf[32] = (PerfName) { "pc", 32 };
  aarch64_perf[33] = (PerfName) { NULL, 0 };
#ifdef __aarch64__
  /* Built for aarch64: the kernel's header is there.  */
  G_STATIC_ASSERT (PERF_REG_ARM64_X0 == 0 && PERF_REG_ARM64_X29 == 29
                   && PERF_REG_ARM64_LR == 30 && PERF_REG_ARM64_SP == 31
                   && PERF_REG_ARM64_PC == 32);
#endif
}

static int
perf_number (const PerfName *table, const char *name)
{
  for (; table->name != NULL; table++)
    if (strcmp (table->name, name) == 0)
      return table->perf;
  return -1;
}

typedef struct
{
  int machine;
  const PerfName *perf;
  const char *pc, *sp;          /* libdw's names, or NULL (no number) */
  uint64_t perf_mask;           /* the registers perf can sample */
} Expected;

/* The layout of E->MACHINE, DWARF number by DWARF number.  */
static void
check_layout (const Expected *e)
{
  const StRegisterLayout *l = st_register_layout (e->machine);
  Names n;
  uint64_t seen = 0;

  g_assert_nonnull (l);
  g_assert_cmpint (l->elf_machine, ==, e->machine);
  g_assert_cmpuint (l->n_dwarf, <=, ST_MAX_DWARF_REGS);
  names_of_machine (e->machine, &n);
  for (guint i = 0; i < l->n_dwarf; i++)
    {
      g_assert_nonnull (n.name[i]);
      int want = perf_number (e->perf, n.name[i]);
      if (want < 0)
        g_error ("%s: DWARF %u (%s) has no perf register", l->name, i,
                 n.name[i]);
      if (l->perf_of_dwarf[i] != want)
        g_error ("%s: DWARF %u (%s) is perf %d, not %d", l->name, i,
                 n.name[i], want, l->perf_of_dwarf[i]);
      g_assert_true (e->perf_mask >> want & 1);
      g_assert_false (seen >> want & 1);
      seen |= 1ull << want;
    }
  /* Every register perf samples with a DWARF number, but the PC, is in
     the table: the walk starts from all of them.  */
  for (const PerfName *p = e->perf; p->name != NULL; p++)
    {
      int dw = dwarf_number (&n, p->name);
      if (dw >= 0 && g_strcmp0 (p->name, e->pc) != 0)
        g_assert_cmpint (dw, <, l->n_dwarf);
    }
  g_assert_cmpint (l->perf_ip, ==, perf_number (e->perf, e->pc ? e->pc
                                                                : "pc"));
  g_assert_cmpint (l->perf_sp, ==, perf_number (e->perf, e->sp));
  g_assert_cmpint (l->dwarf_pc, ==, e->pc ? dwarf_number (&n, e->pc) : -1);
  names_free (&n);
}

#if defined __x86_64__ || defined __i386__
/* perf's sampled set (tools/perf/arch/x86/include/perf_regs.h): on
   x86_64 every register below PERF_REG_X86_64_MAX but the segment
   registers DS, ES, FS, GS; on i386 those below PERF_REG_X86_32_MAX.  */
#define X86_64_MASK (((1ull << PERF_REG_X86_64_MAX) - 1) \
                     & ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) \
                         | (1ull << PERF_REG_X86_FS) \
                         | (1ull << PERF_REG_X86_GS)))

static void
test_layout_x86_64 (void)
{
  Expected e = { EM_X86_64, x86_64_perf, "rip", "rsp", X86_64_MASK };

  check_layout (&e);
  /* The mask perf 6.1 records with --call-graph=dwarf.  */
  g_assert_cmphex (X86_64_MASK, ==, 0xff0fff);
}

static void
test_layout_i386 (void)
{
  Expected e = { EM_386, i386_perf, "eip", "esp",
                 (1ull << PERF_REG_X86_32_MAX) - 1 };

  check_layout (&e);
}
#endif

static void
test_layout_aarch64 (void)
{
  Expected e = { EM_AARCH64, aarch64_perf, NULL, "sp", (1ull << 33) - 1 };
  Names n;

  init_aarch64_perf ();
  check_layout (&e);
  /* libdw has no DWARF number 32 (no PC register) for aarch64.  */
  names_of_machine (EM_AARCH64, &n);
  g_assert_null (n.name[32]);
  names_free (&n);
}

/* --- lookup --------------------------------------------------------------- */

static void
test_lookup (void)
{
  static const int known[] = { EM_X86_64, EM_386, EM_AARCH64 };
  static const int unknown[] = {
    EM_NONE, EM_ARM, EM_PPC64, EM_PPC, EM_S390, EM_MIPS, EM_RISCV,
    EM_SPARCV9, EM_IA_64, EM_X86_64 + 0x10000, -1, 0x7fffffff,
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      const StArch *a = st_arch (known[i]);
      g_assert_nonnull (a);
      g_assert_cmpint (a->registers.elf_machine, ==, known[i]);
      g_assert_true (st_register_layout (known[i]) == &a->registers);
      g_assert_true (st_fast_arch (known[i]) == a->fast);
      if (a->fast != NULL)
        {
          g_assert_cmpint (a->fast->machine, ==, known[i]);
          /* A sample's decoded registers (sample-context.h) are all
             tracked: the layout's DWARF registers and its PC column,
             after them.  */
          g_assert_cmpuint (a->registers.n_dwarf, <=, a->fast->n_regs);
          g_assert_cmpint (a->registers.dwarf_pc, <,
                           (int) a->fast->n_regs);
          g_assert_true (a->registers.dwarf_pc < 0
                         || (guint) a->registers.dwarf_pc
                            >= a->registers.n_dwarf);
        }
    }
  g_assert_true (st_arch (EM_X86_64) == &st_arch_x86_64);
  g_assert_true (st_arch (EM_386) == &st_arch_i386);
  g_assert_true (st_arch (EM_AARCH64) == &st_arch_aarch64);
  g_assert_cmpstr (st_arch_x86_64.registers.name, ==, "x86_64");
  g_assert_cmpstr (st_arch_i386.registers.name, ==, "i386");
  g_assert_cmpstr (st_arch_aarch64.registers.name, ==, "aarch64");
  /* The fast engine walks all three.  */
  g_assert_nonnull (st_fast_arch (EM_X86_64));
  g_assert_nonnull (st_fast_arch (EM_386));
  g_assert_nonnull (st_fast_arch (EM_AARCH64));

  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    {
      g_assert_null (st_arch (unknown[i]));
      g_assert_null (st_register_layout (unknown[i]));
      g_assert_null (st_fast_arch (unknown[i]));
    }
}

/* The layout told by a sample's registers alone: aarch64's perf set
   reaches its PC (32), x86_64's stops at R15 (23).  */
static void
test_guess (void)
{
  StEvent ev = { 0 };

  ev.kind = ST_EVENT_STACK_USER;
  ev.stack.abi = ST_REGS_ABI_64;
#if defined __x86_64__ || defined __i386__
  ev.stack.regs_mask = X86_64_MASK;
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_x86_64.registers);
#endif
  ev.stack.regs_mask = (1ull << 33) - 1;
  g_assert_true (st_register_layout_guess (&ev)
                 == &st_arch_aarch64.registers);
  /* Only the PC and SP, as a sampler asking for little would.  */
  ev.stack.regs_mask = (1ull << 32) | (1ull << 31);
  g_assert_true (st_register_layout_guess (&ev)
                 == &st_arch_aarch64.registers);
#if defined __x86_64__ || defined __i386__
  ev.stack.regs_mask = (1ull << PERF_REG_X86_IP) | (1ull << PERF_REG_X86_SP);
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_x86_64.registers);
  ev.stack.abi = ST_REGS_ABI_32;
  ev.stack.regs_mask = (1ull << PERF_REG_X86_32_MAX) - 1;
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_i386.registers);
#endif
  ev.stack.abi = ST_REGS_ABI_NONE;
  g_assert_null (st_register_layout_guess (&ev));
  ev.stack.abi = 3;
  g_assert_null (st_register_layout_guess (&ev));
}

/* --- what the fast engine knows of x86_64 ---------------------------------- */

static void
test_x86_64_columns (void)
{
  const StFastArch *a = st_fast_arch (EM_X86_64);
  Names n;

  names_of_machine (EM_X86_64, &n);
  g_assert_cmpstr (a->name, ==, "x86_64");
  /* libdwfl tracks the integer registers and the return address column:
     the first registers libdw names, up to the first SSE one.  */
  g_assert_cmpuint (a->n_regs, ==, 17);
  g_assert_cmpuint (a->n_regs, <=, ST_FRAME_MAX_REGS);
  for (guint i = 0; i < a->n_regs; i++)
    g_assert_cmpstr (n.set[i], ==, "integer");
  g_assert_cmpstr (n.set[a->n_regs], !=, "integer");
  g_assert_cmpint (a->ra, ==, dwarf_number (&n, "rip"));
  g_assert_cmpint (a->sp, ==, dwarf_number (&n, "rsp"));
  g_assert_cmpint (a->fp, ==, dwarf_number (&n, "rbp"));
  /* The return address column is the layout's PC.  */
  g_assert_cmpint (a->ra, ==, st_arch_x86_64.registers.dwarf_pc);
  names_free (&n);
}

/* The rules libdw gives at the start of an FDE whose CIE has no
   instructions: the ABI's initial CFI alone.  Compared register by
   register with the descriptor's: its same_value registers, the stack
   pointer the CFA itself, everything else undefined, and no CFA.  */
static void
test_x86_64_initial_cfi (void)
{
  const StFastArch *a = st_fast_arch (EM_X86_64);
  static const uint8_t nothing[] = { DW_CFA_nop };
  OneFdeSpec spec = {
    .augmentation = "zR", .code_align = 1, .data_align = -8, .ra = a->ra,
    .cie_insn = nothing, .n_cie_insn = 0, .start = 0x10000, .len = 0x10,
    .fde_insn = nothing, .n_fde_insn = 0,
  };
  OneFde o;
  Dwarf_Frame *frame;
  Dwarf_Op *ops, mem[3];
  size_t nops;
  guint same = 0;

  one_fde_open (&o, &spec);
  g_assert_cmpint (dwarf_cfi_addrframe (o.cfi, 0x10008, &frame), ==, 0);
  g_assert_false (dwarf_frame_cfa (frame, &ops, &nops) == 0 && nops > 0);
  for (unsigned r = 0; r < a->n_regs; r++)
    {
      gboolean listed = FALSE;
      for (unsigned i = 0; i < a->n_abi_same_value; i++)
        listed = listed || a->abi_same_value[i] == r;
      g_assert_cmpint (dwarf_frame_register (frame, r, mem, &ops, &nops),
                       ==, 0);
      if (listed)
        {
          /* same_value: no operations, no location.  */
          g_assert_cmpuint (nops, ==, 0);
          g_assert_null (ops);
          same++;
        }
      else if (r == a->sp)
        {
          /* val_offset (0): the CFA's value itself.  */
          g_assert_cmpuint (nops, ==, 2);
          g_assert_cmpint (ops[0].atom, ==, DW_OP_call_frame_cfa);
          g_assert_cmpint (ops[1].atom, ==, DW_OP_stack_value);
        }
      else
        {
          /* undefined.  */
          g_assert_cmpuint (nops, ==, 0);
          g_assert_nonnull (ops);
        }
    }
  /* rax, rbp, r12-r15 and rip (libdw's x86_64 backend).  */
  g_assert_cmpuint (same, ==, 7);
  g_assert_cmpuint (a->n_abi_same_value, ==, 7);
  free (frame);
  one_fde_close (&o);
}

/* --- the step without CFI ------------------------------------------------- */

#define STACK_SP 0x7ffc0000ull
#define STACK_WORDS 8

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  uint64_t words[STACK_WORDS];
  StEvent ev;
  StSampleMemory mem;
} Stack;

/* A stack copy of STACK_WORDS words at STACK_SP, word I = 0x1000 + I,
   of a process that maps nothing (reads outside the copy fail).  */
static void
stack_open (Stack *s)
{
  memset (s, 0, sizeof *s);
  s->processes = st_process_table_new ();
  s->modules = st_module_cache_new (NULL);
  for (guint i = 0; i < STACK_WORDS; i++)
    s->words[i] = 0x1000 + i;
  s->ev.kind = ST_EVENT_STACK_USER;
  s->ev.stack.abi = ST_REGS_ABI_64;
  s->ev.stack.stack = (const uint8_t *) s->words;
  s->ev.stack.stack_size = sizeof s->words;
}

static StSampleMemory *
stack_memory (Stack *s)
{
  st_sample_memory_init (&s->mem, &s->ev, STACK_SP,
                         st_process_table_get (s->processes, 7), s->modules);
  return &s->mem;
}

static void
stack_close (Stack *s)
{
  st_module_cache_free (s->modules);
  st_process_table_free (s->processes);
}

#define RBP (1u << 6)
#define RSP (1u << 7)

static gboolean
step (Stack *s, uint32_t set, uint64_t rbp, uint64_t rsp, StFrameRegs *next,
      uint64_t *pc)
{
  const StFastArch *a = st_fast_arch (EM_X86_64);
  StFrameRegs cur = { .set = set };

  cur.regs[6] = rbp;
  cur.regs[7] = rsp;
  memset (next, 0xaa, sizeof *next);
  *pc = 0xdead;
  StNoCfiFrame frame = { .pc = 0x4000, .leaf = FALSE };
  return a->no_cfi_step (&cur, &frame, next, stack_memory (s), pc);
}

static void
test_x86_64_no_cfi_step (void)
{
  Stack s;
  StFrameRegs next;
  uint64_t pc;

  stack_open (&s);
  /* A frame at rbp = word 2: the caller's rbp is word 2, the return
     address word 3, the caller's rsp rbp + 16; nothing else known.  */
  g_assert_true (step (&s, RBP | RSP, STACK_SP + 16, STACK_SP, &next, &pc));
  g_assert_cmphex (pc, ==, 0x1003);
  g_assert_cmphex (next.set, ==, RBP | RSP);
  g_assert_cmphex (next.regs[6], ==, 0x1002);
  g_assert_cmphex (next.regs[7], ==, STACK_SP + 32);
  g_assert_false (s.mem.failed_read);

  /* The callee's rsp unknown: taken as 0, the frame is accepted.  */
  g_assert_true (step (&s, RBP, STACK_SP + 16, 0, &next, &pc));
  g_assert_cmphex (pc, ==, 0x1003);

  /* No rbp, or rbp 0: no step, no read.  */
  g_assert_false (step (&s, RSP, STACK_SP + 16, STACK_SP, &next, &pc));
  g_assert_false (step (&s, RBP | RSP, 0, STACK_SP, &next, &pc));
  g_assert_false (s.mem.failed_read);

  /* The saved rbp unreadable (below the copy), the return address
     readable (word 0): the caller's rbp is 0.  */
  g_assert_true (step (&s, RBP | RSP, STACK_SP - 8, STACK_SP - 16, &next,
                       &pc));
  g_assert_cmphex (pc, ==, 0x1000);
  g_assert_cmphex (next.regs[6], ==, 0);
  g_assert_cmphex (next.regs[7], ==, STACK_SP + 8);
  g_assert_true (s.mem.failed_read);

  /* The return address beyond the copy: no step.  */
  g_assert_false (step (&s, RBP | RSP, STACK_SP + 8 * (STACK_WORDS - 1),
                        STACK_SP, &next, &pc));
  g_assert_true (s.mem.failed_past_stack);

  /* The caller's rsp must lie above the callee's: equal or below is no
     frame.  */
  g_assert_false (step (&s, RBP | RSP, STACK_SP + 16, STACK_SP + 32, &next,
                        &pc));
  g_assert_false (step (&s, RBP | RSP, STACK_SP + 16, STACK_SP + 40, &next,
                        &pc));
  g_assert_true (step (&s, RBP | RSP, STACK_SP + 16, STACK_SP + 31, &next,
                       &pc));

  /* A misaligned rbp: the words at rbp and rbp + 8 as they lie.  */
  uint64_t want_fp, want_ra;
  memcpy (&want_fp, (const uint8_t *) s.words + 4, 8);
  memcpy (&want_ra, (const uint8_t *) s.words + 12, 8);
  g_assert_true (step (&s, RBP | RSP, STACK_SP + 4, STACK_SP, &next, &pc));
  g_assert_cmphex (next.regs[6], ==, want_fp);
  g_assert_cmphex (pc, ==, want_ra);
  g_assert_cmphex (next.regs[7], ==, STACK_SP + 20);

  /* A loop: the saved rbp is rbp itself.  The first step is taken; the
     next, from the caller's rsp = rbp + 16, does not move up: no
     frame.  */
  s.words[2] = STACK_SP + 16;
  g_assert_true (step (&s, RBP | RSP, STACK_SP + 16, STACK_SP, &next, &pc));
  g_assert_cmphex (next.regs[6], ==, STACK_SP + 16);
  StFrameRegs again;
  g_assert_false (step (&s, next.set, next.regs[6], next.regs[7], &again,
                        &pc));
  s.words[2] = 0x1002;

  /* rbp at the top of the address space: rbp + 8 wraps, unreadable.  */
  g_assert_false (step (&s, RBP | RSP, G_MAXUINT64 - 7, STACK_SP, &next,
                        &pc));
  stack_close (&s);
}

/* --- aarch64 and i386 without CFI --------------------------------------- */

#define CODE_SP 0x10000ull

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  uint8_t bytes[1024];          /* the first 256 the stack copy, but
                                   for the signal frames' tests */
  StEvent ev;
  StSampleMemory mem;
} Image;

/* A stack copy of 256 bytes at CODE_SP, of ABI ABI, in which the test
   also puts code.  */
static StSampleMemory *
image_open (Image *im, uint32_t abi)
{
  memset (im, 0, sizeof *im);
  im->processes = st_process_table_new ();
  im->modules = st_module_cache_new (NULL);
  im->ev.kind = ST_EVENT_STACK_USER;
  im->ev.stack.abi = abi;
  im->ev.stack.stack = im->bytes;
  im->ev.stack.stack_size = 256;
  st_sample_memory_init (&im->mem, &im->ev, CODE_SP,
                         st_process_table_get (im->processes, 7),
                         im->modules);
  return &im->mem;
}

static void
image_close (Image *im)
{
  st_module_cache_free (im->modules);
  st_process_table_free (im->processes);
}

static void
put32 (Image *im, uint64_t addr, uint32_t v)
{
  memcpy (im->bytes + (addr - CODE_SP), &v, 4);
}

static void
put64 (Image *im, uint64_t addr, uint64_t v)
{
  memcpy (im->bytes + (addr - CODE_SP), &v, 8);
}

/* A64: ret; nop; stp x29, x30, [sp, #-32]!; mov x29, sp;
   sub sp, sp, #16; bl; nop, from CODE + 0.  */
#define A64_RET 0xd65f03c0u
#define A64_NOP 0xd503201fu
#define A64_STP_FP_LR_PRE_32 0xa9be7bfdu
#define A64_MOV_FP_SP 0x910003fdu
#define A64_SUB_SP_16 0xd10043ffu
#define A64_BL 0x94000010u
#define A64_LDP_FP_LR_POST_32 0xa8c27bfdu
#define A64_BR_X17 0xd61f0220u
#define A64_ADRP_X16 0x90000090u
#define A64_LDR_X17 0xf9400211u

static gboolean
a64_step (StSampleMemory *mem, uint64_t pc, gboolean leaf, uint64_t sp,
          uint64_t x29, uint64_t x30, StFrameRegs *next, uint64_t *ra)
{
  const StFastArch *a = st_fast_arch (EM_AARCH64);
  StFrameRegs cur = { .set = (1u << 29) | (1u << 30) | (1u << 31) };
  StNoCfiFrame frame = { pc, leaf, NULL, NULL };

  cur.regs[29] = x29;
  cur.regs[30] = x30;
  cur.regs[31] = sp;
  *ra = 0;
  return a->no_cfi_step (&cur, &frame, next, mem, ra);
}

static void
test_aarch64_no_cfi_step (void)
{
  const StFastArch *a = st_fast_arch (EM_AARCH64);
  Image im;
  StSampleMemory *mem = image_open (&im, ST_REGS_ABI_64);
  StFrameRegs next;
  uint64_t ra;
  /* Code at CODE_SP + 128, the stack below it.  */
  const uint64_t code = CODE_SP + 128, sp = CODE_SP + 16;

  g_assert_cmpuint (a->n_regs, ==, 32);
  g_assert_cmpuint (a->ra, ==, 30);
  g_assert_cmpuint (a->sp, ==, 31);
  g_assert_cmpuint (a->fp, ==, 29);
  /* A signed return address loses its authentication code.  */
  g_assert_cmphex (UINT64_C (0x002a00000040a1b4) & a->ra_mask, ==,
                   0x40a1b4);

  /* A PLT stub after the previous one's "br x17": x30 and sp are the
     caller's, in frame 0 only.  */
  put32 (&im, code, A64_BR_X17);
  put32 (&im, code + 4, A64_ADRP_X16);
  put32 (&im, code + 8, A64_LDR_X17);
  g_assert_true (a64_step (mem, code + 8, TRUE, sp, 0x777, 0x401234, &next,
                           &ra));
  g_assert_cmphex (ra, ==, 0x401234);
  g_assert_cmphex (next.regs[31], ==, sp);
  g_assert_cmphex (next.regs[29], ==, 0x777);
  g_assert_false (next.set & (1u << 30));
  g_assert_false (a64_step (mem, code + 8, FALSE, sp, 0x777, 0x401234,
                            &next, &ra));
  /* x30 zero (_start): the outermost frame.  */
  g_assert_false (a64_step (mem, code + 8, TRUE, sp, 0x777, 0, &next, &ra));

  /* A function after "ret": before its prologue, x30; after
     "stp x29, x30, [sp, #-32]!; mov x29, sp; sub sp, sp, #16", the frame
     record at sp + 16 gives x29 and the return address, the caller's sp
     is the record + 32; not fooled by x29 (any value).  */
  put32 (&im, code, A64_RET);
  put32 (&im, code + 4, A64_STP_FP_LR_PRE_32);
  put32 (&im, code + 8, A64_MOV_FP_SP);
  put32 (&im, code + 12, A64_SUB_SP_16);
  put32 (&im, code + 16, A64_BL);
  put32 (&im, code + 20, A64_LDP_FP_LR_POST_32);
  put32 (&im, code + 24, A64_RET);
  put64 (&im, sp + 16, 0xf00d);          /* saved x29 */
  put64 (&im, sp + 24, 0x402000);        /* saved x30 */
  g_assert_true (a64_step (mem, code + 4, TRUE, sp, 1, 0x401111, &next,
                           &ra));
  g_assert_cmphex (ra, ==, 0x401111);
  for (int leaf = 0; leaf < 2; leaf++)
    {
      /* A caller frame returns after the bl; frame 0 may sit on it.  */
      g_assert_true (a64_step (mem, code + (leaf ? 16 : 20), leaf, sp, 0xdead,
                               0x401111, &next, &ra));
      g_assert_cmphex (ra, ==, 0x402000);
      g_assert_cmphex (next.regs[29], ==, 0xf00d);
      g_assert_cmphex (next.regs[31], ==, sp + 16 + 32);
    }
  /* Right after "stp": the record is at sp.  */
  g_assert_true (a64_step (mem, code + 8, TRUE, sp + 16, 0xdead, 0x401111,
                           &next, &ra));
  g_assert_cmphex (ra, ==, 0x402000);
  g_assert_cmphex (next.regs[31], ==, sp + 16 + 32);
  /* After the epilogue's "ldp x29, x30, [sp], #32" (once "add sp" undid
     the sub): x30 again.  */
  put32 (&im, code + 16, 0x910043ffu);   /* add sp, sp, #16 */
  g_assert_true (a64_step (mem, code + 24, TRUE, sp + 48, 0xf00d, 0x402000,
                           &next, &ra));
  g_assert_cmphex (ra, ==, 0x402000);
  g_assert_cmphex (next.regs[31], ==, sp + 48);
  g_assert_false (mem->failed_read);
  image_close (&im);
}

static gboolean
i386_step (StSampleMemory *mem, uint64_t pc, gboolean leaf, uint64_t esp,
           uint64_t ebp, StFrameRegs *next, uint64_t *ra)
{
  const StFastArch *a = st_fast_arch (EM_386);
  StFrameRegs cur = { .set = (1u << 4) | (1u << 5) };
  StNoCfiFrame frame = { pc, leaf, NULL, NULL };

  cur.regs[4] = esp;
  cur.regs[5] = ebp;
  *ra = 0;
  return a->no_cfi_step (&cur, &frame, next, mem, ra);
}

static void
test_i386_no_cfi_step (void)
{
  const StFastArch *a = st_fast_arch (EM_386);
  Image im;
  StSampleMemory *mem = image_open (&im, ST_REGS_ABI_32);
  StFrameRegs next;
  uint64_t ra;
  const uint64_t code = CODE_SP + 128, esp = CODE_SP + 16;

  g_assert_cmpuint (a->n_regs, ==, 9);
  g_assert_cmpuint (a->ra, ==, 8);
  g_assert_cmpuint (a->elf_class, ==, ELFCLASS32);
  put32 (&im, esp, 0x8049123);           /* return address at the top */
  put32 (&im, esp + 4, 0x8049456);
  put32 (&im, esp + 8, 0x8049789);

  /* __x86.get_pc_thunk.bx: mov (%esp), %ebx; ret.  */
  put32 (&im, code, 0xc3241c8bu);
  g_assert_true (i386_step (mem, code, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049123);
  g_assert_cmphex (next.regs[4], ==, esp + 4);
  g_assert_cmphex (next.regs[5], ==, 0x999);
  g_assert_true (i386_step (mem, code + 3, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049123);

  /* push %ebp; mov %esp, %ebp: before the push, the top; after it, one
     word up, ebp at the top.  */
  put32 (&im, code + 16, 0x53e58955u);
  g_assert_true (i386_step (mem, code + 16, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049123);
  g_assert_true (i386_step (mem, code + 17, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049456);
  g_assert_cmphex (next.regs[5], ==, 0x8049123);
  g_assert_cmphex (next.regs[4], ==, esp + 8);

  /* _fini after its "push %ebx": sub $8, %esp; call; add $8, %esp;
     pop %ebx; ret -- the return address one word above esp.  */
  const uint8_t fini[] = { 0x83, 0xec, 0x08, 0xe8, 0, 0, 0, 0, 0x83, 0xc4,
                           0x08, 0x5b, 0xc3 };
  memcpy (im.bytes + (code + 32 - CODE_SP), fini, sizeof fini);
  g_assert_true (i386_step (mem, code + 32, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049456);
  g_assert_cmphex (next.regs[4], ==, esp + 8);

  /* __kernel_vsyscall (arch/x86/entry/vdso/vdso32/system_call.S, its
     int $0x80 path): push %ecx; push %edx; push %ebp; int $0x80;
     pop %ebp; pop %edx; pop %ecx; ret.  At its entry the return
     address is at the top; at the landing pad after the int, three
     words up.  */
  const uint8_t vsyscall[] = { 0x51, 0x52, 0x55, 0xcd, 0x80, 0x5d, 0x5a,
                               0x59, 0xc3 };
  memcpy (im.bytes + (code + 64 - CODE_SP), vsyscall, sizeof vsyscall);
  g_assert_true (i386_step (mem, code + 64, TRUE, esp, 0x999, &next, &ra));
  g_assert_cmphex (ra, ==, 0x8049123);
  g_assert_cmphex (next.regs[4], ==, esp + 4);
  g_assert_true (i386_step (mem, code + 65, TRUE, esp - 4, 0x999, &next,
                            &ra));
  g_assert_cmphex (ra, ==, 0x8049123);
  /* Its "push %ebp" is not a prologue's: two words are pushed.  */
  g_assert_true (i386_step (mem, code + 66, TRUE, esp - 8, 0x999, &next,
                            &ra));
  g_assert_cmphex (ra, ==, 0x8049123);
  g_assert_cmphex (next.regs[4], ==, esp + 4);
  /* At the pad, the caller's ebp is where "pop %ebp" takes it.  */
  put32 (&im, esp - 12, 0x4321);
  for (unsigned at = 67; at <= 69; at += 2)     /* the int, the pad */
    {
      g_assert_true (i386_step (mem, code + at, TRUE, esp - 12, 0x999, &next,
                                &ra));
      g_assert_cmphex (ra, ==, 0x8049123);
      g_assert_cmphex (next.regs[4], ==, esp + 4);
      g_assert_cmphex (next.regs[5], ==, 0x4321);
    }
  put32 (&im, esp - 12, 0);

  /* glibc's i586 memcpy from its "push %eax" to its "ret" (its CFI
     leaves the push out): mov %ecx,%eax; shr $2,%ecx; and $3,%eax;
     rep movsl; mov %eax,%ecx; rep movsb; pop %eax; mov %eax,%edi;
     mov %edx,%esi; mov 4(%esp),%eax; ret.  code_to_ret, which the walk
     takes where frame 0's CFI gives no return address in a module,
     reads it too.  */
  const uint8_t memcpy_tail[] = { 0x50, 0x89, 0xc8, 0xc1, 0xe9, 0x02, 0x83,
                                  0xe0, 0x03, 0xf3, 0xa5, 0x89, 0xc1, 0xf3,
                                  0xa4, 0x58, 0x89, 0xc7, 0x89, 0xd6, 0x8b,
                                  0x44, 0x24, 0x04, 0xc3 };
  const uint64_t tail = code + 96;
  memcpy (im.bytes + (tail - CODE_SP), memcpy_tail, sizeof memcpy_tail);
  static const unsigned starts[] = { 0, 1, 3, 6, 9, 11, 13, 15, 16, 18,
                                     20, 24 };
  StFrameRegs cur = { .set = (1u << 4) | (1u << 5) };
  cur.regs[5] = 0x999;
  for (unsigned i = 0; i < G_N_ELEMENTS (starts); i++)
    {
      /* Between the push and the pop, the return address a word up.  */
      cur.regs[4] = starts[i] >= 1 && starts[i] <= 15 ? esp - 4 : esp;
      ra = 0;
      g_assert_true (a->code_to_ret (&cur, tail + starts[i], mem, &next,
                                     &ra));
      g_assert_cmphex (ra, ==, 0x8049123);
      g_assert_cmphex (next.regs[4], ==, esp + 4);
    }
  /* A jump before the "ret": not followed.  */
  put32 (&im, tail - 4, 0xc3587401u);   /* je .+1; pop %eax; ret */
  cur.regs[4] = esp - 4;
  g_assert_false (a->code_to_ret (&cur, tail - 4, mem, &next, &ra));
  g_assert_null (st_fast_arch (EM_X86_64)->code_to_ret);
  g_assert_null (st_fast_arch (EM_AARCH64)->code_to_ret);

  /* Elsewhere, or in a caller: the ebp chain.  */
  g_assert_true (i386_step (mem, code + 16, FALSE, esp - 8, esp, &next,
                            &ra));
  g_assert_cmphex (ra, ==, 0x8049456);
  g_assert_cmphex (next.regs[5], ==, 0x8049123);
  g_assert_cmphex (next.regs[4], ==, esp + 8);
  g_assert_false (i386_step (mem, code + 16, FALSE, esp, 0, &next, &ra));
  image_close (&im);
}

/* --- signal frames ------------------------------------------------------ */

/* The whole 1 KiB as the stack copy.  */
static StSampleMemory *
image_open_large (Image *im, uint32_t abi)
{
  image_open (im, abi);
  im->ev.stack.stack_size = sizeof im->bytes;
  st_sample_memory_init (&im->mem, &im->ev, CODE_SP,
                         st_process_table_get (im->processes, 7),
                         im->modules);
  return &im->mem;
}

/* aarch64: the rt_sigframe at sp, laid out as the kernel's
   arch/arm64/kernel/signal.c does (a 128-byte siginfo, the ucontext's
   uc_mcontext 176 bytes into it: fault_address, x0..x30, sp, pc), and
   the vDSO's "mov x8, #139; svc #0".  */
static void
test_aarch64_signal_frame (void)
{
  Image im;
  StSampleMemory *mem = image_open_large (&im, ST_REGS_ABI_64);
  const StFastArch *a = st_fast_arch (EM_AARCH64);
  const uint64_t tramp = CODE_SP + 0x380, sc = CODE_SP + 128 + 176;
  StFrameRegs cur = { .set = 1u << 31 }, next;
  uint64_t pc;

  put32 (&im, tramp, 0xd2801168u);
  put32 (&im, tramp + 4, 0xd4000001u);
  for (unsigned r = 0; r < 31; r++)
    put64 (&im, sc + 8 + 8 * r, 0x100 + r);
  put64 (&im, sc + 8 + 31 * 8, 0x7000);        /* sp */
  put64 (&im, sc + 8 + 32 * 8, 0x4242);        /* pc */
  cur.regs[31] = CODE_SP;

  /* Returned into (at the mov), and sampled at the svc.  */
  for (unsigned at = 0; at <= 4; at += 4)
    {
      memset (&next, 0, sizeof next);
      g_assert_true (a->signal_frame (&cur, tramp + at, mem, &next, &pc));
      g_assert_cmphex (pc, ==, 0x4242);
      g_assert_cmphex (next.set, ==, 0xffffffffu);
      g_assert_cmphex (next.regs[31], ==, 0x7000);
      g_assert_cmphex (next.regs[30], ==, 0x100 + 30);
      g_assert_cmphex (next.regs[0], ==, 0x100);
    }
  /* Not the trampoline: past it, or the mov without the svc.  */
  g_assert_false (a->signal_frame (&cur, tramp + 8, mem, &next, &pc));
  put32 (&im, tramp + 4, A64_NOP);
  g_assert_false (a->signal_frame (&cur, tramp, mem, &next, &pc));
  /* No stack pointer: nothing to read.  */
  put32 (&im, tramp + 4, 0xd4000001u);
  cur.set = 0;
  g_assert_false (a->signal_frame (&cur, tramp, mem, &next, &pc));
  image_close (&im);
}

/* i386: struct sigcontext_32's registers (edi esi ebp esp ebx edx ecx
   eax at 16..44, eip at 56) at SC.  */
static void
put_sigcontext_32 (Image *im, uint64_t sc)
{
  static const unsigned offset[] = { 44, 40, 36, 32, 28, 24, 20, 16 };
  for (unsigned r = 0; r < 8; r++)
    put32 (im, sc + offset[r], 0x200 + r);
  put32 (im, sc + 56, 0x8048123);
}

static void
check_i386_signal (StSampleMemory *mem, uint64_t esp, uint64_t at)
{
  const StFastArch *a = st_fast_arch (EM_386);
  StFrameRegs cur = { .set = 1u << 4 }, next;
  uint64_t pc;

  cur.regs[4] = esp;
  memset (&next, 0, sizeof next);
  g_assert_true (a->signal_frame (&cur, at, mem, &next, &pc));
  g_assert_cmphex (pc, ==, 0x8048123);
  g_assert_cmphex (next.set, ==, 0x1ff);
  g_assert_cmphex (next.regs[8], ==, 0x8048123);
  for (unsigned r = 0; r < 8; r++)
    g_assert_cmphex (next.regs[r], ==, 0x200 + r);
}

/* i386: sigreturn ("pop %eax; mov $119, %eax; int $0x80": the
   sigcontext past the signal number until the pop has run) and
   rt_sigreturn ("mov $173, %eax; int $0x80": the ucontext through the
   frame's puc pointer, its uc_mcontext 20 bytes in), as the kernel's
   sigframe_ia32 and rt_sigframe_ia32 lay them out.  */
static void
test_i386_signal_frame (void)
{
  static const uint8_t sigreturn[] = { 0x58, 0xb8, 0x77, 0, 0, 0, 0xcd, 0x80 };
  static const uint8_t rt_sigreturn[] = { 0xb8, 0xad, 0, 0, 0, 0xcd, 0x80 };
  Image im;
  StSampleMemory *mem = image_open_large (&im, ST_REGS_ABI_32);
  const StFastArch *a = st_fast_arch (EM_386);
  const uint64_t tramp = CODE_SP + 0x380, rt_tramp = CODE_SP + 0x390;
  const uint64_t esp = CODE_SP + 0x10;
  StFrameRegs cur = { .set = 1u << 4 }, next;
  uint64_t pc;

  memcpy (im.bytes + (tramp - CODE_SP), sigreturn, sizeof sigreturn);
  memcpy (im.bytes + (rt_tramp - CODE_SP), rt_sigreturn,
          sizeof rt_sigreturn);

  /* sigreturn: returned into (esp at sig), after the pop, at the int.  */
  put_sigcontext_32 (&im, esp + 4);
  check_i386_signal (mem, esp, tramp);
  check_i386_signal (mem, esp + 4, tramp + 1);
  check_i386_signal (mem, esp + 4, tramp + 6);

  /* rt_sigreturn: sig, pinfo, puc at esp + 8.  */
  const uint64_t uc = CODE_SP + 0x100;
  memset (im.bytes, 0, 0x300);
  put32 (&im, esp + 8, (uint32_t) uc);
  put_sigcontext_32 (&im, uc + 20);
  check_i386_signal (mem, esp, rt_tramp);
  check_i386_signal (mem, esp, rt_tramp + 5);

  /* Elsewhere in the code: not a signal frame.  */
  cur.regs[4] = esp;
  g_assert_false (a->signal_frame (&cur, tramp + 2, mem, &next, &pc));
  g_assert_false (a->signal_frame (&cur, rt_tramp + 1, mem, &next, &pc));
  image_close (&im);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#if defined __x86_64__ || defined __i386__
  g_test_add_func ("/arch/layout-x86-64", test_layout_x86_64);
  g_test_add_func ("/arch/layout-i386", test_layout_i386);
#endif
  g_test_add_func ("/arch/layout-aarch64", test_layout_aarch64);
  g_test_add_func ("/arch/lookup", test_lookup);
  g_test_add_func ("/arch/guess", test_guess);
  g_test_add_func ("/arch/x86-64-columns", test_x86_64_columns);
  g_test_add_func ("/arch/x86-64-initial-cfi", test_x86_64_initial_cfi);
  g_test_add_func ("/arch/x86-64-no-cfi-step", test_x86_64_no_cfi_step);
  g_test_add_func ("/arch/aarch64-no-cfi-step", test_aarch64_no_cfi_step);
  g_test_add_func ("/arch/i386-no-cfi-step", test_i386_no_cfi_step);
  g_test_add_func ("/arch/aarch64-signal-frame", test_aarch64_signal_frame);
  g_test_add_func ("/arch/i386-signal-frame", test_i386_signal_frame);
  return g_test_run ();
}
