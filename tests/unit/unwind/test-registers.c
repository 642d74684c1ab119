/* Unit tests: perf -> DWARF register mapping and compacted register
   arrays.  */
#include "config.h"

#include <elf.h>

#include "unwind/registers.h"

static void
test_x86_64 (void)
{
  const StRegisterLayout *l = st_register_layout (EM_X86_64);

  g_assert_nonnull (l);
  g_assert_cmpint (l->perf_ip, ==, 8);
  g_assert_cmpint (l->perf_sp, ==, 7);
  /* DWARF rdx (1) is perf DX (3), rbx (3) is perf BX (1), r8 (8) is 16.  */
  g_assert_cmpint (l->perf_of_dwarf[1], ==, 3);
  g_assert_cmpint (l->perf_of_dwarf[3], ==, 1);
  g_assert_cmpint (l->perf_of_dwarf[7], ==, 7);
  g_assert_cmpint (l->perf_of_dwarf[8], ==, 16);
  g_assert_cmpint (l->perf_of_dwarf[15], ==, 23);
}

static void
test_i386 (void)
{
  const StRegisterLayout *l = st_register_layout (EM_386);
  static const int8_t expect[8] = { 0, 2, 3, 1, 7, 6, 4, 5 };

  g_assert_nonnull (l);
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (l->perf_of_dwarf[i], ==, expect[i]);
  g_assert_null (st_register_layout (EM_MIPS));
}

static void
test_compacted (void)
{
  /* perf 6.1's --call-graph=dwarf mask: AX..SS and R8..R15 (20 registers).  */
  uint64_t regs[20];
  StEvent ev = { 0 };

  for (int i = 0; i < 20; i++)
    regs[i] = 100 + i;
  ev.kind = ST_EVENT_STACK_USER;
  ev.stack.regs_mask = 0xff0fffull;
  ev.stack.regs = regs;
  ev.stack.n_regs = 20;

  uint64_t v;
  g_assert_true (st_event_register (&ev, 8, &v));
  g_assert_cmpuint (v, ==, 108);
  /* R8 (16) comes right after SS (11) in the compacted array.  */
  g_assert_true (st_event_register (&ev, 16, &v));
  g_assert_cmpuint (v, ==, 112);
  g_assert_true (st_event_register (&ev, 23, &v));
  g_assert_cmpuint (v, ==, 119);
  g_assert_false (st_event_register (&ev, 12, &v));
  g_assert_false (st_event_register (&ev, 64, &v));

  /* A short array never reads past its end.  */
  ev.stack.n_regs = 5;
  g_assert_false (st_event_register (&ev, 8, &v));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/registers/x86-64", test_x86_64);
  g_test_add_func ("/registers/i386", test_i386);
  g_test_add_func ("/registers/compacted", test_compacted);
  return g_test_run ();
}
