/* The capture written one frame per reader wake-up; the contract and
   why are in capture-pacer.h.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/capture-types.h"
#include "live/capture-pacer.h"
#include "util/domain.h"

/* What the thread reads at once; a frame is at most 64 KiB.  */
#define BUF_CAP (256u << 10)
/* The pacer's own pipe: larger than the default where the kernel allows,
   so the writer rarely waits for the thread.  */
#define INPUT_PIPE_SIZE (1 << 20)
/* Bytes waiting in that pipe past which the thread is behind the writer
   and copies what it has in one write.  */
#define INPUT_BEHIND (256u << 10)
/* Sysprof 48's reader buffer: after a time behind, it holds at most
   this many bytes of frames not passed on.  */
#define READER_BUFFER (64u << 10)
/* The steps of the wait for the reader: short first (it usually reads
   within tens of microseconds), then longer, so that a reader that is
   slow to get a CPU costs few looks.  */
#define POLL_FIRST_NS 5000
#define POLL_MAX_NS 200000

struct StCapturePacer
{
  int out_fd;
  int stop_fd;                 /* the recorder's stop eventfd, or -1 */
  int64_t stop_ns;             /* when it was seen written, or 0 */
  int in_r, in_w;              /* the pacer's pipe */
  int wait_us;                 /* atomic */
  StCapturePacerMode mode;
  pthread_t thread;
  gboolean started, joined;
  int gone;                    /* atomic: the capture's reader went away */

  uint8_t *buf;
  size_t have;
  size_t header_left;          /* file header bytes still to copy */
  gboolean unframed;           /* not frames as expected: copied as they are */
  gboolean behind;             /* the reader did not take a write in time */
  uint64_t unread;             /* frames the reader holds, not passed on */
  uint64_t bytes;              /* of the frames copied */
  StCapturePacerCounts counts;
};

static int64_t
now_ns (void)
{
  return g_get_monotonic_time () * 1000;
}

/* Waits until the capture pipe has room; FALSE once the stop is
   ST_CAPTURE_PACER_STOP_GRACE_MS behind and the reader still takes
   nothing (Sysprof drops what it has not read at the stop anyway).  */
static gboolean
wait_writable (StCapturePacer *p)
{
  for (;;)
    {
      struct pollfd pfd[2] = { { p->out_fd, POLLOUT, 0 },
                               { p->stop_fd, POLLIN, 0 } };
      nfds_t n = p->stop_fd >= 0 && p->stop_ns == 0 ? 2 : 1;
      int timeout = -1;

      if (p->stop_ns != 0)
        {
          int64_t left = p->stop_ns
                         + (int64_t) ST_CAPTURE_PACER_STOP_GRACE_MS * 1000000
                         - now_ns ();
          if (left <= 0)
            return FALSE;
          timeout = (int) (left / 1000000) + 1;
        }
      if (poll (pfd, n, timeout) < 0 && errno != EINTR)
        return FALSE;
      if (n == 2 && pfd[1].revents != 0)
        p->stop_ns = now_ns ();
      if (pfd[0].revents != 0)
        return TRUE;   /* room, or an error the write will tell */
    }
}

static gboolean
write_all (StCapturePacer *p, const uint8_t *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (p->out_fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN && wait_writable (p))
        continue;
      if (n < 0 && errno == EAGAIN)
        {
          p->counts.abandoned_bytes = len;
          g_atomic_int_set (&p->gone, 1);
          return FALSE;
        }
      if (n <= 0)
        {
          g_atomic_int_set (&p->gone, 1);
          return FALSE;
        }
      data += n;
      len -= (size_t) n;
    }
  p->counts.writes++;
  return TRUE;
}

/* Bytes waiting in pipe FD; 0 on error.  */
static size_t
pipe_bytes (int fd)
{
  int n = 0;

  return ioctl (fd, FIONREAD, &n) == 0 && n > 0 ? (size_t) n : 0;
}

/* Whether the reader took everything written within the limit.  */
static gboolean
taken_in_time (StCapturePacer *p)
{
  int64_t until = now_ns ()
                  + (int64_t) (guint) g_atomic_int_get (&p->wait_us) * 1000;
  struct timespec step = { 0, POLL_FIRST_NS };

  while (pipe_bytes (p->out_fd) > 0)
    {
      if (now_ns () >= until)
        return FALSE;
      nanosleep (&step, NULL);
      step.tv_nsec = MIN (step.tv_nsec * 2, POLL_MAX_NS);
    }
  return TRUE;
}

