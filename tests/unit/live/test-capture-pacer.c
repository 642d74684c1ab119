/* Unit tests: the capture pacer against a model of Sysprof 48's reader
   (its muxer source, from the facts of sysprof 48.0: each time the pipe
   is readable it reads what the pipe holds into a 64 KiB buffer, skips
   the 256-byte file header, and passes on ONE frame; at the stop the
   buffer is thrown away).  Frames written in one burst reach that
   reader's output only one per wake-up; through the pacer every frame
   does, in packet mode (O_DIRECT on the pipe's write end) and, where
   that is refused, polled.  The bytes come through unchanged (also cut anywhere by the
   writer, and to a file, where nothing is paced), and a reader that goes
   away gives the writer EPIPE, and so does one that takes nothing for
   the grace after the recorder's stop.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "format/capture-types.h"
#include "live/capture-pacer.h"
#include "sysprof48-reader.h"

/* No give-up in these tests: every write waits for the model to read.  */
#define NO_GIVE_UP_US (60u * 1000 * 1000)

typedef struct
{
  int fd;
  guint frames_passed;         /* handed on, one per wake-up */
  GByteArray *passed;          /* their bytes */
  GByteArray *read;            /* every byte read, the header included */
} Reader;

static void
note_read (const uint8_t *data, size_t len, void *user)
{
  g_byte_array_append (((Reader *) user)->read, data, (guint) len);
}

static void
note_frame (const uint8_t *data, size_t len, void *user)
{
  Reader *r = user;

  g_byte_array_append (r->passed, data, (guint) len);
  r->frames_passed++;
}

/* The model reader until EOF (the stop).  */
static void *
reader_run (void *data)
{
  Reader *r = data;
  g_autofree Sysprof48Reader *model = g_new (Sysprof48Reader, 1);

  sysprof48_reader_init (model);
  for (;;)
    {
      struct pollfd pfd = { r->fd, POLLIN, 0 };

      if (poll (&pfd, 1, -1) < 0 && errno == EINTR)
        continue;
      if (sysprof48_reader_wake (model, r->fd, note_read, note_frame, r) <= 0)
        break;
    }
  return NULL;
}

/* The capture stream of N frames of sizes 24..., numbered.  */
static GByteArray *
make_stream (guint n)
{
  GByteArray *b = g_byte_array_new ();
  uint8_t header[ST_CAPTURE_HEADER_SIZE];

  memset (header, 0xab, sizeof header);
  g_byte_array_append (b, header, sizeof header);
  for (guint i = 0; i < n; i++)
    {
      uint8_t frame[512];
      uint16_t len = (uint16_t) (ST_CAPTURE_FRAME_HEADER + 8 * (i % 50));

      memset (frame, 0, sizeof frame);
      memcpy (frame, &len, sizeof len);
      memcpy (frame + 4, &i, sizeof i);
      for (guint k = ST_CAPTURE_FRAME_HEADER; k < len; k++)
        frame[k] = (uint8_t) (i + k);
      g_byte_array_append (b, frame, len);
    }
  return b;
}

static void
write_all (int fd, const uint8_t *p, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      g_assert_cmpint (n, >, 0);
      p += n;
      len -= (size_t) n;
    }
}

/* STREAM written into FD in pieces of STEP bytes.  */
static void
write_in_steps (int fd, const GByteArray *stream, size_t step)
{
  for (size_t at = 0; at < stream->len; at += step)
    write_all (fd, stream->data + at, MIN (step, stream->len - at));
}

static void
start_reader (Reader *r, pthread_t *t, int fd)
{
  r->fd = fd;
  r->frames_passed = 0;
  r->passed = g_byte_array_new ();
  r->read = g_byte_array_new ();
  g_assert_cmpint (pthread_create (t, NULL, reader_run, r), ==, 0);
}

static void
stop_reader (Reader *r, pthread_t t)
{
  pthread_join (t, NULL);
  close (r->fd);
  g_byte_array_unref (r->passed);
  g_byte_array_unref (r->read);
}

/* The model itself: a burst reaches it one frame per wake-up.  */
static void
test_model_loses_a_burst (void)
{
  g_autoptr (GByteArray) stream = make_stream (200);   /* < 64 KiB */
  Reader r;
  pthread_t t;
  int fds[2];

  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  g_assert_cmpint (fcntl (fds[1], F_SETPIPE_SZ, 1 << 20), >=, 0);
  /* All of it in the pipe before the reader wakes.  */
  write_all (fds[1], stream->data, stream->len);
  close (fds[1]);
  start_reader (&r, &t, fds[0]);
  pthread_join (t, NULL);
  g_assert_cmpuint (r.read->len, ==, stream->len);
  g_assert_cmpuint (r.frames_passed, <=, 2);
  close (r.fd);
  g_byte_array_unref (r.passed);
  g_byte_array_unref (r.read);
}

