/* zstd decompression of perf record -z data, as a stream.

   perf compresses everything it reads from its data mmaps into a single
   zstd frame for the whole session, flushed at the end of each chunk and
   cut into compressed records; only the first of them starts with the
   frame's magic.  A compressed record that does not decode therefore
   breaks the stream: the records after it cannot be decoded either,
   until one starts a new frame.  */
#include "config.h"

#include <string.h>
#include <zstd.h>

#include "format/perf-decompress.h"
#include "format/perf-types.h"

#define INITIAL_CAPACITY (256u << 10)
#define ZSTD_TYPE        1              /* HEADER_COMPRESSED type */
#define FRAME_MAGIC      0xFD2FB528u    /* zstd frame, little-endian */

/* Held bytes from FIRST on came from the compressed record at OFFSET.  */
typedef struct
{
  size_t first;
  uint64_t offset;
} Segment;

struct StPerfDecompress
{
  ZSTD_DStream *stream;
  uint64_t limit;
  uint8_t *buf;
  size_t start, end, cap;   /* held bytes are buf[start, end) */
  GArray *segments;         /* Segment, ascending */
  gboolean broken;          /* the stream failed; wait for a new frame */
  uint64_t broken_at;       /* offset of the record that broke it */
};

StPerfDecompress *
st_perf_decompress_new (void)
{
  StPerfDecompress *d = g_new0 (StPerfDecompress, 1);

  /* Made at the first compressed record: a stream that cannot be made
     then is that record's error, not the host process's end.  */
  d->limit = ST_PERF_DECOMPRESS_DEFAULT_LIMIT;
  d->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  return d;
}

void
st_perf_decompress_free (StPerfDecompress *d)
{
  if (d == NULL)
    return;
  if (d->stream != NULL)
    ZSTD_freeDStream (d->stream);
  g_array_free (d->segments, TRUE);
  g_free (d->buf);
  g_free (d);
}

const char *
st_perf_decompress_set_feature (StPerfDecompress *d, const uint8_t *data,
                                size_t size)
{
  uint32_t type, mmap_len;

  if (size < 20)
    return "HEADER_COMPRESSED feature shorter than 20 bytes";
  memcpy (&type, data + 4, 4);
  memcpy (&mmap_len, data + 16, 4);
  if (type != ZSTD_TYPE)
    return "HEADER_COMPRESSED feature names a compression other than zstd";
  if (mmap_len == 0)
    return "HEADER_COMPRESSED feature with mmap_len 0";
  d->limit = MIN ((uint64_t) mmap_len, ST_PERF_DECOMPRESS_MAX_LIMIT);
  return NULL;
}

uint64_t
st_perf_decompress_limit (const StPerfDecompress *d)
{
  return d->limit;
}

/* Moves the held bytes to the start of the buffer.  */
static void
compact (StPerfDecompress *d)
{
  size_t keep = 0;

  if (d->start == 0)
    return;
  memmove (d->buf, d->buf + d->start, d->end - d->start);
  /* The segment holding the first held byte and those after it.  */
  while (keep + 1 < d->segments->len
         && g_array_index (d->segments, Segment, keep + 1).first <= d->start)
    keep++;
  g_array_remove_range (d->segments, 0, keep);
  for (guint i = 0; i < d->segments->len; i++)
    {
      Segment *s = &g_array_index (d->segments, Segment, i);
      s->first = s->first > d->start ? s->first - d->start : 0;
    }
  d->end -= d->start;
  d->start = 0;
}

/* The stream is unusable from the record at OFFSET on: drops what it
   held and waits for a new frame.  */
static void
break_stream (StPerfDecompress *d, uint64_t offset)
{
  d->start = d->end = 0;
  g_array_set_size (d->segments, 0);
  if (d->stream != NULL)
    ZSTD_DCtx_reset (d->stream, ZSTD_reset_session_only);
  d->broken = TRUE;
  d->broken_at = offset;
}

static gboolean
starts_frame (const uint8_t *data, size_t len)
{
  uint32_t magic;

  if (len < 4)
    return FALSE;
  memcpy (&magic, data, 4);
  return magic == FRAME_MAGIC;
}

/* The LEN bytes of zstd data at DATA, of the record at OFFSET, into the
   held bytes.  */
