/* Unit test of zero-filled memory (util/zero-filled.h): zeros, and every
   page of a large block already the process's own after reading alone,
   not the kernel's shared zero page (which a later write would copy,
   flushing the TLB of every core running the process).  */
#include "config.h"

#include <glib.h>

#include "proc-status.h"
#include "util/zero-filled.h"

#define BLOCK_BYTES (8u << 20)

/* This process's anonymous resident memory, in KiB; -1 if unknown.  (A
   page mapped to the shared zero page is not counted.)  */
static long
rss_anon_kib (void)
{
  return proc_status_kib ("RssAnon");
}

static void
test_zeros (void)
{
  g_assert_null (st_zero_filled_new (0));
  for (gsize n = 1; n <= (1u << 20); n = n * 3 + 1)
    {
      guint8 *p = st_zero_filled_new (n);
      for (gsize i = 0; i < n; i++)
        g_assert_cmpuint (p[i], ==, 0);
      g_free (p);
    }
}

static void
test_pages_own (void)
{
  long before = rss_anon_kib ();
  if (before < 0)
    {
      g_test_skip ("no /proc/self/status");
      return;
    }

  volatile guint8 *p = st_zero_filled_new (BLOCK_BYTES);
  guint sum = 0;
  for (gsize i = 0; i < BLOCK_BYTES; i += 4096)
    sum += p[i];
  g_assert_cmpuint (sum, ==, 0);
  long after = rss_anon_kib ();
  g_free ((gpointer) p);
  /* calloc's block, read alone, adds nothing.  (The kernel's counters
     may lag by some pages: three quarters is plenty.)  */
  g_test_message ("RssAnon %ld -> %ld KiB", before, after);
  g_assert_cmpint (after - before, >=, (long) (BLOCK_BYTES / 1024) * 3 / 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/zero-filled/zeros", test_zeros);
  g_test_add_func ("/zero-filled/pages-own", test_pages_own);
  return g_test_run ();
}