static void
check_paced (size_t step, gboolean packets)
{
  g_autoptr (GByteArray) stream = make_stream (400);
  Reader r;
  pthread_t t;
  int fds[2];
  StCapturePacerCounts c;
  StCapturePacer *p;

  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  start_reader (&r, &t, fds[0]);
  p = st_capture_pacer_new_full (fds[1], -1, NO_GIVE_UP_US, packets,
                                 NULL);
  g_assert_nonnull (p);
  st_capture_pacer_counts (p, &c);
  if (packets && c.mode != ST_CAPTURE_PACER_PACKETS)
    {
      /* A kernel without packet mode on a pipe's write end.  */
      st_capture_pacer_finish (p);
      st_capture_pacer_free (p);
      close (fds[1]);
      stop_reader (&r, t);
      g_test_skip ("no packet mode (O_DIRECT) on this kernel's pipes");
      return;
    }
  g_assert_cmpint (c.mode, ==, packets ? ST_CAPTURE_PACER_PACKETS
                                       : ST_CAPTURE_PACER_POLLED);
  /* The writer's bursts: the whole stream at once, or cut anywhere.  */
  write_in_steps (st_capture_pacer_input_fd (p), stream, step);
  st_capture_pacer_finish (p);
  close (fds[1]);
  pthread_join (t, NULL);
  st_capture_pacer_counts (p, &c);
  g_assert_cmpuint (c.frames, ==, 400);
  g_assert_cmpuint (c.waits_given_up, ==, 0);
  g_assert_false (st_capture_pacer_reader_gone (p));
  st_capture_pacer_free (p);
  /* Every frame handed on, in order, unchanged.  */
  g_assert_cmpuint (r.read->len, ==, stream->len);
  g_assert_cmpmem (r.read->data, r.read->len, stream->data, stream->len);
  g_assert_cmpuint (r.frames_passed, ==, 400);
  g_assert_cmpmem (r.passed->data, r.passed->len,
                   stream->data + ST_CAPTURE_HEADER_SIZE,
                   stream->len - ST_CAPTURE_HEADER_SIZE);
  r.fd = fds[0];
  g_byte_array_unref (r.passed);
  g_byte_array_unref (r.read);
  close (fds[0]);
}

static void
test_packets_burst (void)
{
  check_paced (SIZE_MAX / 2, TRUE);
}

static void
test_packets_cut_anywhere (void)
{
  check_paced (37, TRUE);
}

static void
test_polled_burst (void)
{
  check_paced (SIZE_MAX / 2, FALSE);
}

static void
test_polled_cut_anywhere (void)
{
  check_paced (37, FALSE);
}

/* A reader that already holds frames (written before the pacer, e.g.
   while it was behind) gets them handed on by the pieces of later
   frames: the pacer is told of them by its estimate only, so here the
   frames before are written through the pacer while the reader sleeps
   (the wait gives up), then the reader wakes.  */
static void
test_backlog_drained (void)
{
  g_autoptr (GByteArray) stream = make_stream (600);
  Reader r;
  pthread_t t;
  int fds[2];
  StCapturePacerCounts c;
  StCapturePacer *p;
  size_t first = ST_CAPTURE_HEADER_SIZE;
  guint frames_first = 0;

  /* The first 100 frames' bytes.  */
  while (frames_first < 100)
    {
      uint16_t len;
      memcpy (&len, stream->data + first, sizeof len);
      first += len;
      frames_first++;
    }
  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  g_assert_cmpint (fcntl (fds[1], F_SETPIPE_SZ, 1 << 20), >=, 0);
  p = st_capture_pacer_new_full (fds[1], -1, 1000, FALSE, NULL);
  g_assert_nonnull (p);
  write_all (st_capture_pacer_input_fd (p), stream->data, first);
  /* The pacer gives up waiting (nobody reads) and writes the rest in
     bulk: wait until all of it is in the capture pipe.  */
  for (;;)
    {
      int n = 0;
      g_assert_cmpint (ioctl (fds[0], FIONREAD, &n), ==, 0);
      if ((size_t) n == first)
        break;
      g_usleep (1000);
    }
  /* From now on the pacer waits as long as it takes (a loaded machine
     must not make it give up again).  */
  st_capture_pacer_set_wait (p, NO_GIVE_UP_US);
  start_reader (&r, &t, fds[0]);
  /* The reader has read the burst (and handed on one frame of it).  */
  for (;;)
    {
      int n = 0;
      g_assert_cmpint (ioctl (fds[0], FIONREAD, &n), ==, 0);
      if (n == 0)
        break;
      g_usleep (1000);
    }
  write_all (st_capture_pacer_input_fd (p), stream->data + first,
             stream->len - first);
  st_capture_pacer_finish (p);
  close (fds[1]);
  pthread_join (t, NULL);
  st_capture_pacer_counts (p, &c);
  g_assert_cmpuint (c.frames, ==, 600);
  g_assert_cmpuint (c.waits_given_up, >=, 1);
  st_capture_pacer_free (p);
  g_assert_cmpuint (r.read->len, ==, stream->len);
  /* Without the pieces, the reader would end holding about the 100
     frames of the burst; it hands on nearly all.  */
  g_test_message ("%u of 600 frames handed on", r.frames_passed);
  g_assert_cmpuint (r.frames_passed, >=, 590);
  g_byte_array_unref (r.passed);
  g_byte_array_unref (r.read);
  close (fds[0]);
}

