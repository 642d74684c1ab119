/* Unit tests: the in-process stream between the ring reader and the
   input.  Bytes pushed as records of many sizes (across chunk ends) come
   out in order and whole, taken a little at a time; the doorbell is
   readable exactly while something is published or the stream closed;
   a producer thread and a consumer waiting in poll() pass a stream of
   many batches whole, and the consumer sees its end.  */
#include "config.h"

#include <glib.h>
#include <poll.h>
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

static gboolean
readable (int fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };

  return poll (&pfd, 1, 0) == 1;
}

/* Pushes TOTAL bytes as records of many sizes, publishing every few.  */
static void
push_all (StRecordQueue *q, gboolean (*between) (StRecordQueue *, void *),
          void *data)
{
  g_autofree uint8_t *record = g_malloc (65536);
  size_t pushed = 0;
  guint sizes = 0;

  while (pushed < TOTAL)
    {
      size_t len = MIN ((size_t) (8 + (sizes++ * 4099) % 65528),
                        TOTAL - pushed);
      for (size_t i = 0; i < len; i++)
        record[i] = byte_at (pushed + i);
      st_record_queue_push (q, record, len);
      pushed += len;
      if (sizes % 7 == 0)
        {
          st_record_queue_publish (q);
          if (between != NULL && !between (q, data))
            return;
        }
    }
  st_record_queue_close (q);
}

static void
check_bytes (const uint8_t *got, size_t len)
{
  g_assert_cmpuint (len, ==, TOTAL);
  for (size_t i = 0; i < len; i++)
    if (got[i] != byte_at (i))
      g_error ("byte %zu is %u, not %u", i, got[i], byte_at (i));
}

typedef struct
{
  uint8_t *got;
  size_t total;
} Taken;

/* Takes some of what was published, and checks the doorbell.  */
static gboolean
take_some (StRecordQueue *q, void *data)
{
  Taken *t = data;
  int fd = st_record_queue_fd (q);
  ssize_t n;

  g_assert_true (readable (fd));
  n = st_record_queue_read (q, t->got + t->total, 100000);
  g_assert_cmpint (n, >, 0);
  t->total += (size_t) n;
  /* All of it: nothing left, the doorbell quiet.  */
  while (readable (fd))
    {
      n = st_record_queue_read (q, t->got + t->total, TOTAL - t->total);
      g_assert_cmpint (n, >, 0);
      t->total += (size_t) n;
    }
  g_assert_cmpuint (st_record_queue_bytes (q), ==, 0);
  return TRUE;
}

static void
test_in_order (void)
{
  StRecordQueue *q = st_record_queue_new (NULL);
  Taken t = { g_malloc (TOTAL), 0 };
  ssize_t n;

  g_assert_false (readable (st_record_queue_fd (q)));
  push_all (q, take_some, &t);
  /* Closed: readable until the end was read, and after.  */
  while ((n = st_record_queue_read (q, t.got + t.total, TOTAL - t.total)) > 0)
    t.total += (size_t) n;
  g_assert_cmpint (n, ==, 0);
  g_assert_true (readable (st_record_queue_fd (q)));
  g_assert_cmpint (st_record_queue_read (q, t.got, 16), ==, 0);
  check_bytes (t.got, t.total);
  g_free (t.got);
  st_record_queue_free (q);
}

static void
test_unpublished (void)
{
  StRecordQueue *q = st_record_queue_new (NULL);
  uint8_t rec[64] = { 1 };

  st_record_queue_push (q, rec, sizeof rec);
  /* Appended is not published: the consumer is not woken.  */
  g_assert_false (readable (st_record_queue_fd (q)));
  g_assert_cmpuint (st_record_queue_bytes (q), ==, sizeof rec);
  st_record_queue_publish (q);
  g_assert_true (readable (st_record_queue_fd (q)));
  st_record_queue_free (q);
}

/* Peek leaves the bytes to be read, skip throws them away, across a
   chunk's end; ended only once closed and all taken.  */
static void
test_peek_skip (void)
{
  StRecordQueue *q = st_record_queue_new (NULL);
  g_autofree uint8_t *data = g_malloc (3u << 20);
  g_autofree uint8_t *got = g_malloc (3u << 20);
  size_t len = 3u << 20, at = 0;

  for (size_t i = 0; i < len; i++)
    data[i] = byte_at (i);
  st_record_queue_push (q, data, 64);
  /* Not published: not seen.  */
  g_assert_cmpuint (st_record_queue_peek (q, got, 16), ==, 0);
  st_record_queue_push (q, data + 64, len - 64);
  st_record_queue_publish (q);
  while (at < len)
    {
      size_t step = MIN ((size_t) 700001, len - at), n;

      n = st_record_queue_peek (q, got, step);
      g_assert_cmpuint (n, ==, step);
      g_assert_cmpmem (got, n, data + at, n);
      g_assert_false (st_record_queue_ended (q));
      /* Every other step thrown away, the others read.  */
      if ((at / 700001) % 2 == 0)
        n = st_record_queue_skip (q, step);
      else
        n = (size_t) st_record_queue_read (q, got, step);
      g_assert_cmpuint (n, ==, step);
      at += n;
    }
  g_assert_cmpuint (st_record_queue_bytes (q), ==, 0);
  g_assert_false (st_record_queue_ended (q));
  st_record_queue_close (q);
  g_assert_true (st_record_queue_ended (q));
  g_assert_cmpuint (st_record_queue_skip (q, 8), ==, 0);
  st_record_queue_free (q);
}

static gpointer
produce (gpointer data)
{
  push_all (data, NULL, NULL);
  return NULL;
}

static void
test_threads (void)
{
  StRecordQueue *q = st_record_queue_new (NULL);
  g_autofree uint8_t *got = g_malloc (TOTAL + 1);
  size_t total = 0;
  GThread *producer = g_thread_new ("producer", produce, q);
  ssize_t n;

  /* (st_record_queue_read waits in poll() on the doorbell.)  */
  while ((n = st_record_queue_read (q, got + total,
                                    MIN ((size_t) 300000, TOTAL + 1 - total)))
         > 0)
    total += (size_t) n;
  g_assert_cmpint (n, ==, 0);
  g_thread_join (producer);
  check_bytes (got, total);
  st_record_queue_free (q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-queue/in-order", test_in_order);
  g_test_add_func ("/record-queue/unpublished", test_unpublished);
  g_test_add_func ("/record-queue/peek-skip", test_peek_skip);
  g_test_add_func ("/record-queue/threads", test_threads);
  return g_test_run ();
}
