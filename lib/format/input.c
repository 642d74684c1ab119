/* Buffered forward-only input.  The buffer keeps each byte at the same
   alignment (mod 16) as its input offset, so 8-aligned frames and records
   can be read in place.  */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "format/domain.h"
#include "format/input.h"

#define ST_INPUT_CHUNK (1u << 20)

struct StInput
{
  int fd;
  uint8_t *buf;
  size_t cap;
  size_t start;     /* index of the first unconsumed byte */
  size_t end;       /* index past the last buffered byte */
  uint64_t offset;  /* input offset of buf[start] */
  gboolean eof;
  StInputWaitFunc wait_func;
  void *wait_data;
  int wait_interval_ms;
};

StInput *
st_input_new (int fd)
{
  StInput *in = g_new0 (StInput, 1);
  in->fd = fd;
  in->cap = 2 * ST_INPUT_CHUNK;
  in->buf = g_malloc (in->cap);
  return in;
}

void
st_input_free (StInput *in)
{
  if (in == NULL)
    return;
  g_free (in->buf);
  g_free (in);
}

void
st_input_set_wait_func (StInput *in, unsigned interval_ms,
                        StInputWaitFunc func, void *user)
{
  in->wait_func = func;
  in->wait_data = user;
  in->wait_interval_ms = (int) MIN (interval_ms, (unsigned) G_MAXINT);
}

/* Waits until a read would not block, calling the wait function while
   it would.  FALSE when that function gave up.  */
static gboolean
wait_for_data (StInput *in, GError **error)
{
  struct pollfd pfd = { .fd = in->fd, .events = POLLIN };
  int timeout = 0;

  for (;;)
    {
      int n = poll (&pfd, 1, timeout);
      /* Data, end of file or an error: read() tells which.  */
      if (n > 0 || (n < 0 && errno != EINTR))
        return TRUE;
      if (!in->wait_func (in->wait_data))
        {
          g_set_error (error, ST_ERROR, ST_ERROR_STOPPED,
                       "stopped while waiting for input at offset %"
                       G_GUINT64_FORMAT, in->offset + (in->end - in->start));
          return FALSE;
        }
      timeout = in->wait_interval_ms;
    }
}

/* Makes room for N unconsumed bytes plus a chunk to read into.  */
static void
make_room (StInput *in, size_t n)
{
  size_t have = in->end - in->start;
  size_t keep = MAX (n, have);
  size_t shift = in->offset % 16;

  if (in->start + keep + ST_INPUT_CHUNK <= in->cap)
    return;
  if (in->start != shift)
    {
      memmove (in->buf + shift, in->buf + in->start, have);
      in->start = shift;
      in->end = shift + have;
    }
  if (shift + keep + ST_INPUT_CHUNK > in->cap)
    {
      in->cap = MAX (shift + keep + ST_INPUT_CHUNK, in->cap * 2);
      in->buf = g_realloc (in->buf, in->cap);
    }
}

const uint8_t *
st_input_peek (StInput *in, size_t n, size_t *available, GError **error)
{
  while (in->end - in->start < n && !in->eof)
    {
      make_room (in, n);
      if (in->wait_func != NULL && !wait_for_data (in, error))
        {
          if (available)
            *available = in->end - in->start;
          return NULL;
        }
      ssize_t got = read (in->fd, in->buf + in->end, in->cap - in->end);
      if (got < 0)
        {
          if (errno == EINTR)
            continue;
          g_set_error (error, ST_ERROR, ST_ERROR_IO,
                       "read failed at offset %" G_GUINT64_FORMAT ": %s",
                       in->offset + (in->end - in->start), g_strerror (errno));
          if (available)
            *available = in->end - in->start;
          return NULL;
        }
      if (got == 0)
        in->eof = TRUE;
      in->end += got;
    }
  if (available)
    *available = in->end - in->start;
  if (in->end - in->start < n)
    return NULL;
  return in->buf + in->start;
}

void
st_input_consume (StInput *in, size_t n)
{
  g_assert (n <= in->end - in->start);
  in->start += n;
  in->offset += n;
}

gboolean
st_input_skip (StInput *in, uint64_t n, GError **error)
{
  while (n > 0)
    {
      size_t want = (size_t) MIN (n, (uint64_t) ST_INPUT_CHUNK);
      size_t avail = 0;
      GError *local = NULL;

      if (st_input_peek (in, want, &avail, &local) == NULL)
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          st_input_consume (in, avail);
          g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                       "input ended at offset %" G_GUINT64_FORMAT
                       " while skipping %" G_GUINT64_FORMAT " more bytes",
                       in->offset, n - avail);
          return FALSE;
        }
      st_input_consume (in, want);
      n -= want;
    }
  return TRUE;
}

uint64_t
st_input_offset (const StInput *in)
{
  return in->offset;
}

int
st_input_fd (const StInput *in)
{
  return in->fd;
}
