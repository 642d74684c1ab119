/* The join of a capture's kernel-only SAMPLE frame with the STACK_USER
   frame after it (kernel-join.c).

   Against the capture convention (doc/FORMATS, formats.md): the kernel
   part is a Sysprof SAMPLE whose addresses start with the KERNEL context
   marker (-128) and have no USER marker (-512); it belongs to the
   STACK_USER frame of the same pid, tid and time, which then carries
   those addresses as its kernel call chain.  Anything else -- perf's
   samples, a mixed chain, another thread or time, a STACK_USER that has
   a kernel chain already -- is not joined, and the held frame stays.
   The held copy must not depend on the reader's buffer, which the next
   read overwrites.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "kernel-join.h"

static StEvent
kernel_sample (uint64_t *ips, uint32_t n, int32_t tid, int64_t time)
{
  StEvent ev = { .kind = ST_EVENT_SAMPLE, .source = ST_FORMAT_SYSPROF,
                 .pid = 100, .tid = tid, .time = time,
                 .raw = (const uint8_t *) ips, .raw_len = n * 8 };

  ev.sample.ips = ips;
  ev.sample.n_ips = n;
  return ev;
}

static StEvent
stack_user (int32_t tid, int64_t time)
{
  static const uint8_t stack[64];
  StEvent ev = { .kind = ST_EVENT_STACK_USER, .source = ST_FORMAT_SYSPROF,
                 .pid = 100, .tid = tid, .time = time };

  ev.stack.stack = stack;
  ev.stack.stack_size = sizeof stack;
  return ev;
}

static void
test_is_kernel_part (void)
{
  uint64_t kernel[] = { ST_CONTEXT_KERNEL, 0xffffffff81001000ull,
                        0xffffffff81002000ull };
  uint64_t mixed[] = { ST_CONTEXT_KERNEL, 0xffffffff81001000ull,
                       ST_CONTEXT_USER, 0x401000 };
  uint64_t user[] = { ST_CONTEXT_USER, 0x401000 };
  uint64_t bare[] = { 0x401000, 0x401100 };
  uint64_t marker_only[] = { ST_CONTEXT_KERNEL };
  StEvent ev = kernel_sample (kernel, 3, 101, 5);

  g_assert_true (st_kernel_join_is_kernel_part (&ev));
  ev = kernel_sample (marker_only, 1, 101, 5);
  g_assert_true (st_kernel_join_is_kernel_part (&ev));
  ev = kernel_sample (mixed, 4, 101, 5);
  g_assert_false (st_kernel_join_is_kernel_part (&ev));
  ev = kernel_sample (user, 2, 101, 5);
  g_assert_false (st_kernel_join_is_kernel_part (&ev));
  ev = kernel_sample (bare, 2, 101, 5);
  g_assert_false (st_kernel_join_is_kernel_part (&ev));
  ev = kernel_sample (kernel, 0, 101, 5);
  g_assert_false (st_kernel_join_is_kernel_part (&ev));

  /* perf.data keeps its samples whole: never a part.  */
  ev = kernel_sample (kernel, 3, 101, 5);
  ev.source = ST_FORMAT_PERF;
  g_assert_false (st_kernel_join_is_kernel_part (&ev));
  /* Not a sample at all.  */
  ev = stack_user (101, 5);
  g_assert_false (st_kernel_join_is_kernel_part (&ev));
}

