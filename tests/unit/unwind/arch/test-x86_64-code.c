/* x86_64's readings of machine code (unwind/arch/x86_64-call.c and
   x86_64-entry.c), against instruction bytes as the Intel SDM encodes
   them (each checked with objdump when written): every byte form of a
   call, and the entry and exit points of a function.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "unwind/arch/x86_64-code.h"

#define BYTES(...) ((const uint8_t[]) { __VA_ARGS__ }), \
  sizeof ((const uint8_t[]) { __VA_ARGS__ })

/* Whether the bytes end with a call, with junk before them as in code.  */
static gboolean
ends_with_call (const uint8_t *insn, size_t n)
{
  uint8_t buf[32];

  memset (buf, 0x90, sizeof buf);
  memcpy (buf + sizeof buf - n, insn, n);
  return st_x86_64_follows_call (buf, sizeof buf);
}

static void
test_calls (void)
{
  /* call rel32; bnd call rel32.  */
  g_assert_true (ends_with_call (BYTES (0xe8, 0x10, 0x20, 0x30, 0x40)));
  g_assert_true (ends_with_call (BYTES (0xf2, 0xe8, 0, 0, 0, 0)));
  /* call *%rax; call *%r11 (REX.B); notrack call *%rdx.  */
  g_assert_true (ends_with_call (BYTES (0xff, 0xd0)));
  g_assert_true (ends_with_call (BYTES (0x41, 0xff, 0xd3)));
  g_assert_true (ends_with_call (BYTES (0x3e, 0xff, 0xd2)));
  /* call *(%rax); call *0x8(%rax); call *0x100(%rbx).  */
  g_assert_true (ends_with_call (BYTES (0xff, 0x10)));
  g_assert_true (ends_with_call (BYTES (0xff, 0x50, 0x08)));
  g_assert_true (ends_with_call (BYTES (0xff, 0x93, 0, 1, 0, 0)));
  /* call *0x1000(%rip).  */
  g_assert_true (ends_with_call (BYTES (0xff, 0x15, 0, 0x10, 0, 0)));
  /* call *(%rax,%rbx,8); call *0x10(%rsp); call *0x200(%rax,%rcx,1);
     call *0x601000(,%rax,8) (SIB, no base: disp32).  */
  g_assert_true (ends_with_call (BYTES (0xff, 0x14, 0xd8)));
  g_assert_true (ends_with_call (BYTES (0xff, 0x54, 0x24, 0x10)));
  g_assert_true (ends_with_call (BYTES (0xff, 0x94, 0x08, 0, 2, 0, 0)));
  g_assert_true (ends_with_call (BYTES (0xff, 0x14, 0xc5, 0, 0x10, 0x60, 0)));
  /* call *%fs:0x10 (segment prefix, SIB, disp32).  */
  g_assert_true (ends_with_call (BYTES (0x64, 0xff, 0x14, 0x25, 0x10, 0, 0,
                                        0)));
  /* call *0x18(%r12) (REX.B, SIB for r12).  */
  g_assert_true (ends_with_call (BYTES (0x41, 0xff, 0x54, 0x24, 0x18)));

  /* Not calls: jmp *%rax (FF /4), push (%rax) (FF /6), nops, a `ret`,
     a mov; and bytes of a call whose length does not end there.  */
  g_assert_false (ends_with_call (BYTES (0xff, 0xe0)));
  g_assert_false (ends_with_call (BYTES (0xff, 0x30)));
  g_assert_false (ends_with_call (BYTES (0x90)));
  g_assert_false (ends_with_call (BYTES (0xc3)));
  g_assert_false (ends_with_call (BYTES (0x48, 0x89, 0xe5)));
  g_assert_false (ends_with_call (BYTES (0xff, 0x50, 0x08, 0x90)));
  /* Fewer bytes than the form needs (the start of a segment).  */
  g_assert_false (st_x86_64_follows_call ((const uint8_t[]) { 0x10 }, 1));
  g_assert_false (st_x86_64_follows_call ((const uint8_t[]) { 0xff, 0x50 },
                                          1));
}

static gboolean
rule (const uint8_t *code, size_t len, size_t pc_off, StCodeStart start,
      StLeafRule *r)
{
  StLeafCode c = { code, len, pc_off, start };
  return st_x86_64_leaf_rule (&c, r);
}