static char *
feed (StPerfDecompress *d, uint64_t offset, const uint8_t *data, size_t len,
      uint64_t *dropped)
{
  ZSTD_inBuffer in = { data, len, 0 };
  size_t before, most;
  gboolean full = FALSE;

  *dropped = 0;
  if (d->stream == NULL)
    {
      if ((d->stream = ZSTD_createDStream ()) == NULL)
        return g_strdup ("cannot be decoded: no memory for a zstd stream");
      ZSTD_initDStream (d->stream);
    }
  if (d->broken && !starts_frame (data, len))
    return g_strdup_printf ("continues the zstd stream that broke at "
                            "offset %" G_GUINT64_FORMAT " and cannot be "
                            "decoded", d->broken_at);
  d->broken = FALSE;
  compact (d);
  before = d->end;
  /* One byte more than the limit shows that it was passed.  */
  most = before + (size_t) d->limit + 1;
  while (in.pos < in.size || full)
    {
      ZSTD_outBuffer out;
      size_t ret;

      if (d->end == d->cap)
        {
          d->cap = MIN (MAX (2 * d->cap, (size_t) INITIAL_CAPACITY), most);
          d->buf = g_realloc (d->buf, d->cap);
        }
      out = (ZSTD_outBuffer) { d->buf + d->end, d->cap - d->end, 0 };
      ret = ZSTD_decompressStream (d->stream, &out, &in);
      d->end += out.pos;
      if (ZSTD_isError (ret))
        {
          char *why = g_strdup_printf ("corrupt zstd data (%s)",
                                       ZSTD_getErrorName (ret));
          break_stream (d, offset);
          *dropped = before;
          return why;
        }
      if (d->end - before > d->limit)
        {
          break_stream (d, offset);
          *dropped = before;
          return g_strdup_printf ("decompresses to more than %"
                                  G_GUINT64_FORMAT " bytes (the %s)",
                                  d->limit,
                                  d->limit == ST_PERF_DECOMPRESS_DEFAULT_LIMIT
                                  ? "default limit without a "
                                    "HEADER_COMPRESSED feature"
                                  : "mmap_len of the HEADER_COMPRESSED "
                                    "feature");
        }
      full = out.pos == out.size;
    }
  if (d->end > before)
    {
      Segment s = { before, offset };
      g_array_append_val (d->segments, s);
    }
  return NULL;
}

char *
st_perf_decompress_record (StPerfDecompress *d, uint64_t offset,
                           const uint8_t *rec, size_t size,
                           uint64_t *dropped)
{
  const size_t hdr = sizeof (StPerfEventHeader);
  uint32_t type;
  uint64_t len;

  *dropped = 0;
  g_return_val_if_fail (size >= hdr, NULL);
  memcpy (&type, rec, 4);
  if (type != ST_PERF_RECORD_COMPRESSED2)
    return feed (d, offset, rec + hdr, size - hdr, dropped);
  /* u64 data_size, then the data, padded to 8.  */
  if (size < hdr + 8)
    return g_strdup ("too short for its data size");
  len = st_perf_get_u64 (rec + hdr);
  if (len > size - hdr - 8)
    return g_strdup_printf ("data size %" G_GUINT64_FORMAT " runs past the "
                            "record", len);
  return feed (d, offset, rec + hdr + 8, len, dropped);
}

const uint8_t *
st_perf_decompress_held (const StPerfDecompress *d, size_t *len,
                         uint64_t *offset)
{
  uint64_t at = 0;

  for (guint i = 0; i < d->segments->len; i++)
    {
      const Segment *s = &g_array_index (d->segments, Segment, i);
      if (s->first > d->start)
        break;
      at = s->offset;
    }
  *len = d->end - d->start;
  if (offset != NULL)
    *offset = at;
  return d->buf != NULL ? d->buf + d->start : NULL;
}

void
st_perf_decompress_consume (StPerfDecompress *d, size_t n)
{
  g_return_if_fail (n <= d->end - d->start);
  d->start += n;
  if (d->start == d->end)
    {
      d->start = d->end = 0;
      g_array_set_size (d->segments, 0);
    }
}

/* Whether P, with ROOM bytes from it on, looks like the header of a
   record the kernel writes into perf's data mmap: a kernel record type,
   an 8-byte multiple.  */
static gboolean
plausible_kernel_record (const uint8_t *p, size_t room)
{
  StPerfEventHeader h;

  if (room < sizeof h)
    return FALSE;
  memcpy (&h, p, sizeof h);
  return h.type >= ST_PERF_RECORD_MMAP && h.type < ST_PERF_RECORD_KERNEL_MAX
         && h.size >= sizeof h && h.size % 8 == 0 && h.size <= room;
}

size_t
st_perf_decompress_skip_to_record (StPerfDecompress *d)
{
  const uint8_t *p = d->buf + d->start;
  size_t held = d->end - d->start, skip = held;

  for (size_t pos = 8; pos + sizeof (StPerfEventHeader) <= held; pos += 8)
    {
      StPerfEventHeader h;

      if (!plausible_kernel_record (p + pos, held - pos))
        continue;
      memcpy (&h, p + pos, sizeof h);
      if (pos + h.size == held
          || plausible_kernel_record (p + pos + h.size, held - pos - h.size))
        {
          skip = pos;
          break;
        }
    }
  st_perf_decompress_consume (d, skip);
  return skip;
}
