/* Unit tests: per-thread stitching from the thread's known stack.  */
#include "config.h"

#include <string.h>

#include "unwind/stitcher.h"

/* A complete chain: leaf first, stack pointers growing toward the root.  */
static const uint64_t full_ips[] = { 0x100, 0x200, 0x300, 0x400, 0x500 };
static const uint64_t full_sps[] = { 0x1000, 0x1040, 0x1080, 0x10c0, 0x1100 };

static StStitchOutcome
stitch (StStitcher *s, int32_t tid, uint64_t *ips, uint64_t *sps,
        uint32_t *n, uint32_t max)
{
  return st_stitcher_stitch (s, 1, tid, 0, NULL, NULL, ips, sps, n, max);
}

static void
learn_full (StStitcher *s, int32_t tid)
{
  st_stitcher_learn (s, 1, tid, 0, NULL, full_ips, full_sps, 5, TRUE);
}

static void
test_stitch_match (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1080 };
  uint32_t n = 2;

  learn_full (s, 7);
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 8), ==, ST_STITCH_DONE);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmphex (ips[2], ==, 0x400);
  g_assert_cmphex (ips[3], ==, 0x500);
  g_assert_cmphex (sps[3], ==, 0x1100);
  st_stitcher_free (s);
}

static void
test_stitch_no_match (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1088 };
  uint32_t n = 2;

  learn_full (s, 7);
  /* Same PC at another stack address: a different activation.  */
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 8), ==, ST_STITCH_UNKNOWN);
  g_assert_cmpuint (n, ==, 2);
  /* Another thread, another process image or pid, unknown SP.  */
  sps[1] = 0x1080;
  g_assert_cmpint (stitch (s, 8, ips, sps, &n, 8), ==, ST_STITCH_UNKNOWN);
  g_assert_cmpint (st_stitcher_stitch (s, 1, 7, 1, NULL, NULL, ips, sps, &n,
                                       8), ==, ST_STITCH_UNKNOWN);
  g_assert_cmpint (st_stitcher_stitch (s, 2, 7, 0, NULL, NULL, ips, sps, &n,
                                       8), ==, ST_STITCH_UNKNOWN);
  sps[1] = 0;
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 8), ==, ST_STITCH_UNKNOWN);
  g_assert_cmpuint (n, ==, 2);
  st_stitcher_free (s);
}

static void
test_stitch_too_deep (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t ips[3] = { 0x111, 0x200 }, sps[3] = { 0x1000, 0x1040 };
  uint32_t n = 2;

  learn_full (s, 7);
  /* Three callers to borrow, room for one: all or nothing.  */
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 3), ==, ST_STITCH_TOO_DEEP);
  g_assert_cmpuint (n, ==, 2);
  st_stitcher_free (s);
}

/* A chain that did not reach the root teaches frames that lead nowhere.  */
static void
test_unrooted (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1080 };
  uint32_t n = 2;

  st_stitcher_learn (s, 1, 7, 0, NULL, full_ips, full_sps, 4, FALSE);
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 8), ==, ST_STITCH_UNROOTED);
  /* Frames with unknown stack pointers (the frame-pointer chain's) are
     not learnt, nor is the root after them.  */
  const uint64_t sps0[] = { 0x1000, 0x1040, 0x1080, 0, 0 };
  st_stitcher_learn (s, 1, 8, 0, NULL, full_ips, sps0, 5, TRUE);
  g_assert_cmpuint (st_stitcher_frames (s), ==, 4 + 3);
  g_assert_cmpint (stitch (s, 8, ips, sps, &n, 8), ==, ST_STITCH_UNROOTED);
  st_stitcher_free (s);
}

/* A recursion: main (0x900) -> rec (call of rec at 0x510) x depth ->
   rec calling the leaf (0x520) -> leaf (0x600); each rec frame 0x80
   bytes, main's at 0x8000.  */
static uint32_t
recursion (uint32_t depth, uint64_t *ips, uint64_t *sps)
{
  uint32_t n = depth + 3;

  ips[n - 1] = 0x900;
  sps[n - 1] = 0x8000;
  for (uint32_t i = n - 1; i-- > 1;)
    {
      ips[i] = i == 1 ? 0x520 : 0x510;
      sps[i] = sps[i + 1] - 0x80;
    }
  ips[0] = 0x600;
  sps[0] = sps[1] - 0x20;
  return n;
}

/* Frames below a later, shallower sample are stale, but a cut chain may
   still borrow them where they lead, frame by frame, to the frames the
   thread has now: through the frame that now calls the leaf, the same
   function called from the same place.  */
