/* One sample's context (unwind/sample-context.h), on samples built here:

   - the registers it decodes, in each architecture's DWARF numbering,
     are those st_event_register reads one by one, with the PC in the
     PC column; a short or partial register array gives exactly the
     registers that are there; a sample without its PC or stack pointer
     does not start;
   - the register map is computed once per (layout, mask, count) and
     found again after other masks filled the table;
   - another layout started on the same context decodes again;
   - the memory is set up once; a new walk forgets the last one's
     failed reads and frames;
   - the guess of the sampled PC for a process of unknown architecture
     follows st_register_layout_guess.  */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "model/process-table.h"
#include "unwind/sample-context.h"

#define SP 0x7ffc1000ull

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  StProcess *process;
  uint64_t regs[64];
  uint8_t stack[64];
  StEvent ev;
  StRegisterMaps maps;
  StSampleContext c;
} Sample;

/* A sample of MASK with N_REGS values (100 + I), its stack pointer
   perf register SP_REG set to SP, its IP register IP_REG to 0x401000.  */
static void
sample_open (Sample *s, uint32_t abi, uint64_t mask, uint32_t n_regs,
             int sp_reg, int ip_reg)
{
  memset (s, 0, sizeof *s);
  s->processes = st_process_table_new ();
  s->modules = st_module_cache_new (NULL);
  s->process = st_process_table_get (s->processes, 42);
  s->ev.kind = ST_EVENT_STACK_USER;
  s->ev.stack.abi = abi;
  s->ev.stack.regs_mask = mask;
  s->ev.stack.regs = s->regs;
  s->ev.stack.n_regs = n_regs;
  s->ev.stack.stack = s->stack;
  s->ev.stack.stack_size = sizeof s->stack;
  guint index = 0;
  for (int r = 0; r < 64; r++)
    if (mask & (1ull << r))
      {
        s->regs[index] = r == sp_reg ? SP : r == ip_reg ? 0x401000 : 100 + r;
        index++;
      }
  st_register_maps_init (&s->maps);
  st_sample_context_init (&s->c, &s->maps, s->process, &s->ev, s->modules);
}

static void
sample_close (Sample *s)
{
  st_module_cache_free (s->modules);
  st_process_table_free (s->processes);
}

/* The context's registers against st_event_register's, one by one.  */
static void
check_decoded (Sample *s, const StRegisterLayout *l)
{
  const StFrameRegs *regs = st_sample_context_registers (&s->c);
  uint64_t want, pc;

  g_assert_true (st_event_register (&s->ev, l->perf_ip, &pc));
  g_assert_cmpuint (s->c.pc, ==, pc);
  for (guint i = 0; i < ST_FRAME_MAX_REGS; i++)
    {
      gboolean sampled = i < l->n_dwarf && l->perf_of_dwarf[i] >= 0
                         && st_event_register (&s->ev, l->perf_of_dwarf[i],
                                               &want);
      if ((int) i == l->dwarf_pc)
        {
          sampled = TRUE;
          want = pc;
        }
      g_assert_cmpint (!!(regs->set & (1u << i)), ==, sampled);
      if (sampled)
        g_assert_cmpuint (regs->regs[i], ==, want);
      uint64_t one;
      if (i < l->n_dwarf && (int) i != l->dwarf_pc)
        {
          g_assert_cmpint (st_sample_context_register (&s->c, i, &one), ==,
                           sampled);
          if (sampled)
            g_assert_cmpuint (one, ==, want);
        }
    }
}

