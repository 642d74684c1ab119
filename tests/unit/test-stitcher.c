/* Unit tests: per-thread stitching.  */
#include "config.h"

#include "unwind/stitcher.h"

/* A complete chain: leaf first, stack pointers growing toward the root.  */
static const uint64_t full_ips[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
static const uint64_t full_sps[] = { 0x1000, 0x1040, 0x1080, 0x10c0, 0x1100 };

static void
test_stitch_match (void)
{
  StStitcher *s = st_stitcher_new (16);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1080 };
  uint32_t n = 2;

  st_stitcher_remember (s, 1, 7, 0, full_ips, full_sps, 5);
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 7, 0, ips, sps, &n, 8), ==, 2);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmphex (ips[2], ==, 0x400);
  g_assert_cmphex (ips[3], ==, 0x500);
  g_assert_cmphex (sps[3], ==, 0x1100);
  st_stitcher_free (s);
}

static void
test_stitch_no_match (void)
{
  StStitcher *s = st_stitcher_new (16);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1088 };
  uint32_t n = 2;

  st_stitcher_remember (s, 1, 7, 0, full_ips, full_sps, 5);
  /* Same PC at another stack address: a different activation.  */
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 7, 0, ips, sps, &n, 8), ==, 0);
  g_assert_cmpuint (n, ==, 2);
  /* Another thread, another process image, unknown SP: no stitching.  */
  sps[1] = 0x1080;
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 8, 0, ips, sps, &n, 8), ==, 0);
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 7, 1, ips, sps, &n, 8), ==, 0);
  g_assert_cmpuint (st_stitcher_stitch (s, 2, 7, 0, ips, sps, &n, 8), ==, 0);
  sps[1] = 0;
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 7, 0, ips, sps, &n, 8), ==, 0);
  st_stitcher_free (s);
}

static void
test_stitch_max (void)
{
  StStitcher *s = st_stitcher_new (16);
  uint64_t ips[3] = { 0x111, 0x200 }, sps[3] = { 0x1000, 0x1040 };
  uint32_t n = 2;

  st_stitcher_remember (s, 1, 7, 0, full_ips, full_sps, 5);
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 7, 0, ips, sps, &n, 3), ==, 1);
  g_assert_cmpuint (n, ==, 3);
  st_stitcher_free (s);
}

static void
test_lru_and_forget (void)
{
  StStitcher *s = st_stitcher_new (2);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1080 };
  uint32_t n;

  st_stitcher_remember (s, 1, 1, 0, full_ips, full_sps, 5);
  st_stitcher_remember (s, 1, 2, 0, full_ips, full_sps, 5);
  /* Touch thread 1, then a third thread evicts thread 2.  */
  st_stitcher_remember (s, 1, 1, 0, full_ips, full_sps, 5);
  st_stitcher_remember (s, 1, 3, 0, full_ips, full_sps, 5);
  g_assert_cmpuint (st_stitcher_size (s), ==, 2);
  n = 2;
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 2, 0, ips, sps, &n, 8), ==, 0);
  n = 2;
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 1, 0, ips, sps, &n, 8), ==, 2);
  st_stitcher_forget_thread (s, 1);
  st_stitcher_forget_thread (s, 99);
  g_assert_cmpuint (st_stitcher_size (s), ==, 1);
  n = 2;
  g_assert_cmpuint (st_stitcher_stitch (s, 1, 1, 0, ips, sps, &n, 8), ==, 0);
  st_stitcher_free (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stitcher/match", test_stitch_match);
  g_test_add_func ("/stitcher/no-match", test_stitch_no_match);
  g_test_add_func ("/stitcher/max", test_stitch_max);
  g_test_add_func ("/stitcher/lru-forget", test_lru_and_forget);
  return g_test_run ();
}