static void
test_stale_frames_relink (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t ips[64], sps[64], truth_ips[64], truth_sps[64];

  uint32_t n = recursion (40, ips, sps);
  st_stitcher_learn (s, 1, 7, 0, NULL, ips, sps, n, TRUE);
  n = recursion (5, ips, sps);
  st_stitcher_learn (s, 1, 7, 0, NULL, ips, sps, n, TRUE);

  /* Depth 30, cut after 10 frames.  */
  uint32_t n_truth = recursion (30, truth_ips, truth_sps);
  memcpy (ips, truth_ips, sizeof ips);
  memcpy (sps, truth_sps, sizeof sps);
  n = 10;
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 64), ==, ST_STITCH_DONE);
  g_assert_cmpuint (n, ==, n_truth);
  for (uint32_t i = 0; i < n; i++)
    {
      g_assert_cmphex (ips[i], ==, truth_ips[i]);
      g_assert_cmphex (sps[i], ==, truth_sps[i]);
    }

  /* A shallow sample through another caller of the frame at that place
     breaks the link: the stale frames lead nowhere now.  */
  n = recursion (5, ips, sps);
  ips[2] = 0x530;
  st_stitcher_learn (s, 1, 7, 0, NULL, ips, sps, n, TRUE);
  n = recursion (30, ips, sps);
  n = 10;
  g_assert_cmpint (stitch (s, 7, ips, sps, &n, 64), ==, ST_STITCH_UNROOTED);
  st_stitcher_free (s);
}

/* The joined frame's remembered words must still be in the copy.  */
static void
test_words_guard (void)
{
  StStitcher *s = st_stitcher_new (16, 1024);
  uint64_t stack[0x48 / 8];
  StStackCopy copy = { 0x1000, (const uint8_t *) stack, sizeof stack };
  uint64_t ips[8] = { 0x111, 0x200 }, sps[8] = { 0x1000, 0x1040 };
  uint32_t n = 2;

  for (guint i = 0; i < G_N_ELEMENTS (stack); i++)
    stack[i] = 0xabc0 + i;
  st_stitcher_learn (s, 1, 7, 0, &copy, full_ips, full_sps, 5, TRUE);
  g_assert_cmpint (st_stitcher_stitch (s, 1, 7, 0, &copy, NULL, ips, sps, &n,
                                       8), ==, ST_STITCH_DONE);
  g_assert_cmpuint (n, ==, 5);
  /* The word at the joined frame (0x1040) changed.  */
  stack[0x40 / 8] = 0xdead;
  n = 2;
  g_assert_cmpint (st_stitcher_stitch (s, 1, 7, 0, &copy, NULL, ips, sps, &n,
                                       8), ==, ST_STITCH_REFUSED);
  g_assert_cmpuint (n, ==, 2);
  st_stitcher_free (s);
}

static void
test_lru_and_forget (void)
{
  StStitcher *s = st_stitcher_new (2, 1024);
  uint64_t ips[8] = { 0x111, 0x300 }, sps[8] = { 0x1070, 0x1080 };
  uint32_t n;

  learn_full (s, 1);
  learn_full (s, 2);
  /* Touch thread 1, then a third thread evicts thread 2.  */
  learn_full (s, 1);
  learn_full (s, 3);
  g_assert_cmpuint (st_stitcher_size (s), ==, 2);
  n = 2;
  g_assert_cmpint (stitch (s, 2, ips, sps, &n, 8), ==, ST_STITCH_UNKNOWN);
  n = 2;
  g_assert_cmpint (stitch (s, 1, ips, sps, &n, 8), ==, ST_STITCH_DONE);
  st_stitcher_forget_thread (s, 1);
  st_stitcher_forget_thread (s, 99);
  g_assert_cmpuint (st_stitcher_size (s), ==, 1);
  n = 2;
  g_assert_cmpint (stitch (s, 1, ips, sps, &n, 8), ==, ST_STITCH_UNKNOWN);
  st_stitcher_free (s);
}

/* The bound on frames in all evicts the least recently used threads.  */
static void
test_frame_bound (void)
{
  StStitcher *s = st_stitcher_new (100000, ST_STITCH_THREAD_FRAMES);
  uint64_t ips[256], sps[256];
  uint32_t n = recursion (200, ips, sps);

  for (int32_t tid = 1; tid <= 1000; tid++)
    {
      /* Complete chains wait (their room counts), cut ones are merged.  */
      st_stitcher_learn (s, 1, tid, 0, NULL, ips, sps, n, tid % 2 == 0);
      g_assert_cmpuint (st_stitcher_frames (s), <=, ST_STITCH_THREAD_FRAMES);
    }
  g_assert_cmpuint (st_stitcher_size (s), <, 20);
  st_stitcher_free (s);
}

