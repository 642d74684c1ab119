/* Unit tests: the queue between the ring reader and its pipe.  Bytes
   pushed as records of many sizes (across chunk ends) come out of a
   non-blocking pipe in order and whole, taken a little at a time; a
   pipe whose reader is gone fails the send.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "live/record-queue.h"

#define TOTAL (5u << 20)

static uint8_t
byte_at (size_t i)
{
  return (uint8_t) (i * 7 + i / 251);
}

static void
test_in_order (void)
{
  StRecordQueue q;
  int fds[2];
  g_autofree uint8_t *record = g_malloc (65536);
  g_autofree uint8_t *got = g_malloc (TOTAL);
  size_t pushed = 0, read_total = 0;
  guint sizes = 0;

  g_assert_cmpint (pipe2 (fds, O_NONBLOCK), ==, 0);
  st_record_queue_init (&q);
  while (pushed < TOTAL)
    {
      size_t len = MIN ((size_t) (8 + (sizes++ * 4099) % 65528),
                        TOTAL - pushed);
      for (size_t i = 0; i < len; i++)
        record[i] = byte_at (pushed + i);
      st_record_queue_push (&q, record, len);
      pushed += len;
      g_assert_cmpuint (q.bytes, ==, pushed - read_total);
      /* The pipe takes some now and then (64 KiB at most in it).  */
      if (sizes % 7 == 0)
        {
          g_assert_true (st_record_queue_send (&q, fds[1]));
          ssize_t n;
          while ((n = read (fds[0], got + read_total, TOTAL - read_total)) > 0)
            read_total += (size_t) n;
        }
    }
  while (q.bytes > 0)
    {
      ssize_t n;
      g_assert_true (st_record_queue_send (&q, fds[1]));
      while ((n = read (fds[0], got + read_total, TOTAL - read_total)) > 0)
        read_total += (size_t) n;
    }
  g_assert_cmpuint (read_total, ==, TOTAL);
  for (size_t i = 0; i < TOTAL; i++)
    if (got[i] != byte_at (i))
      g_error ("byte %zu is %u, not %u", i, got[i], byte_at (i));
  g_assert_true (g_queue_is_empty (&q.chunks));
  st_record_queue_clear (&q);
  close (fds[0]);
  close (fds[1]);
}

static void
test_reader_gone (void)
{
  StRecordQueue q;
  int fds[2];
  uint8_t rec[64] = { 1 };

  g_assert_cmpint (pipe2 (fds, O_NONBLOCK), ==, 0);
  close (fds[0]);
  st_record_queue_init (&q);
  st_record_queue_push (&q, rec, sizeof rec);
  g_assert_false (st_record_queue_send (&q, fds[1]));
  g_assert_cmpuint (q.bytes, ==, sizeof rec);
  st_record_queue_clear (&q);
  g_assert_cmpuint (q.bytes, ==, 0);
  close (fds[1]);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-queue/in-order", test_in_order);
  g_test_add_func ("/record-queue/reader-gone", test_reader_gone);
  return g_test_run ();
}