static void
test_x86_64 (void)
{
  Sample s;
  const StRegisterLayout *l = st_register_layout (EM_X86_64);

  /* perf 6.1's --call-graph=dwarf mask: AX..SS and R8..R15.  */
  sample_open (&s, ST_REGS_ABI_64, 0xff0fffull, 20, 7, 8);
  g_assert_true (st_sample_context_start (&s.c, l));
  g_assert_cmpuint (s.c.sp, ==, SP);
  g_assert_cmpuint (s.c.pc, ==, 0x401000);
  check_decoded (&s, l);
  /* rsp is DWARF 7.  */
  g_assert_cmpuint (s.c.map->dwarf_sp, ==, 7);
  sample_close (&s);

  /* Registers left out of the mask, and an array shorter than it.  */
  sample_open (&s, ST_REGS_ABI_64, 0xff01ffull & ~(1ull << 3), 14, 7, 8);
  g_assert_true (st_sample_context_start (&s.c, l));
  check_decoded (&s, l);
  sample_close (&s);

  /* No IP in a short array: no start, as st_event_register reads it.  */
  sample_open (&s, ST_REGS_ABI_64, 0xff0fffull, 8, 7, 8);
  g_assert_false (st_sample_context_start (&s.c, l));
  /* (Asked again: the same answer, from the context.)  */
  g_assert_false (st_sample_context_start (&s.c, l));
  sample_close (&s);
}

static void
test_i386_aarch64 (void)
{
  Sample s;
  const StRegisterLayout *i386 = st_register_layout (EM_386);
  const StRegisterLayout *aarch64 = st_register_layout (EM_AARCH64);

  sample_open (&s, ST_REGS_ABI_32, 0xffffull, 16, 7, 8);
  g_assert_true (st_sample_context_start (&s.c, i386));
  check_decoded (&s, i386);
  sample_close (&s);

  /* x0..x30, sp (31), pc (32).  */
  sample_open (&s, ST_REGS_ABI_64, (1ull << 33) - 1, 33, 31, 32);
  g_assert_true (st_sample_context_start (&s.c, aarch64));
  check_decoded (&s, aarch64);
  g_assert_cmpuint (s.c.map->dwarf_sp, ==, 31);
  sample_close (&s);
}

static void
test_map_cache (void)
{
  Sample s;
  const StRegisterLayout *l = st_register_layout (EM_X86_64);

  sample_open (&s, ST_REGS_ABI_64, 0xff0fffull, 20, 7, 8);
  g_assert_true (st_sample_context_start (&s.c, l));
  const StRegisterMap *first = s.c.map;
  /* Another sample of the same mask: the same map, none computed.  */
  st_sample_context_init (&s.c, &s.maps, s.process, &s.ev, s.modules);
  g_assert_true (st_sample_context_start (&s.c, l));
  g_assert_true (s.c.map == first);
  g_assert_cmpuint (s.maps.next, ==, 1);

  /* More masks than the table holds: each still decoded right.  */
  static const uint64_t masks[] = { 0x1ff, 0x3ff, 0x7ff, 0xfff, 0xff0fff };
  for (guint round = 0; round < 2; round++)
    for (guint i = 0; i < G_N_ELEMENTS (masks); i++)
      {
        s.ev.stack.regs_mask = masks[i];
        s.ev.stack.n_regs = __builtin_popcountll (masks[i]);
        st_sample_context_init (&s.c, &s.maps, s.process, &s.ev, s.modules);
        g_assert_true (st_sample_context_start (&s.c, l));
        check_decoded (&s, l);
      }
  sample_close (&s);
}

static void
test_other_layout (void)
{
  Sample s;

  /* A 64-bit sample with aarch64's registers read first as x86_64's
     (as a process whose modules tell nothing else might), then as
     aarch64's: decoded again, the stack pointer now perf's 31.  */
  sample_open (&s, ST_REGS_ABI_64, (1ull << 33) - 1, 33, 31, 32);
  g_assert_true (st_sample_context_start (&s.c,
                                          st_register_layout (EM_X86_64)));
  g_assert_cmpuint (s.c.sp, ==, 107);
  StSampleMemory *mem = st_sample_context_memory (&s.c);
  g_assert_cmpuint (mem->sp, ==, 107);
  check_decoded (&s, st_register_layout (EM_X86_64));
  g_assert_true (st_sample_context_start (&s.c,
                                          st_register_layout (EM_AARCH64)));
  g_assert_cmpuint (s.c.sp, ==, SP);
  check_decoded (&s, st_register_layout (EM_AARCH64));
  /* The memory follows the stack pointer.  */
  mem = st_sample_context_memory (&s.c);
  g_assert_cmpuint (mem->sp, ==, SP);
  sample_close (&s);
}