static void
test_join (void)
{
  StKernelJoin *j = st_kernel_join_new ();
  uint64_t reader_buf[3] = { ST_CONTEXT_KERNEL, 0xffffffff81001000ull,
                             0xffffffff81002000ull };
  StEvent k = kernel_sample (reader_buf, 3, 101, 5000);
  StEvent merged;

  g_assert_null (st_kernel_join_held (j));
  st_kernel_join_hold (j, &k);
  /* The reader reuses its buffer for the next frame.  */
  memset (reader_buf, 0xee, sizeof reader_buf);
  g_assert_nonnull (st_kernel_join_held (j));
  g_assert_cmphex (st_kernel_join_held (j)->sample.ips[1], ==,
                   0xffffffff81001000ull);

  StEvent s = stack_user (101, 5000);
  s.offset = 4242;
  const StEvent *h = st_kernel_join_take (j, &s, &merged);
  g_assert_nonnull (h);
  g_assert_null (st_kernel_join_held (j));
  g_assert_cmpuint (h->sample.n_ips, ==, 3);
  /* The STACK_USER frame with the kernel part's addresses, marker
     included, as its kernel chain; the rest is its own.  */
  g_assert_cmpuint (merged.kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (merged.offset, ==, 4242);
  g_assert_cmpuint (merged.stack.n_callchain, ==, 3);
  g_assert_cmphex (merged.stack.callchain[0], ==, ST_CONTEXT_KERNEL);
  g_assert_cmphex (merged.stack.callchain[2], ==, 0xffffffff81002000ull);
  g_assert_true (merged.stack.stack == s.stack.stack);
  g_assert_cmpuint (merged.stack.stack_size, ==, 64);

  /* Nothing held: the frame as it is.  */
  g_assert_null (st_kernel_join_take (j, &s, &merged));
  g_assert_cmpuint (merged.stack.n_callchain, ==, 0);
  g_assert_null (st_kernel_join_release (j));
  st_kernel_join_free (j);
}

/* Not the same sample: the held frame stays held, for the caller to let
   go of (released: it goes on as it is).  */
static void
test_no_join (void)
{
  StKernelJoin *j = st_kernel_join_new ();
  uint64_t ips[2] = { ST_CONTEXT_KERNEL, 0xffffffff81001000ull };
  StEvent k = kernel_sample (ips, 2, 101, 5000);
  StEvent merged;
  uint64_t own[2] = { ST_CONTEXT_KERNEL, 0xffffffff8100f000ull };
  struct
  {
    int32_t pid, tid;
    int64_t time;
    const uint64_t *chain;
  } others[] = {
    { 100, 102, 5000, NULL },   /* another thread */
    { 101, 101, 5000, NULL },   /* another process */
    { 100, 101, 5001, NULL },   /* another time */
    { 100, 101, 5000, own },    /* already has its kernel chain */
  };

  st_kernel_join_hold (j, &k);
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      StEvent s = stack_user (others[i].tid, others[i].time);
      s.pid = others[i].pid;
      if (others[i].chain != NULL)
        {
          s.stack.callchain = others[i].chain;
          s.stack.n_callchain = 2;
        }
      g_assert_null (st_kernel_join_take (j, &s, &merged));
      g_assert_nonnull (st_kernel_join_held (j));
      g_assert_cmpint (merged.tid, ==, others[i].tid);
      g_assert_cmpuint (merged.stack.n_callchain, ==,
                        others[i].chain != NULL ? 2 : 0);
      g_assert_true (merged.stack.callchain == others[i].chain);
    }

  const StEvent *r = st_kernel_join_release (j);
  g_assert_nonnull (r);
  g_assert_null (st_kernel_join_held (j));
  g_assert_cmpint (r->tid, ==, 101);
  g_assert_cmpint (r->time, ==, 5000);
  g_assert_cmpmem (r->raw, r->raw_len, ips, sizeof ips);
  g_assert_null (st_kernel_join_release (j));
  st_kernel_join_free (j);
}

/* One buffer, reused and grown: a long kernel part after short ones
   (and the other way round) comes out whole.  */
static void
test_buffer_reuse (void)
{
  StKernelJoin *j = st_kernel_join_new ();
  StEvent merged;

  for (guint n = 1; n <= 300; n += 37)
    for (guint round = 0; round < 2; round++)
      {
        guint len = round == 0 ? n : 302 - n;
        g_autofree uint64_t *ips = g_new (uint64_t, len);
        ips[0] = ST_CONTEXT_KERNEL;
        for (guint i = 1; i < len; i++)
          ips[i] = 0xffffffff81000000ull + i;
        StEvent k = kernel_sample (ips, len, 7, n * 10 + round);
        st_kernel_join_hold (j, &k);
        memset (ips, 0, len * sizeof *ips);
        StEvent s = stack_user (7, n * 10 + round);
        g_assert_nonnull (st_kernel_join_take (j, &s, &merged));
        g_assert_cmpuint (merged.stack.n_callchain, ==, len);
        g_assert_cmphex (merged.stack.callchain[len - 1], ==,
                         len > 1 ? 0xffffffff81000000ull + len - 1
                                 : ST_CONTEXT_KERNEL);
      }
  st_kernel_join_free (j);
  st_kernel_join_free (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel-join/is-kernel-part", test_is_kernel_part);
  g_test_add_func ("/kernel-join/join", test_join);
  g_test_add_func ("/kernel-join/no-join", test_no_join);
  g_test_add_func ("/kernel-join/buffer-reuse", test_buffer_reuse);
  return g_test_run ();
}