/* One write of LEN bytes that completes FRAMES frames; the estimate of
   what the reader holds follows it: a write it took by itself is one
   wake-up, one frame passed on.  */
static gboolean
send (StCapturePacer *p, const uint8_t *data, size_t len, uint64_t frames)
{
  if (!write_all (p, data, len))
    return FALSE;
  p->unread += frames;
  if (p->mode != ST_CAPTURE_PACER_POLLED)
    p->unread = 0;          /* packets: one read, one frame, no backlog */
  else if (!p->behind && taken_in_time (p))
    {
      if (p->unread > 0)
        p->unread--;
    }
  else if (!p->behind)
    {
      p->behind = TRUE;
      p->counts.waits_given_up++;
    }
  p->counts.backlog_max = MAX (p->counts.backlog_max, p->unread);
  return TRUE;
}

/* A reader that was behind and has taken everything since: pacing
   again.  What it holds is at most its buffer's worth.  */
static void
check_caught_up (StCapturePacer *p)
{
  uint64_t avg;

  if (!p->behind || p->mode != ST_CAPTURE_PACER_POLLED
      || pipe_bytes (p->out_fd) > 0)
    return;
  avg = p->counts.frames > 0 ? MAX (p->bytes / p->counts.frames, 8) : 8;
  p->behind = FALSE;
  p->unread = MIN (p->unread, READER_BUFFER / avg);
}

/* One frame, in as many pieces (8-byte multiples) as wake-ups are needed
   to pass on what the reader holds and the frame itself.  */
static gboolean
send_frame (StCapturePacer *p, const uint8_t *frame, size_t len)
{
  size_t pieces = 1 + MIN (p->unread, (uint64_t) ST_CAPTURE_PACER_MAX_PIECES - 1);
  size_t words = len / 8, at = 0;

  pieces = MAX (MIN (pieces, words), 1);
  for (size_t i = 0; i < pieces; i++)
    {
      size_t n = i + 1 < pieces ? words / pieces * 8 : len - at;

      if (!send (p, frame + at, n, i + 1 == pieces))
        return FALSE;
      at += n;
    }
  p->counts.frames++;
  return TRUE;
}

static gboolean
input_behind (const StCapturePacer *p)
{
  return pipe_bytes (p->in_r) > INPUT_BEHIND;
}

/* Copies what the buffer holds: the header, then whole frames (a frame
   cut by the buffer's end waits for the rest, unless FINAL).  */
static gboolean
copy (StCapturePacer *p, gboolean final)
{
  size_t at = 0;
  gboolean ok = TRUE;

  check_caught_up (p);
  if (p->header_left > 0 && p->have > 0)
    {
      size_t n = MIN (p->header_left, p->have);

      ok = send (p, p->buf, n, 0);
      p->header_left -= n;
      at = n;
    }
  while (ok && !p->unframed && p->have - at >= ST_CAPTURE_FRAME_HEADER)
    {
      uint16_t len;

      memcpy (&len, p->buf + at, sizeof len);
      if (len < ST_CAPTURE_FRAME_HEADER || len % 8 != 0)
        {
          p->unframed = TRUE;
          break;
        }
      if (p->have - at < len)
        break;
      if (p->mode != ST_CAPTURE_PACER_PACKETS
          && (p->behind || input_behind (p)))
        {
          /* Every whole frame held, in one write.  */
          size_t end = at;
          uint64_t frames = 0;

          while (p->have - end >= ST_CAPTURE_FRAME_HEADER)
            {
              memcpy (&len, p->buf + end, sizeof len);
              if (len < ST_CAPTURE_FRAME_HEADER || len % 8 != 0
                  || p->have - end < len)
                break;
              end += len;
              frames++;
            }
          p->counts.frames += frames;
          p->bytes += end - at;
          ok = send (p, p->buf + at, end - at, frames);
          p->counts.bulk_writes += frames > 1;
          at = end;
        }
      else
        {
          p->bytes += len;
          ok = send_frame (p, p->buf + at, len);
          at += len;
        }
    }
  if (ok && (p->unframed || final) && p->have > at)
    {
      ok = send (p, p->buf + at, p->have - at, 0);
      at = p->have;
    }
  memmove (p->buf, p->buf + at, p->have - at);
  p->have -= at;
  return ok;
}