static void
test_memory (void)
{
  Sample s;
  uint64_t v;

  sample_open (&s, ST_REGS_ABI_64, 0xff0fffull, 20, 7, 8);
  g_assert_true (st_sample_context_start (&s.c,
                                          st_register_layout (EM_X86_64)));
  StSampleMemory *mem = st_sample_context_memory (&s.c);
  g_assert_cmpuint (mem->sp, ==, SP);
  g_assert_cmpuint (mem->stack_size, ==, sizeof s.stack);
  g_assert_true (st_sample_memory_read (mem, SP + 8, &v));
  mem->frame = 3;
  /* Past the copy, in no mapping.  */
  g_assert_false (st_sample_memory_read (mem, SP + 4096, &v));
  g_assert_true (mem->failed_read);
  g_assert_true (mem->failed_past_stack);
  g_assert_cmpuint (mem->failed_at_frame, ==, 3);

  /* The next walk of the sample: the same memory, nothing failed yet.  */
  StSampleMemory *again = st_sample_context_memory (&s.c);
  g_assert_true (again == mem);
  g_assert_false (again->failed_read);
  g_assert_false (again->failed_past_stack);
  g_assert_false (again->unready_read);
  g_assert_cmpuint (again->failed_at_frame, ==, 0);
  g_assert_cmpuint (again->frame, ==, 0);
  g_assert_cmpuint (again->sp, ==, SP);
  sample_close (&s);
}

static void
test_guess (void)
{
  Sample s;
  uint64_t pc, sp;

  /* x86_64's registers.  */
  sample_open (&s, ST_REGS_ABI_64, 0xff0fffull, 20, 7, 8);
  g_assert_true (st_sample_context_guess_pc (&s.c, &pc, &sp));
  g_assert_cmpuint (pc, ==, 0x401000);
  g_assert_cmpuint (sp, ==, SP);
  sample_close (&s);

  /* aarch64's (its PC, 32, is sampled).  */
  sample_open (&s, ST_REGS_ABI_64, (1ull << 33) - 1, 33, 31, 32);
  g_assert_true (st_sample_context_guess_pc (&s.c, &pc, &sp));
  g_assert_cmpuint (pc, ==, 0x401000);
  g_assert_cmpuint (sp, ==, SP);
  sample_close (&s);

  /* The PC without the stack pointer: SP 0.  */
  sample_open (&s, ST_REGS_ABI_64, 0x1ff & ~(1ull << 7), 8, 7, 8);
  g_assert_true (st_sample_context_guess_pc (&s.c, &pc, &sp));
  g_assert_cmpuint (pc, ==, 0x401000);
  g_assert_cmpuint (sp, ==, 0);
  sample_close (&s);

  /* No registers at all.  */
  sample_open (&s, ST_REGS_ABI_NONE, 0, 0, 7, 8);
  g_assert_false (st_sample_context_guess_pc (&s.c, &pc, &sp));
  g_assert_false (st_sample_context_guess_pc (&s.c, &pc, &sp));
  sample_close (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sample-context/x86-64", test_x86_64);
  g_test_add_func ("/sample-context/i386-aarch64", test_i386_aarch64);
  g_test_add_func ("/sample-context/map-cache", test_map_cache);
  g_test_add_func ("/sample-context/other-layout", test_other_layout);
  g_test_add_func ("/sample-context/memory", test_memory);
  g_test_add_func ("/sample-context/guess", test_guess);
  return g_test_run ();
}