/* A chain of thread TID's sample number I: a recursion of varying depth
   through one of two callers, with one of a few leaves.  */
static uint32_t
varied_chain (GRand *r, uint64_t *ips, uint64_t *sps)
{
  uint32_t n = recursion (g_rand_int_range (r, 0, 60), ips, sps);

  ips[0] = 0x600 + 0x10 * g_rand_int_range (r, 0, 3);
  if (n > 4 && g_rand_boolean (r))
    ips[n / 2] = 0x530;
  return n;
}

/* Chains learnt lent, their arrays scribbled over once the stitcher may
   no longer read them, teach what the same chains learnt copied do.  */
static void
test_lent_chains (void)
{
  StStitcher *copied = st_stitcher_new (4, 4 * ST_STITCH_THREAD_FRAMES);
  StStitcher *lent = st_stitcher_new (4, 4 * ST_STITCH_THREAD_FRAMES);
  GRand *r = g_rand_new_with_seed (17);
  uint64_t bufs[ST_STITCH_LENT_CHAINS + 1][2][256];
  guint cur = 0, done = 0;

  for (guint i = 0; i < 20000; i++)
    {
      int32_t tid = g_rand_int_range (r, 1, 6);
      uint64_t *ips = bufs[cur][0], *sps = bufs[cur][1];
      uint64_t other_ips[256], other_sps[256];
      uint32_t n = varied_chain (r, ips, sps);
      gboolean rooted = TRUE;

      if (g_rand_int_range (r, 0, 8) == 0)
        {
          /* Cut: stitched by both, then learnt as it is then.  */
          uint32_t n_copied = MIN (n, (uint32_t) g_rand_int_range (r, 2, 12));
          uint32_t n_lent = n_copied;
          memcpy (other_ips, ips, sizeof other_ips);
          memcpy (other_sps, sps, sizeof other_sps);
          StStitchOutcome a = stitch (copied, tid, other_ips, other_sps,
                                      &n_copied, 256);
          StStitchOutcome b = stitch (lent, tid, ips, sps, &n_lent, 256);
          g_assert_cmpint (a, ==, b);
          g_assert_cmpuint (n_copied, ==, n_lent);
          g_assert_cmpmem (other_ips, n_copied * 8, ips, n_lent * 8);
          g_assert_cmpmem (other_sps, n_copied * 8, sps, n_lent * 8);
          done += a == ST_STITCH_DONE;
          n = n_lent;
          rooted = a == ST_STITCH_DONE;
        }
      else if (g_rand_int_range (r, 0, 50) == 0)
        {
          st_stitcher_forget_thread (copied, tid);
          st_stitcher_forget_thread (lent, tid);
        }
      st_stitcher_learn (copied, 1, tid, 0, NULL, ips, sps, n, rooted);
      st_stitcher_learn_lent (lent, 1, tid, 0, NULL, ips, sps, n, rooted);
      g_assert_cmpuint (st_stitcher_frames (copied), ==,
                        st_stitcher_frames (lent));
      g_assert_cmpuint (st_stitcher_size (copied), ==,
                        st_stitcher_size (lent));
      /* The next pair is free again: what the stitcher kept of it must
         have been copied.  */
      cur = (cur + 1) % G_N_ELEMENTS (bufs);
      memset (bufs[cur], 0x5a, sizeof bufs[cur]);
    }
  g_assert_cmpuint (done, >, 100);
  g_rand_free (r);
  st_stitcher_free (copied);
  st_stitcher_free (lent);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stitcher/match", test_stitch_match);
  g_test_add_func ("/stitcher/no-match", test_stitch_no_match);
  g_test_add_func ("/stitcher/too-deep", test_stitch_too_deep);
  g_test_add_func ("/stitcher/unrooted", test_unrooted);
  g_test_add_func ("/stitcher/stale-frames-relink", test_stale_frames_relink);
  g_test_add_func ("/stitcher/words-guard", test_words_guard);
  g_test_add_func ("/stitcher/lru-forget", test_lru_and_forget);
  g_test_add_func ("/stitcher/frame-bound", test_frame_bound);
  g_test_add_func ("/stitcher/lent-chains", test_lent_chains);
  return g_test_run ();
}
