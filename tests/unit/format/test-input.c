/* StInput (lib/format/input.c): pipes fed in odd-sized chunks (every
   byte against a known pattern, peeks aligned as their offsets), skips
   past the end, read errors, the wait function of a stalled input, and
   regular files mapped (peeked bytes stay valid, growth is read).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "util/domain.h"
#include "format/input.h"
#include "proc-status.h"

static uint8_t
pattern (uint64_t i)
{
  return (uint8_t) (i * 7 + (i >> 8) + (i >> 16));
}

typedef struct
{
  int fd;
  uint64_t size;
} Feeder;

/* Writes SIZE pattern bytes in odd-sized chunks with short pauses, so the
   reader sees partial reads, then closes the write end.  */
static gpointer
feed (gpointer data)
{
  static const size_t chunks[] = { 1, 7, 13, 4093, 3, 65537, 24, 99991, 5 };
  Feeder *f = data;
  uint8_t *buf = g_malloc (100000);
  uint64_t done = 0;
  unsigned k = 0;

  while (done < f->size)
    {
      size_t n = MIN (chunks[k % G_N_ELEMENTS (chunks)], f->size - done);
      for (size_t i = 0; i < n; i++)
        buf[i] = pattern (done + i);
      g_assert_cmpint (write (f->fd, buf, n), ==, (ssize_t) n);
      done += n;
      if (k++ % 5 == 0)
        g_usleep (200);
    }
  close (f->fd);
  g_free (buf);
  g_free (f);
  return NULL;
}

static GThread *
start_feeder (int *read_fd, uint64_t size)
{
  int fds[2];
  Feeder *f = g_new0 (Feeder, 1);

  g_assert_no_errno (pipe (fds));
  f->fd = fds[1];
  f->size = size;
  *read_fd = fds[0];
  return g_thread_new ("feeder", feed, f);
}

static void
check_bytes (const uint8_t *p, uint64_t offset, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i] != pattern (offset + i))
      g_error ("byte %" G_GUINT64_FORMAT " differs", offset + i);
}

/* Peeks N bytes and checks content and alignment.  */
static const uint8_t *
peek_check (StInput *in, size_t n)
{
  GError *error = NULL;
  size_t avail = 0;
  const uint8_t *p = st_input_peek (in, n, &avail, &error);
  uint64_t offset = st_input_offset (in);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  g_assert_cmpuint (avail, >=, n);
  g_assert_cmpuint ((uintptr_t) p % 16, ==, offset % 16);
  check_bytes (p, offset, n);
  return p;
}