static void
test_entry_and_exit (void)
{
  /* endbr64; push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; ...  */
  static const uint8_t fp_fn[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
                                   0xe5, 0x48, 0x83, 0xec, 0x10, 0x90 };
  StLeafRule r;

  /* On endbr64, on push: [SP]; after push: [SP + 8], %rbp at [SP].  */
  g_assert_true (rule (fp_fn, sizeof fp_fn, 0, ST_CODE_FUNCTION_START, &r));
  g_assert_cmpint (r.ra_at, ==, 0);
  g_assert_cmpint (r.sp_after, ==, 8);
  g_assert_cmpint (r.fp_at, ==, ST_LEAF_FP_SAME);
  g_assert_false (r.guessed);
  g_assert_true (rule (fp_fn, sizeof fp_fn, 4, ST_CODE_FUNCTION_START, &r));
  g_assert_cmpint (r.ra_at, ==, 0);
  g_assert_true (rule (fp_fn, sizeof fp_fn, 5, ST_CODE_FUNCTION_START, &r));
  g_assert_cmpint (r.ra_at, ==, 8);
  g_assert_cmpint (r.sp_after, ==, 16);
  g_assert_cmpint (r.fp_at, ==, 0);
  /* After the mov: the frame-pointer step.  Inside an instruction: no
     rule.  */
  g_assert_false (rule (fp_fn, sizeof fp_fn, 8, ST_CODE_FUNCTION_START, &r));
  g_assert_false (rule (fp_fn, sizeof fp_fn, 2, ST_CODE_FUNCTION_START, &r));

  /* push %r15; push %r14; push %rbp; push %rbx: after all four, the
     return address at [SP + 32], %rbp at [SP + 8].  */
  static const uint8_t pushes[] = { 0x41, 0x57, 0x41, 0x56, 0x55, 0x53, 0x90 };
  g_assert_true (rule (pushes, sizeof pushes, 6, ST_CODE_FUNCTION_START, &r));
  g_assert_cmpint (r.ra_at, ==, 32);
  g_assert_cmpint (r.sp_after, ==, 40);
  g_assert_cmpint (r.fp_at, ==, 8);
  g_assert_true (rule (pushes, sizeof pushes, 2, ST_CODE_FUNCTION_START, &r));
  g_assert_cmpint (r.ra_at, ==, 8);
  g_assert_cmpint (r.fp_at, ==, ST_LEAF_FP_SAME);

  /* pop %rbx; pop %rbp; pop %r12; ret -- anywhere, known start or not.  */
  static const uint8_t exit_[] = { 0x90, 0x5b, 0x5d, 0x41, 0x5c, 0xc3 };
  g_assert_true (rule (exit_, sizeof exit_, 1, ST_CODE_IN_FUNCTION, &r));
  g_assert_cmpint (r.ra_at, ==, 24);
  g_assert_cmpint (r.sp_after, ==, 32);
  g_assert_cmpint (r.fp_at, ==, 8);
  g_assert_true (rule (exit_, sizeof exit_, 5, ST_CODE_NO_SYMBOL, &r));
  g_assert_cmpint (r.ra_at, ==, 0);
  g_assert_cmpint (r.fp_at, ==, ST_LEAF_FP_SAME);
  g_assert_false (r.guessed);
  /* rep ret.  */
  g_assert_true (rule ((const uint8_t[]) { 0xf3, 0xc3 }, 2, 0,
                       ST_CODE_NO_SYMBOL, &r));
  /* A pop not followed by ret (leave; ret is the frame-pointer step's).  */
  g_assert_false (rule ((const uint8_t[]) { 0x5d, 0x90, 0xc3 }, 3, 0,
                        ST_CODE_IN_FUNCTION, &r));
  g_assert_false (rule ((const uint8_t[]) { 0xc9, 0xc3 }, 2, 0,
                        ST_CODE_IN_FUNCTION, &r));

  /* Without a symbol: guesses at push %rbp; mov %rsp,%rbp.  */
  static const uint8_t guess[] = { 0xcc, 0x55, 0x48, 0x89, 0xe5, 0x90 };
  g_assert_true (rule (guess, sizeof guess, 1, ST_CODE_NO_SYMBOL, &r));
  g_assert_cmpint (r.ra_at, ==, 0);
  g_assert_true (r.guessed);
  g_assert_true (rule (guess, sizeof guess, 2, ST_CODE_NO_SYMBOL, &r));
  g_assert_cmpint (r.ra_at, ==, 8);
  g_assert_cmpint (r.fp_at, ==, 0);
  g_assert_true (r.guessed);
  /* With a symbol saying the PC is far into its function: none.  */
  g_assert_false (rule (guess, sizeof guess, 1, ST_CODE_IN_FUNCTION, &r));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/x86_64-code/calls", test_calls);
  g_test_add_func ("/x86_64-code/entry-and-exit", test_entry_and_exit);
  return g_test_run ();
}