/* To a file: the same bytes, nothing waited for.  */
static void
test_file (void)
{
  g_autoptr (GByteArray) stream = make_stream (200);
  g_autofree char *path = NULL;
  g_autofree char *got = NULL;
  gsize got_len = 0;
  int fd = g_file_open_tmp ("pacer-XXXXXX", &path, NULL);
  StCapturePacer *p;

  g_assert_cmpint (fd, >=, 0);
  p = st_capture_pacer_new (fd, -1, NULL);
  write_in_steps (st_capture_pacer_input_fd (p), stream, 1000);
  st_capture_pacer_finish (p);
  st_capture_pacer_free (p);
  close (fd);
  g_assert_true (g_file_get_contents (path, &got, &got_len, NULL));
  g_assert_cmpmem (got, got_len, stream->data, stream->len);
  unlink (path);
}

/* The reader goes away: the writer's next writes fail with EPIPE.  */
static void
test_reader_gone (void)
{
  g_autoptr (GByteArray) stream = make_stream (50);
  int fds[2];
  StCapturePacer *p;
  int in;
  ssize_t n = 1;

  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  close (fds[0]);
  p = st_capture_pacer_new (fds[1], -1, NULL);
  in = st_capture_pacer_input_fd (p);
  /* Until the thread has seen EPIPE and closed its end.  */
  for (guint i = 0; i < 100000 && n > 0; i++)
    n = write (in, stream->data, stream->len);
  g_assert_cmpint (n, <, 0);
  g_assert_cmpint (errno, ==, EPIPE);
  st_capture_pacer_finish (p);
  g_assert_true (st_capture_pacer_reader_gone (p));
  st_capture_pacer_free (p);
  close (fds[1]);
}

/* A reader that takes nothing more once the recorder stopped (its
   eventfd written): the pacer gives up after the grace, the writer gets
   EPIPE, and the figures say what was not written.  */
static void
test_stop_grace (void)
{
  g_autoptr (GByteArray) stream = make_stream (2000);
  int fds[2];
  int stop = eventfd (0, EFD_CLOEXEC);
  uint64_t one = 1;
  StCapturePacerCounts c;
  StCapturePacer *p;
  int in;
  ssize_t n = 1;

  g_assert_cmpint (stop, >=, 0);
  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  p = st_capture_pacer_new (fds[1], stop, NULL);
  in = st_capture_pacer_input_fd (p);
  g_assert_cmpint (write (stop, &one, sizeof one), ==, sizeof one);
  /* Nobody reads fds[0]: the capture pipe fills, then the grace runs
     out and the pacer closes its pipe.  */
  for (guint i = 0; i < 1000000 && n > 0; i++)
    n = write (in, stream->data, stream->len);
  g_assert_cmpint (n, <, 0);
  g_assert_cmpint (errno, ==, EPIPE);
  st_capture_pacer_finish (p);
  st_capture_pacer_counts (p, &c);
  g_assert_cmpuint (c.abandoned_bytes, >, 0);
  g_assert_true (st_capture_pacer_reader_gone (p));
  st_capture_pacer_free (p);
  close (fds[0]);
  close (fds[1]);
  close (stop);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/capture-pacer/model-loses-a-burst",
                   test_model_loses_a_burst);
  g_test_add_func ("/capture-pacer/packets/burst", test_packets_burst);
  g_test_add_func ("/capture-pacer/packets/cut-anywhere",
                   test_packets_cut_anywhere);
  g_test_add_func ("/capture-pacer/polled/burst", test_polled_burst);
  g_test_add_func ("/capture-pacer/polled/cut-anywhere",
                   test_polled_cut_anywhere);
  g_test_add_func ("/capture-pacer/polled/backlog-drained",
                   test_backlog_drained);
  g_test_add_func ("/capture-pacer/file", test_file);
  g_test_add_func ("/capture-pacer/reader-gone", test_reader_gone);
  g_test_add_func ("/capture-pacer/stop-grace", test_stop_grace);
  return g_test_run ();
}
