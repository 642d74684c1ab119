/* Buffered output with a sticky error.  */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/domain.h"
#include "format/output.h"

#define ST_OUTPUT_BUFFER (1u << 20)

struct StOutput
{
  int fd;
  StOutputWriteFunc write_func;   /* NULL: write(2) to FD */
  void *write_data;
  uint8_t *buf;
  size_t len;
  size_t cap;        /* ST_OUTPUT_BUFFER, more while held */
  size_t hold_max;   /* 0, or the bytes the buffer may grow to */
  uint64_t offset;   /* bytes written to the fd so far */
  int error;         /* first errno seen, 0 if none */
};

StOutput *
st_output_new (int fd)
{
  StOutput *out = g_new0 (StOutput, 1);
  out->fd = fd;
  out->buf = g_malloc (ST_OUTPUT_BUFFER);
  out->cap = ST_OUTPUT_BUFFER;
  return out;
}

StOutput *
st_output_new_func (StOutputWriteFunc func, void *data)
{
  StOutput *out = st_output_new (-1);
  out->write_func = func;
  out->write_data = data;
  return out;
}

void
st_output_free (StOutput *out)
{
  if (out == NULL)
    return;
  g_free (out->buf);
  g_free (out);
}

static void
drain (StOutput *out)
{
  size_t done = 0;

  while (done < out->len && out->error == 0)
    {
      ssize_t n = out->write_func != NULL
                  ? out->write_func (out->write_data, out->buf + done,
                                     out->len - done)
                  : write (out->fd, out->buf + done, out->len - done);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          out->error = errno;
          break;
        }
      done += n;
    }
  out->offset += done;
  out->len = 0;
}

/* st_output_write when the buffer fills up (or has failed).  */
G_GNUC_NO_INLINE static void
write_slow (StOutput *out, const void *data, size_t len)
{
  const uint8_t *p = data;

  if (out->error != 0)
    return;
  while (len > 0)
    {
      size_t n = MIN (len, out->cap - out->len);
      memcpy (out->buf + out->len, p, n);
      out->len += n;
      p += n;
      len -= n;
      if (out->len < out->cap)
        continue;
      if (out->cap < out->hold_max)
        {
          out->cap = MIN (2 * out->cap, out->hold_max);
          out->buf = g_realloc (out->buf, out->cap);
        }
      else
        {
          out->hold_max = 0;   /* the bound: what is held goes out */
          drain (out);
        }
      if (out->error != 0)
        return;
    }
}

uint8_t *
st_output_reserve (StOutput *out, size_t len)
{
  /* Mostly the bytes fit in the buffer.  (Zero bytes, maybe from NULL,
     go the slow way: memcpy wants a pointer.)  */
  if (G_LIKELY (out->error == 0 && len > 0 && len < out->cap - out->len))
    return out->buf + out->len;
  return NULL;
}

void
st_output_write (StOutput *out, const void *data, size_t len)
{
  /* A few times per record.  */
  uint8_t *room = st_output_reserve (out, len);

  if (G_LIKELY (room != NULL))
    {
      memcpy (room, data, len);
      out->len += len;
      return;
    }
  write_slow (out, data, len);
}

void
st_output_commit (StOutput *out, size_t len)
{
  g_return_if_fail (len < out->cap - out->len);
  out->len += len;
}

void
st_output_pad (StOutput *out, size_t len)
{
  static const uint8_t zeros[64];

  while (len > 0)
    {
      size_t n = MIN (len, sizeof zeros);
      st_output_write (out, zeros, n);
      len -= n;
    }
}

uint64_t
st_output_written (const StOutput *out)
{
  return out->offset;
}

uint64_t
st_output_offset (const StOutput *out)
{
  return out->offset + out->len;
}

static gboolean
report (const StOutput *out, GError **error)
{
  if (out->error == 0)
    return TRUE;
  if (out->error == EPIPE)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_BROKEN_PIPE, "the output was "
                   "closed by its reader (broken pipe) at output offset %"
                   G_GUINT64_FORMAT, out->offset);
      return FALSE;
    }
  g_set_error (error, ST_ERROR, ST_ERROR_IO, "write failed at output offset %"
               G_GUINT64_FORMAT ": %s", out->offset, g_strerror (out->error));
  return FALSE;
}

void
st_output_hold (StOutput *out, size_t max_bytes)
{
  out->hold_max = max_bytes;
}

void
st_output_release (StOutput *out)
{
  out->hold_max = 0;
}

gboolean
st_output_holding (const StOutput *out)
{
  return out->hold_max > 0;
}

gboolean
st_output_patch (StOutput *out, uint64_t offset, const void *data,
                 size_t len)
{
  if (offset < out->offset || offset + len > out->offset + out->len)
    return FALSE;
  memcpy (out->buf + (offset - out->offset), data, len);
  return TRUE;
}

gboolean
st_output_flush (StOutput *out, GError **error)
{
  if (out->hold_max > 0)
    return report (out, error);
  if (out->error == 0 && out->len > 0)
    drain (out);
  return report (out, error);
}

gboolean
st_output_seekable (const StOutput *out)
{
  struct stat st;

  return fstat (out->fd, &st) == 0 && S_ISREG (st.st_mode)
         && lseek (out->fd, 0, SEEK_CUR) >= 0;
}

gboolean
st_output_pwrite (StOutput *out, const void *data, size_t len,
                  uint64_t offset, GError **error)
{
  if (!st_output_flush (out, error))
    return FALSE;
  ssize_t n = pwrite (out->fd, data, len, (off_t) offset);
  if (n != (ssize_t) len)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO, "pwrite at output offset %"
                   G_GUINT64_FORMAT " failed: %s", offset,
                   n < 0 ? g_strerror (errno) : "short write");
      return FALSE;
    }
  return TRUE;
}

int
st_output_fd (const StOutput *out)
{
  return out->fd;
}

gboolean
st_output_failed (const StOutput *out)
{
  return out->error != 0;
}
