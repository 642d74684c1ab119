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

/* The kernel's x86 numbering, by the names of both psABIs.  */
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
        g_assert_cmpint (a->fast->machine, ==, known[i]);
    }
  g_assert_true (st_arch (EM_X86_64) == &st_arch_x86_64);
  g_assert_true (st_arch (EM_386) == &st_arch_i386);
  g_assert_true (st_arch (EM_AARCH64) == &st_arch_aarch64);
  g_assert_cmpstr (st_arch_x86_64.registers.name, ==, "x86_64");
  g_assert_cmpstr (st_arch_i386.registers.name, ==, "i386");
  g_assert_cmpstr (st_arch_aarch64.registers.name, ==, "aarch64");
  /* Only x86_64 is walked by the fast engine.  */
  g_assert_nonnull (st_fast_arch (EM_X86_64));
  g_assert_null (st_fast_arch (EM_386));
  g_assert_null (st_fast_arch (EM_AARCH64));

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
  ev.stack.regs_mask = X86_64_MASK;
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_x86_64.registers);
  ev.stack.regs_mask = (1ull << 33) - 1;
  g_assert_true (st_register_layout_guess (&ev)
                 == &st_arch_aarch64.registers);
  /* Only the PC and SP, as a sampler asking for little would.  */
  ev.stack.regs_mask = (1ull << 32) | (1ull << 31);
  g_assert_true (st_register_layout_guess (&ev)
                 == &st_arch_aarch64.registers);
  ev.stack.regs_mask = (1ull << PERF_REG_X86_IP) | (1ull << PERF_REG_X86_SP);
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_x86_64.registers);
  ev.stack.abi = ST_REGS_ABI_32;
  ev.stack.regs_mask = (1ull << PERF_REG_X86_32_MAX) - 1;
  g_assert_true (st_register_layout_guess (&ev) == &st_arch_i386.registers);
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
  return a->no_cfi_step (&cur, next, stack_memory (s), pc);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/arch/layout-x86-64", test_layout_x86_64);
  g_test_add_func ("/arch/layout-i386", test_layout_i386);
  g_test_add_func ("/arch/layout-aarch64", test_layout_aarch64);
  g_test_add_func ("/arch/lookup", test_lookup);
  g_test_add_func ("/arch/guess", test_guess);
  g_test_add_func ("/arch/x86-64-columns", test_x86_64_columns);
  g_test_add_func ("/arch/x86-64-initial-cfi", test_x86_64_initial_cfi);
  g_test_add_func ("/arch/x86-64-no-cfi-step", test_x86_64_no_cfi_step);
  return g_test_run ();
}
