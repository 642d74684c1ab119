/* Sysprof 48.0's reading of a live unwinder's capture; see the header.  */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sysprof48-reader.h"

#define FILE_HEADER 256
#define FRAME_HEADER 24

void
sysprof48_reader_init (Sysprof48Reader *r)
{
  r->begin = r->end = 0;
  r->to_skip = FILE_HEADER;
}

ssize_t
sysprof48_reader_wake (Sysprof48Reader *r, int fd, Sysprof48BytesFunc on_read,
                       Sysprof48BytesFunc on_frame, void *user)
{
  ssize_t n;

  do
    n = read (fd, r->buf + r->end, sizeof r->buf - r->end);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return n;
  if (on_read != NULL)
    on_read (r->buf + r->end, (size_t) n, user);
  r->end += (size_t) n;
  if (r->to_skip > 0)
    {
      size_t k = MIN (r->to_skip, r->end - r->begin);
      r->begin += k;
      r->to_skip -= k;
    }
  if (r->end - r->begin >= FRAME_HEADER)
    {
      uint16_t len;

      memcpy (&len, r->buf + r->begin, sizeof len);
      if (len <= r->end - r->begin)
        {
          if (on_frame != NULL)
            on_frame (r->buf + r->begin, len, user);
          r->begin += len;
        }
    }
  memmove (r->buf, r->buf + r->begin, r->end - r->begin);
  r->end -= r->begin;
  r->begin = 0;
  return n;
}

guint
sysprof48_reader_held_frames (const Sysprof48Reader *r)
{
  size_t at = r->begin;
  guint n = 0;

  while (r->end - at >= FRAME_HEADER)
    {
      uint16_t len;

      memcpy (&len, r->buf + at, sizeof len);
      if (len < FRAME_HEADER || len > r->end - at)
        break;
      at += len;
      n++;
    }
  return n;
}