static void *
run (void *data)
{
  StCapturePacer *p = data;

  for (;;)
    {
      ssize_t n = read (p->in_r, p->buf + p->have, BUF_CAP - p->have);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      p->have += (size_t) n;
      if (!copy (p, FALSE))
        break;
    }
  if (!g_atomic_int_get (&p->gone))
    copy (p, TRUE);
  p->counts.backlog_end = p->unread;
  /* The writer's next write fails with EPIPE, as it would have.  */
  close (p->in_r);
  p->in_r = -1;
  return NULL;
}

/* Packet mode on FD's pipe (the write end's O_DIRECT: each write is
   read by one read(), never merged with the next): whether it took.  */
static gboolean
set_packets (int fd)
{
  int fl = fcntl (fd, F_GETFL);

  return fl >= 0 && fcntl (fd, F_SETFL, fl | O_DIRECT) == 0
         && (fcntl (fd, F_GETFL) & O_DIRECT) != 0;
}

StCapturePacer *
st_capture_pacer_new (int capture_fd, int stop_fd, GError **error)
{
  return st_capture_pacer_new_full (capture_fd, stop_fd, 0, TRUE, error);
}

StCapturePacer *
st_capture_pacer_new_full (int capture_fd, int stop_fd, unsigned wait_us,
                           gboolean packets, GError **error)
{
  StCapturePacer *p = g_new0 (StCapturePacer, 1);
  int fds[2];
  struct stat st;
  sigset_t all, old;
  int err;

  p->out_fd = capture_fd;
  p->stop_fd = stop_fd;
  p->in_r = p->in_w = -1;
  st_capture_pacer_set_wait (p, wait_us);
  if (fstat (capture_fd, &st) != 0 || !S_ISFIFO (st.st_mode))
    p->mode = ST_CAPTURE_PACER_UNPACED;
  else if (packets && set_packets (capture_fd))
    p->mode = ST_CAPTURE_PACER_PACKETS;
  else
    p->mode = ST_CAPTURE_PACER_POLLED;
  p->counts.mode = p->mode;
  /* A pipe the reader stops taking from must not hold us past the
     stop's grace: writes that would block wait in poll() instead.  */
  if (p->mode != ST_CAPTURE_PACER_UNPACED)
    (void) fcntl (capture_fd, F_SETFL,
                  fcntl (capture_fd, F_GETFL) | O_NONBLOCK);
  p->header_left = ST_CAPTURE_HEADER_SIZE;
  p->buf = g_malloc (BUF_CAP);
  if (pipe2 (fds, O_CLOEXEC) != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO, "cannot make a pipe: %s",
                   g_strerror (errno));
      st_capture_pacer_free (p);
      return NULL;
    }
  p->in_r = fds[0];
  p->in_w = fds[1];
  (void) fcntl (p->in_w, F_SETPIPE_SZ, INPUT_PIPE_SIZE);
  /* Signals are the main thread's.  */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  err = pthread_create (&p->thread, NULL, run, p);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (err != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO,
                   "cannot start the capture writer thread: %s",
                   g_strerror (err));
      st_capture_pacer_free (p);
      return NULL;
    }
  p->started = TRUE;
  return p;
}

void
st_capture_pacer_set_wait (StCapturePacer *p, unsigned wait_us)
{
  g_atomic_int_set (&p->wait_us,
                    (int) MIN (wait_us > 0 ? wait_us : ST_CAPTURE_PACER_WAIT_US,
                               (unsigned) G_MAXINT));
}

const char *
st_capture_pacer_mode_name (StCapturePacerMode mode)
{
  switch (mode)
    {
    case ST_CAPTURE_PACER_UNPACED: return "unpaced";
    case ST_CAPTURE_PACER_PACKETS: return "packets";
    case ST_CAPTURE_PACER_POLLED: return "polled";
    }
  return "?";
}

int
st_capture_pacer_input_fd (const StCapturePacer *p)
{
  return p->in_w;
}

void
st_capture_pacer_finish (StCapturePacer *p)
{
  if (p->in_w >= 0)
    close (p->in_w);
  p->in_w = -1;
  if (p->started && !p->joined)
    {
      pthread_join (p->thread, NULL);
      p->joined = TRUE;
    }
}

void
st_capture_pacer_counts (const StCapturePacer *p, StCapturePacerCounts *c)
{
  *c = p->counts;
}

gboolean
st_capture_pacer_reader_gone (const StCapturePacer *p)
{
  return g_atomic_int_get (&((StCapturePacer *) p)->gone) != 0;
}

void
st_capture_pacer_free (StCapturePacer *p)
{
  if (p == NULL)
    return;
  st_capture_pacer_finish (p);
  if (p->in_r >= 0)
    close (p->in_r);
  g_free (p->buf);
  g_free (p);
}
