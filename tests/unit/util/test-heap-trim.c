/* Unit test of the heap trim (util/heap-trim.h): free memory in the
   middle of the heap, below a block still in use, is given back to the
   system.  glibc only; under the sanitizers malloc is theirs.  (The
   first version compiled to an empty function: no C library header
   defined __GLIBC__ before its test.)  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "proc-status.h"
#include "util/heap-trim.h"

#if defined __SANITIZE_ADDRESS__ || defined __SANITIZE_THREAD__
#define ST_OWN_MALLOC 0
#elif defined __has_feature
#if __has_feature (address_sanitizer) || __has_feature (memory_sanitizer)
#define ST_OWN_MALLOC 0
#endif
#endif
#ifndef ST_OWN_MALLOC
#define ST_OWN_MALLOC 1
#endif

#define BLOCKS 65536
#define BLOCK_BYTES 200     /* above glibc's fast bins: freed blocks merge */

/* This process's anonymous resident memory, in KiB; -1 if unknown.  */
static long
rss_anon_kib (void)
{
  return proc_status_kib ("RssAnon");
}

static void
test_middle_given_back (void)
{
#if !defined __GLIBC__ || !ST_OWN_MALLOC
  g_test_skip ("not glibc's malloc");
  return;
#else
  static char *blocks[BLOCKS];

  for (guint i = 0; i < BLOCKS; i++)
    {
      blocks[i] = malloc (BLOCK_BYTES);
      g_assert_nonnull (blocks[i]);
      memset (blocks[i], 0x5a, BLOCK_BYTES);
    }
  /* In use above them: the freed blocks are not the heap's top, which
     free() would give back by itself.  */
  char *pin = malloc (BLOCK_BYTES);
  g_assert_nonnull (pin);
  memset (pin, 0x5a, BLOCK_BYTES);
  for (guint i = 0; i < BLOCKS; i++)
    free (blocks[i]);
  long before = rss_anon_kib ();
  if (before < 0)
    {
      free (pin);
      g_test_skip ("no /proc/self/status");
      return;
    }
  st_heap_trim ();
  long after = rss_anon_kib ();
  g_test_message ("RssAnon %ld KiB before the trim, %ld after", before,
                  after);
  /* 13 MB were freed; at least half of it must leave.  */
  g_assert_cmpint (before - after, >=, BLOCKS / 1024 * BLOCK_BYTES / 2);
  free (pin);
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/heap-trim/middle-given-back", test_middle_given_back);
  return g_test_run ();
}