static void
test_input_pipe_chunks (void)
{
  const uint64_t size = 5 * 1024 * 1024 + 17;
  int fd;
  GThread *t = start_feeder (&fd, size);
  StInput *in = st_input_new (fd);
  GError *error = NULL;
  size_t avail = 0;

  /* Small peeks across chunk boundaries at every alignment.  */
  for (unsigned i = 0; i < 200; i++)
    {
      size_t n = 1 + (i * 37) % 300;
      peek_check (in, n);
      st_input_consume (in, (i % 3 == 0) ? n : (n + 1) / 2);
    }

  /* A peek that is a second peek of bytes already buffered.  */
  uint64_t off = st_input_offset (in);
  const uint8_t *p = peek_check (in, 24);
  const uint8_t *q = peek_check (in, 24);
  g_assert_true (p == q);
  g_assert_cmpuint (st_input_offset (in), ==, off);
  st_input_consume (in, 3);

  /* Larger than the initial buffer: the buffer must grow and keep the
     alignment.  */
  peek_check (in, 3 * 1024 * 1024 + 5);
  st_input_consume (in, 1024 * 1024 + 1);

  g_assert_true (st_input_skip (in, 123457, &error));
  g_assert_no_error (error);
  off = st_input_offset (in);
  g_assert_cmpuint (off, ==, st_input_offset (in));
  peek_check (in, 11);

  /* Skip more than is buffered.  */
  g_assert_true (st_input_skip (in, 2 * 1024 * 1024 + 3, &error));
  g_assert_no_error (error);
  peek_check (in, 1);

  /* Asking for more than is left: NULL, AVAILABLE = what is left.  */
  uint64_t left = size - st_input_offset (in);
  g_assert_null (st_input_peek (in, left + 1, &avail, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (avail, ==, left);
  peek_check (in, left);
  st_input_consume (in, left);

  /* Clean EOF.  */
  g_assert_null (st_input_peek (in, 1, &avail, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (avail, ==, 0);
  g_assert_cmpuint (st_input_offset (in), ==, size);
  g_assert_cmpint (st_input_fd (in), ==, fd);

  st_input_free (in);
  g_thread_join (t);
  close (fd);
}

/* Held (st_input_hold): what was peeked, once marked as maybe held,
   stays in place, unchanged and stable, across megabytes of later peeks
   (some larger than the buffer) until released; released, the buffers
   are used again: reading on with releases as it goes takes no more
   memory.  What is read without a mark (garbage skipped within one
   event's read) takes no more memory either, released or not.  Not
   held: an earlier peek is not stable.  */
static void
test_input_pipe_held (void)
{
  const uint64_t size = 64 * 1024 * 1024;
  int fd;
  GThread *t = start_feeder (&fd, size);
  StInput *in = st_input_new (fd);
  const uint8_t *kept[64];
  uint64_t kept_at[64];
  guint n_kept = 0;

  /* Not held yet.  */
  const uint8_t *first = peek_check (in, 100);
  st_input_consume (in, 100);
  peek_check (in, 3 * 1024 * 1024);
  g_assert_false (st_input_stable (in, first, 100));
  st_input_consume (in, 3 * 1024 * 1024);

  st_input_hold (in);
  for (guint i = 0; st_input_offset (in) < 16 * 1024 * 1024; i++)
    {
      size_t n = i % 50 == 49 ? 2 * 1024 * 1024 + 3 : 1 + (i * 7919) % 9000;
      st_input_mark_held (in);
      const uint8_t *p = peek_check (in, n);
      if (i % 40 == 0 && n_kept < G_N_ELEMENTS (kept))
        {
          kept[n_kept] = p;
          kept_at[n_kept++] = st_input_offset (in);
        }
      st_input_consume (in, n);
    }
  g_assert_cmpuint (n_kept, >=, 8);
  for (guint k = 0; k < n_kept; k++)
    {
      g_assert_true (st_input_stable (in, kept[k], 1));
      check_bytes (kept[k], kept_at[k], 1);
    }

  /* Released as it goes (a window of about a megabyte): the memory
     stays what it was.  */
  st_input_release (in, G_MAXUINT64);
  st_input_trim (in);
  guint64 rss_before = proc_status_kib ("RssAnon");
  while (st_input_offset (in) < 24 * 1024 * 1024)
    {
      st_input_mark_held (in);
      peek_check (in, 8192);
      st_input_consume (in, 8192);
      st_input_release (in, st_input_offset (in) - MIN (st_input_offset (in),
                                                        1024 * 1024));
    }
  guint64 rss_after = proc_status_kib ("RssAnon");
  g_assert_cmpuint (rss_after, <=, rss_before + 12 * 1024);
  /* 40 MiB in one go, never released.  */
  st_input_mark_held (in);
  while (st_input_offset (in) < size - 16 * 1024)
    {
      peek_check (in, 8192);
      st_input_consume (in, 8192);
    }
  rss_after = proc_status_kib ("RssAnon");
  g_assert_cmpuint (rss_after, <=, rss_before + 12 * 1024);

  st_input_free (in);
  g_thread_join (t);
  close (fd);
}

/* A pipe's buffer grown to ST_INPUT_PIPE_BYTES, never shrunk.  */
static void
test_input_pipe_grown (void)
{
  int probe[2], fds[2];

  g_assert_cmpint (pipe (probe), ==, 0);
  gboolean allowed = fcntl (probe[0], F_SETPIPE_SZ, ST_INPUT_PIPE_BYTES) >= 0;
  gboolean bigger = fcntl (probe[0], F_SETPIPE_SZ,
                           2 * ST_INPUT_PIPE_BYTES) >= 0;
  close (probe[0]);
  close (probe[1]);
  if (!allowed)
    {
      g_test_skip ("this system refuses a 1 MiB pipe");
      return;
    }
  g_assert_cmpint (pipe (fds), ==, 0);
  g_assert_cmpint (fcntl (fds[0], F_GETPIPE_SZ), <, ST_INPUT_PIPE_BYTES);
  StInput *in = st_input_new (fds[0]);
  g_assert_cmpint (fcntl (fds[0], F_GETPIPE_SZ), ==, ST_INPUT_PIPE_BYTES);
  st_input_free (in);
  if (bigger)
    {
      g_assert_cmpint (fcntl (fds[1], F_SETPIPE_SZ, 2 * ST_INPUT_PIPE_BYTES),
                       >=, 0);
      in = st_input_new (fds[0]);
      g_assert_cmpint (fcntl (fds[0], F_GETPIPE_SZ), ==,
                       2 * ST_INPUT_PIPE_BYTES);
      st_input_free (in);
    }
  close (fds[0]);
  close (fds[1]);
}

static void
test_input_truncated_skip (void)
{
  int fd;
  GThread *t = start_feeder (&fd, 100);
  StInput *in = st_input_new (fd);
  GError *error = NULL;

  peek_check (in, 10);
  st_input_consume (in, 10);
  g_assert_false (st_input_skip (in, 200, &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_TRUNCATED);
  g_assert_nonnull (strstr (error->message, "100"));
  g_assert_cmpuint (st_input_offset (in), ==, 100);
  g_clear_error (&error);

  st_input_free (in);
  g_thread_join (t);
  close (fd);
}

static void
test_input_read_error (void)
{
  int fd = open ("/", O_RDONLY | O_DIRECTORY);
  StInput *in;
  GError *error = NULL;
  size_t avail = 99;

  g_assert_cmpint (fd, >=, 0);
  in = st_input_new (fd);
  g_assert_null (st_input_peek (in, 8, &avail, &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_IO);
  g_assert_cmpuint (avail, ==, 0);
  g_clear_error (&error);
  st_input_free (in);
  close (fd);
}

typedef struct
{
  guint calls;
  guint stop_after;    /* 0: never stop */
} WaitCount;

static gboolean
count_waits (void *user)
{
  WaitCount *w = user;

  w->calls++;
  return w->stop_after == 0 || w->calls < w->stop_after;
}

static gpointer
write_later (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);

  g_usleep (150 * 1000);
  g_assert_cmpint (write (fd, "abcdefgh", 8), ==, 8);
  close (fd);
  return NULL;
}

/* A stalled input calls the wait function at once, then every interval,
   and the read still completes when data comes.  */
static void
test_input_wait_stall (void)
{
  int fds[2];
  GError *error = NULL;
  WaitCount w = { 0 };
  size_t avail = 0;

  g_assert_no_errno (pipe (fds));
  StInput *in = st_input_new (fds[0]);
  st_input_set_wait_func (in, 20, count_waits, &w);
  GThread *t = g_thread_new ("writer", write_later, GINT_TO_POINTER (fds[1]));
  const uint8_t *p = st_input_peek (in, 8, &avail, &error);
  g_assert_no_error (error);
  g_assert_nonnull (p);
  g_assert_cmpmem (p, 8, "abcdefgh", 8);
  /* ~150 ms of stall at 20 ms: once at once, then some 7 more.  */
  g_assert_cmpuint (w.calls, >=, 3);
  g_thread_join (t);
  st_input_consume (in, 8);
  g_assert_null (st_input_peek (in, 1, &avail, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (avail, ==, 0);
  st_input_free (in);
  close (fds[0]);
}

/* The wait function gives up: the read fails with ST_ERROR_STOPPED and
   what was buffered stays available.  */
static void
test_input_wait_stop (void)
{
  int fds[2];
  GError *error = NULL;
  WaitCount w = { 0, 3 };
  size_t avail = 0;

  g_assert_no_errno (pipe (fds));
  g_assert_cmpint (write (fds[1], "abc", 3), ==, 3);
  StInput *in = st_input_new (fds[0]);
  st_input_set_wait_func (in, 10, count_waits, &w);
  g_assert_null (st_input_peek (in, 8, &avail, &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_STOPPED);
  g_assert_cmpuint (avail, ==, 3);
  g_assert_cmpuint (w.calls, ==, 3);
  g_clear_error (&error);
  st_input_free (in);
  close (fds[0]);
  close (fds[1]);
}

/* A regular file is mapped: peeked bytes stay valid after later peeks
   (until released), reading starts at the descriptor's offset, and what
   the file grows by after it was mapped is still read.  PAGER: with the
   page tables filled and pages given back on a thread (map-pager.h).  */
static void
test_input_mapped_file (gconstpointer pager)
{
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("st-input-XXXXXX", &path, NULL);
  const size_t size = 3 * 1024 * 1024 + 5;
  uint8_t *data = g_malloc (size);

  g_assert_cmpint (fd, >=, 0);
  for (size_t i = 0; i < size; i++)
    data[i] = (uint8_t) (i * 7 + i / 4096);
  g_assert_cmpint (write (fd, data, size), ==, (ssize_t) size);
  /* Reading starts where the descriptor is, as read() would.  */
  g_assert_cmpint (lseek (fd, 16, SEEK_SET), ==, 16);

  StInput *in = st_input_new (fd);
  if (pager != NULL)
    g_assert_true (st_input_page_on_thread (in));
  size_t avail;
  const uint8_t *first = st_input_peek (in, 100, &avail, NULL);
  g_assert_nonnull (first);
  g_assert_cmpmem (first, 100, data + 16, 100);
  g_assert_true (st_input_stable (in, first, 100));
  st_input_consume (in, 100);
  uint64_t off = 116;
  while (off + 4096 <= size)
    {
      const uint8_t *p = st_input_peek (in, 4096, &avail, NULL);
      g_assert_nonnull (p);
      g_assert_cmpmem (p, 4096, data + off, 4096);
      st_input_consume (in, 4096);
      off += 4096;
    }
  /* Still valid: nothing was released.  */
  g_assert_cmpmem (first, 100, data + 16, 100);
  st_input_release (in, off);
  g_assert_cmpuint (st_input_offset (in), ==, off);

  /* The file grows: the rest and the new bytes come through the buffer.  */
  g_assert_cmpint (pwrite (fd, data, 1000, (off_t) size), ==, 1000);
  size_t rest = size - off;
  const uint8_t *p = st_input_peek (in, rest + 1000, &avail, NULL);
  g_assert_nonnull (p);
  g_assert_cmpmem (p, rest, data + off, rest);
  g_assert_cmpmem (p + rest, 1000, data, 1000);
  g_assert_false (st_input_stable (in, p, 8));
  st_input_consume (in, rest + 1000);
  g_assert_null (st_input_peek (in, 1, &avail, NULL));
  g_assert_cmpuint (avail, ==, 0);

  st_input_free (in);
  close (fd);
  g_unlink (path);
  g_free (data);
}

/* Releasing "everything" (G_MAXUINT64: an empty reorder window) gives
   back only what was read: the pages still to come are given back too
   as they are passed, so a whole read of a 96 MiB file never holds more
   than a few steps of it.  (Before, the first such release marked the
   whole file given back, and the rest of it stayed resident.)  */
static void
test_input_release_everything (gconstpointer pager)
{
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("st-input-XXXXXX", &path, NULL);
  const size_t size = 96u << 20;
  guint64 base, peak = 0;

  g_assert_cmpint (fd, >=, 0);
  g_assert_no_errno (ftruncate (fd, (off_t) size));
  StInput *in = st_input_new (fd);
  if (pager != NULL)
    g_assert_true (st_input_page_on_thread (in));
  base = proc_status_rss_file_kib ();
  for (size_t off = 0; off < size; off += 65536)
    {
      const volatile uint8_t *p = st_input_peek (in, 65536, NULL, NULL);
      g_assert_nonnull (p);
      /* Read, as a reader would: every page mapped.  */
      for (size_t i = 0; i < 65536; i += 4096)
        (void) p[i];
      st_input_consume (in, 65536);
      st_input_release (in, G_MAXUINT64);
      if (off % (4u << 20) == 0)
        peak = MAX (peak, proc_status_rss_file_kib ());
    }
  /* Two release steps and a populate step at most, and some slack;
     with the pager, what it may lag (16 MiB) and fill ahead (8) more.
     (Bounds it keeps whatever the load: the reader waits for it.)  */
  g_test_message ("peak %" G_GUINT64_FORMAT " KiB above the start", peak - base);
  g_assert_cmpuint (peak, <, base + (pager != NULL ? 56 : 32) * 1024);
  st_input_free (in);
  close (fd);
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/input/pipe-chunks", test_input_pipe_chunks);
  g_test_add_func ("/input/pipe-grown", test_input_pipe_grown);
  g_test_add_func ("/input/pipe-held", test_input_pipe_held);
  g_test_add_func ("/input/truncated-skip", test_input_truncated_skip);
  g_test_add_func ("/input/read-error", test_input_read_error);
  g_test_add_func ("/input/wait-stall", test_input_wait_stall);
  g_test_add_func ("/input/wait-stop", test_input_wait_stop);
  g_test_add_data_func ("/input/mapped-file", NULL, test_input_mapped_file);
  g_test_add_data_func ("/input/mapped-file/pager", "", test_input_mapped_file);
  g_test_add_data_func ("/input/release-everything", NULL,
                        test_input_release_everything);
  g_test_add_data_func ("/input/release-everything/pager", "",
                        test_input_release_everything);
  return g_test_run ();
}
