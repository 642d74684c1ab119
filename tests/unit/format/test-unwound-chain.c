/* The callchain of an unwound raw-stack sample (format/unwound-chain.c).

   What perf report needs (formats.md, "Writing callchains for perf
   report"): [kernel part..., PERF_CONTEXT_USER (-512), user pcs...],
   leaf first in each part.  Kernel part absent, empty or present; no
   user pcs; the scratch buffer reused and grown without losing the
   chain; the kernel part not read past its count.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "format/unwound-chain.h"

#define CONTEXT_KERNEL 0xffffffffffffff80ull   /* -128 */
#define CONTEXT_USER   0xfffffffffffffe00ull   /* -512 */

static StEvent
stack_event (const uint64_t *kernel, uint32_t n_kernel)
{
  StEvent ev = { 0 };

  ev.kind = ST_EVENT_STACK_USER;
  ev.stack.callchain = kernel;
  ev.stack.n_callchain = n_kernel;
  return ev;
}

static void
test_kernel_and_user (void)
{
  static const uint64_t kernel[] = { CONTEXT_KERNEL, 0xffffffff81000010ull,
                                     0xffffffff81000020ull };
  static const uint64_t user[] = { 0x401234, 0x401100, 0x7f0000001000ull };
  static const uint64_t want[] = { CONTEXT_KERNEL, 0xffffffff81000010ull,
                                   0xffffffff81000020ull, CONTEXT_USER,
                                   0x401234, 0x401100, 0x7f0000001000ull };
  StUnwoundChain c = { 0 };
  StEvent ev = stack_event (kernel, 3);
  size_t n = st_unwound_chain_build (&c, &ev, user, 3);

  g_assert_cmpuint (ST_CONTEXT_USER, ==, CONTEXT_USER);
  g_assert_cmpmem (c.ips, n * 8, want, sizeof want);
  st_unwound_chain_clear (&c);
  g_assert_null (c.ips);
  g_assert_cmpuint (c.cap, ==, 0);
}

static void
test_no_kernel_part (void)
{
  static const uint64_t user[] = { 0x401234, 0x401100 };
  static const uint64_t want[] = { CONTEXT_USER, 0x401234, 0x401100 };
  static const uint64_t stray[] = { 0xdead };
  StUnwoundChain c = { 0 };
  StEvent ev = stack_event (NULL, 0);
  size_t n;

  /* A user-mode sample: no kernel part at all.  */
  n = st_unwound_chain_build (&c, &ev, user, 2);
  g_assert_cmpmem (c.ips, n * 8, want, sizeof want);
  /* An empty one (perf's callchain nr = 0).  */
  ev = stack_event (stray, 0);
  n = st_unwound_chain_build (&c, &ev, user, 2);
  g_assert_cmpmem (c.ips, n * 8, want, sizeof want);
  /* A count without a chain: nothing to copy.  */
  ev = stack_event (NULL, 5);
  n = st_unwound_chain_build (&c, &ev, user, 2);
  g_assert_cmpmem (c.ips, n * 8, want, sizeof want);
  st_unwound_chain_clear (&c);
}

static void
test_no_user_pcs (void)
{
  static const uint64_t kernel[] = { CONTEXT_KERNEL, 0xffffffff81000010ull };
  static const uint64_t want[] = { CONTEXT_KERNEL, 0xffffffff81000010ull,
                                   CONTEXT_USER };
  StUnwoundChain c = { 0 };
  StEvent ev = stack_event (kernel, 2);
  size_t n = st_unwound_chain_build (&c, &ev, NULL, 0);

  g_assert_cmpmem (c.ips, n * 8, want, sizeof want);
  ev = stack_event (NULL, 0);
  g_assert_cmpuint (st_unwound_chain_build (&c, &ev, NULL, 0), ==, 1);
  g_assert_cmpuint (c.ips[0], ==, CONTEXT_USER);
  st_unwound_chain_clear (&c);
}

static void
test_buffer_reuse (void)
{
  /* Chains of growing and shrinking length through one buffer: each is
     right, and a shorter one does not reallocate.  */
  static const guint lengths[] = { 1, 2, 200, 3, 1000, 17, 4097, 0 };
  uint64_t kernel[8];
  StUnwoundChain c = { 0 };

  for (guint k = 0; k < G_N_ELEMENTS (kernel); k++)
    kernel[k] = 0xffffffff81000000ull + k;
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      guint n_user = lengths[i];
      guint n_kernel = i % 2 == 0 ? 8 : 0;
      uint64_t *user = g_new (uint64_t, MAX (n_user, 1));
      StEvent ev = stack_event (kernel, n_kernel);
      size_t cap_before = c.cap;
      uint64_t *before = c.ips;
      size_t n;

      for (guint k = 0; k < n_user; k++)
        user[k] = 0x400000 + 16 * k + i;
      n = st_unwound_chain_build (&c, &ev, user, n_user);
      g_assert_cmpuint (n, ==, n_kernel + 1 + n_user);
      g_assert_cmpuint (c.cap, >=, n);
      if (n <= cap_before)
        g_assert_true (c.ips == before);
      g_assert_cmpmem (c.ips, n_kernel * 8, kernel, n_kernel * 8);
      g_assert_cmpuint (c.ips[n_kernel], ==, CONTEXT_USER);
      g_assert_cmpmem (c.ips + n_kernel + 1, n_user * 8, user, n_user * 8);
      g_free (user);
    }
  st_unwound_chain_clear (&c);
  /* Cleared twice: still empty, nothing freed twice.  */
  st_unwound_chain_clear (&c);
  g_assert_null (c.ips);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/unwound-chain/kernel-and-user", test_kernel_and_user);
  g_test_add_func ("/unwound-chain/no-kernel-part", test_no_kernel_part);
  g_test_add_func ("/unwound-chain/no-user-pcs", test_no_user_pcs);
  g_test_add_func ("/unwound-chain/buffer-reuse", test_buffer_reuse);
  return g_test_run ();
}
