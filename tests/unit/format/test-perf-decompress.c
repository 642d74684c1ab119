/* perf record -z data (format/perf-decompress.c).

   What perf writes (formats.md, "perf record -z", and perf's zstd use):
   one zstd stream for the whole session, never ended, flushed at the end
   of each chunk of its data mmaps and cut into COMPRESSED records
   ({header; data}, data = header.size - 8) or COMPRESSED2 records
   ({header; u64 data_size; data} padded to 8); only the first starts
   with the frame magic, and a record may continue in the next one.  The
   streams here are made by libzstd in the test, the same way, from
   kernel records laid out by hand: a record split over two compressed
   records (and which compressed record the held bytes came from), the
   compressed data cut at every byte, COMPRESSED2's padding, corrupt data
   and what comes after it, the HEADER_COMPRESSED feature and its
   mmap_len bound (and the default one), the skip to the next plausible
   record after damage.  */
#include "config.h"

#include <string.h>
#include <zstd.h>

#include <glib.h>

#include "format/perf-decompress.h"

#define COMPRESSED  81
#define COMPRESSED2 83

/* --- kernel records, compressed the way perf does ----------------------- */

static void
put_u32 (GByteArray *b, uint32_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray *b, uint64_t v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

/* A record header.  */
static void
put_header (GByteArray *b, uint32_t type, uint16_t misc, uint16_t size)
{
  put_u32 (b, type);
  g_byte_array_append (b, (const guint8 *) &misc, 2);
  g_byte_array_append (b, (const guint8 *) &size, 2);
}

/* N kernel records: COMM (24 bytes), SAMPLE (32), EXIT (40), in turn,
   each body filled with its index.  */
static GByteArray *
kernel_records (guint n)
{
  static const struct
  {
    uint32_t type;
    uint16_t size;
  } kinds[] = { { 3, 24 }, { 9, 32 }, { 4, 40 } };
  GByteArray *b = g_byte_array_new ();

  for (guint i = 0; i < n; i++)
    {
      guint k = i % G_N_ELEMENTS (kinds);

      put_header (b, kinds[k].type, 2, kinds[k].size);
      for (guint j = 8; j < kinds[k].size; j += 8)
        put_u64 (b, 0x0101010101010101ull * (i + 1));
    }
  return b;
}

/* The zstd stream of DATA as perf makes it: flushed after each of the
   N_CUTS + 1 pieces DATA is cut into at CUTS, never ended.  Returns the
   compressed bytes of each piece.  */
static GPtrArray *
zstd_pieces (const GByteArray *data, const size_t *cuts, guint n_cuts)
{
  ZSTD_CCtx *cctx = ZSTD_createCCtx ();
  GPtrArray *pieces = g_ptr_array_new_with_free_func (
    (GDestroyNotify) g_byte_array_unref);
  size_t from = 0;

  g_assert_nonnull (cctx);
  g_assert_false (ZSTD_isError (ZSTD_CCtx_setParameter (
    cctx, ZSTD_c_compressionLevel, 1)));
  for (guint i = 0; i <= n_cuts; i++)
    {
      size_t to = i < n_cuts ? cuts[i] : data->len;
      GByteArray *piece = g_byte_array_new ();
      ZSTD_inBuffer in = { data->data + from, to - from, 0 };
      size_t left;

      do
        {
          uint8_t out_buf[4096];
          ZSTD_outBuffer out = { out_buf, sizeof out_buf, 0 };

          left = ZSTD_compressStream2 (cctx, &out, &in, ZSTD_e_flush);
          g_assert_false (ZSTD_isError (left));
          g_byte_array_append (piece, out_buf, (guint) out.pos);
        }
      while (left != 0);
      g_ptr_array_add (pieces, piece);
      from = to;
    }
  ZSTD_freeCCtx (cctx);
  return pieces;
}

static GByteArray *
piece_at (GPtrArray *pieces, guint i)
{
  return g_ptr_array_index (pieces, i);
}

/* A COMPRESSED record of LEN bytes of DATA.  */
static GByteArray *
compressed (const uint8_t *data, size_t len)
{
  GByteArray *b = g_byte_array_new ();

  put_header (b, COMPRESSED, 0, (uint16_t) (8 + len));
  g_byte_array_append (b, data, (guint) len);
  return b;
}

/* A COMPRESSED2 record: data_size, the data, padding of PAD_BYTE.  */
static GByteArray *
compressed2 (const uint8_t *data, size_t len, uint8_t pad_byte)
{
  GByteArray *b = g_byte_array_new ();
  size_t size = 16 + ((len + 7) & ~(size_t) 7);

  put_header (b, COMPRESSED2, 0, (uint16_t) size);
  put_u64 (b, len);
  g_byte_array_append (b, data, (guint) len);
  while (b->len < size)
    g_byte_array_append (b, &pad_byte, 1);
  return b;
}

/* Feeds REC (from an exact-size copy) as the record at OFFSET.  */
static char *
feed (StPerfDecompress *d, uint64_t offset, const GByteArray *rec,
      uint64_t *dropped)
{
  uint8_t *copy = g_memdup2 (rec->data, rec->len);
  char *why = st_perf_decompress_record (d, offset, copy, rec->len, dropped);

  g_free (copy);
  return why;
}

static void
feed_ok (StPerfDecompress *d, uint64_t offset, const GByteArray *rec)
{
  uint64_t dropped = 99;
  char *why = feed (d, offset, rec, &dropped);

  g_assert_null (why);
  g_assert_cmpuint (dropped, ==, 0);
}

/* The held bytes are WANT (LEN), the first of them from OFFSET.  */
static void
assert_held (const StPerfDecompress *d, const uint8_t *want, size_t len,
             uint64_t offset)
{
  size_t held_len = 12345;
  uint64_t at = 12345;
  const uint8_t *held = st_perf_decompress_held (d, &held_len, &at);

  g_assert_cmpuint (held_len, ==, len);
  if (len > 0)
    {
      g_assert_cmpmem (held, held_len, want, len);
      g_assert_cmpuint (at, ==, offset);
    }
}

/* --- tests ------------------------------------------------------------ */

static void
test_one_record (void)
{
  GByteArray *data = kernel_records (3);
  GPtrArray *pieces = zstd_pieces (data, NULL, 0);
  GByteArray *rec = compressed (piece_at (pieces, 0)->data,
                                piece_at (pieces, 0)->len);
  StPerfDecompress *d = st_perf_decompress_new ();

  /* perf's first compressed record starts the frame.  */
  g_assert_cmphex (GUINT32_FROM_LE (*(uint32_t *) piece_at (pieces, 0)->data),
                   ==, 0xFD2FB528u);
  g_assert_cmpuint (data->len, ==, 96);
  feed_ok (d, 1000, rec);
  assert_held (d, data->data, data->len, 1000);
  st_perf_decompress_consume (d, 24);
  assert_held (d, data->data + 24, 72, 1000);
  st_perf_decompress_consume (d, 72);
  assert_held (d, NULL, 0, 0);

  st_perf_decompress_free (d);
  g_byte_array_unref (rec);
  g_ptr_array_unref (pieces);
  g_byte_array_unref (data);
}

static void
test_split_record (void)
{
  /* COMM (0..24) SAMPLE (24..56) EXIT (56..96), the stream flushed at
     30, inside the SAMPLE: the SAMPLE continues in the second compressed
     record.  */
  static const size_t cuts[] = { 30 };
  GByteArray *data = kernel_records (3);
  GPtrArray *pieces = zstd_pieces (data, cuts, 1);
  GByteArray *rec1 = compressed (piece_at (pieces, 0)->data,
                                 piece_at (pieces, 0)->len);
  GByteArray *rec2 = compressed (piece_at (pieces, 1)->data,
                                 piece_at (pieces, 1)->len);
  StPerfDecompress *d = st_perf_decompress_new ();

  /* Only the first piece starts with the magic.  */
  g_assert_cmphex (GUINT32_FROM_LE (*(uint32_t *) piece_at (pieces, 1)->data),
                   !=, 0xFD2FB528u);
  feed_ok (d, 1000, rec1);
  assert_held (d, data->data, 30, 1000);
  st_perf_decompress_consume (d, 24);          /* the COMM */
  assert_held (d, data->data + 24, 6, 1000);
  feed_ok (d, 2000, rec2);
  /* The SAMPLE's start came from the first record: its offset.  */
  assert_held (d, data->data + 24, 72, 1000);
  st_perf_decompress_consume (d, 32);          /* the SAMPLE */
  assert_held (d, data->data + 56, 40, 2000);
  st_perf_decompress_consume (d, 40);
  assert_held (d, NULL, 0, 0);

  st_perf_decompress_free (d);
  g_byte_array_unref (rec1);
  g_byte_array_unref (rec2);
  g_ptr_array_unref (pieces);
  g_byte_array_unref (data);
}

static void
test_every_cut (void)
{
  /* perf cuts its compressed output where a record is full, anywhere in
     the zstd data, even inside the frame header: every cut of one piece
     into two records decodes to the same records.  */
  GByteArray *data = kernel_records (9);
  GPtrArray *pieces = zstd_pieces (data, NULL, 0);
  const GByteArray *z = piece_at (pieces, 0);

  for (size_t cut = 0; cut <= z->len; cut++)
    {
      StPerfDecompress *d = st_perf_decompress_new ();
      GByteArray *rec1 = compressed (z->data, cut);
      GByteArray *rec2 = compressed (z->data + cut, z->len - cut);
      size_t len;

      feed_ok (d, 64, rec1);
      st_perf_decompress_held (d, &len, NULL);
      g_assert_cmpuint (len, <=, data->len);
      feed_ok (d, 64 + rec1->len, rec2);
      assert_held (d, data->data, data->len, len > 0 ? 64 : 64 + rec1->len);
      st_perf_decompress_free (d);
      g_byte_array_unref (rec1);
      g_byte_array_unref (rec2);
    }
  g_ptr_array_unref (pieces);
  g_byte_array_unref (data);
}

static void
test_compressed2 (void)
{
  /* data_size bytes are zstd data, the padding is not (0xff bytes would
     be corrupt zstd data if fed).  */
  static const size_t cuts[] = { 50 };
  GByteArray *data = kernel_records (4);
  GPtrArray *pieces = zstd_pieces (data, cuts, 1);
  StPerfDecompress *d = st_perf_decompress_new ();
  GByteArray *rec1 = compressed2 (piece_at (pieces, 0)->data,
                                  piece_at (pieces, 0)->len, 0xff);
  GByteArray *rec2 = compressed2 (piece_at (pieces, 1)->data,
                                  piece_at (pieces, 1)->len, 0xff);
  uint64_t dropped;
  char *why;

  g_assert_cmpuint (rec1->len % 8, ==, 0);
  feed_ok (d, 500, rec1);
  feed_ok (d, 600, rec2);
  assert_held (d, data->data, data->len, 500);

  /* A data size past the record, by one byte and by a lot.  */
  {
    uint64_t len = rec1->len - 16 + 1;
    g_autofree char *want =
      g_strdup_printf ("data size %" G_GUINT64_FORMAT " runs past the record",
                       len);

    memcpy (rec1->data + 8, &len, 8);
    why = feed (d, 700, rec1, &dropped);
    g_assert_cmpstr (why, ==, want);
    g_free (why);
    len = G_MAXUINT64;
    memcpy (rec1->data + 8, &len, 8);
    why = feed (d, 700, rec1, &dropped);
    g_assert_cmpstr (why, ==, "data size 18446744073709551615 runs past the "
                     "record");
    g_free (why);
  }
  /* No room for the data size.  */
  g_byte_array_set_size (rec1, 15);
  why = feed (d, 700, rec1, &dropped);
  g_assert_cmpstr (why, ==, "too short for its data size");
  g_free (why);
  /* None of that touched what was held, nor the stream.  */
  assert_held (d, data->data, data->len, 500);

  st_perf_decompress_free (d);
  g_byte_array_unref (rec1);
  g_byte_array_unref (rec2);
  g_ptr_array_unref (pieces);
  g_byte_array_unref (data);
}

static void
test_corrupt_then_new_frame (void)
{
  static const size_t cuts[] = { 30, 56 };
  GByteArray *data = kernel_records (3);
  GPtrArray *pieces = zstd_pieces (data, cuts, 2);
  GByteArray *more = kernel_records (2);
  GPtrArray *fresh = zstd_pieces (more, NULL, 0);
  StPerfDecompress *d = st_perf_decompress_new ();
  GByteArray *rec1 = compressed (piece_at (pieces, 0)->data,
                                 piece_at (pieces, 0)->len);
  GByteArray *rec2 = compressed (piece_at (pieces, 1)->data,
                                 piece_at (pieces, 1)->len);
  GByteArray *rec3 = compressed (piece_at (pieces, 2)->data,
                                 piece_at (pieces, 2)->len);
  GByteArray *rec4 = compressed (piece_at (fresh, 0)->data,
                                 piece_at (fresh, 0)->len);
  uint64_t dropped = 0;
  char *why;

  feed_ok (d, 1000, rec1);
  st_perf_decompress_consume (d, 24);
  /* The second piece starts with a block header (RFC 8878 3.1.1.2):
     block type 3 is reserved, always an error.  */
  rec2->data[8] |= 0x06;
  why = feed (d, 2000, rec2, &dropped);
  g_assert_nonnull (why);
  g_assert_true (g_str_has_prefix (why, "corrupt zstd data ("));
  g_free (why);
  /* The 6 bytes of the SAMPLE held from the first record went too.  */
  g_assert_cmpuint (dropped, ==, 6);
  assert_held (d, NULL, 0, 0);

  /* The rest of the broken stream cannot be decoded.  */
  why = feed (d, 3000, rec3, &dropped);
  g_assert_cmpstr (why, ==, "continues the zstd stream that broke at offset "
                   "2000 and cannot be decoded");
  g_assert_cmpuint (dropped, ==, 0);
  g_free (why);
  assert_held (d, NULL, 0, 0);

  /* A new frame decodes.  */
  feed_ok (d, 4000, rec4);
  assert_held (d, more->data, more->len, 4000);

  /* A corrupt frame header: the magic, then a frame header descriptor
     with its reserved bit (3) set.  */
  {
    static const uint8_t bad[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x08, 0, 0, 0 };
    GByteArray *rec5 = compressed (bad, sizeof bad);

    why = feed (d, 5000, rec5, &dropped);
    g_assert_true (g_str_has_prefix (why, "corrupt zstd data ("));
    g_assert_cmpuint (dropped, ==, more->len);
    g_free (why);
    g_byte_array_unref (rec5);
  }

  st_perf_decompress_free (d);
  g_byte_array_unref (rec1);
  g_byte_array_unref (rec2);
  g_byte_array_unref (rec3);
  g_byte_array_unref (rec4);
  g_ptr_array_unref (pieces);
  g_ptr_array_unref (fresh);
  g_byte_array_unref (more);
  g_byte_array_unref (data);
}

/* HEADER_COMPRESSED: u32 version, type, level, ratio, mmap_len.  */
static GByteArray *
compressed_feature (uint32_t type, uint32_t mmap_len)
{
  GByteArray *b = g_byte_array_new ();

  put_u32 (b, 0);
  put_u32 (b, type);
  put_u32 (b, 1);
  put_u32 (b, 3);
  put_u32 (b, mmap_len);
  return b;
}

static void
test_feature (void)
{
  StPerfDecompress *d = st_perf_decompress_new ();
  GByteArray *f;

  g_assert_cmpuint (st_perf_decompress_limit (d), ==, 64u << 20);
  f = compressed_feature (1, 528384);
  g_assert_null (st_perf_decompress_set_feature (d, f->data, f->len));
  g_assert_cmpuint (st_perf_decompress_limit (d), ==, 528384);
  g_byte_array_unref (f);

  /* Refused: the limit stays.  */
  f = compressed_feature (1, 4096);
  g_assert_cmpstr (st_perf_decompress_set_feature (d, f->data, 19), ==,
                   "HEADER_COMPRESSED feature shorter than 20 bytes");
  g_byte_array_unref (f);
  f = compressed_feature (2, 4096);
  g_assert_cmpstr (st_perf_decompress_set_feature (d, f->data, f->len), ==,
                   "HEADER_COMPRESSED feature names a compression other "
                   "than zstd");
  g_byte_array_unref (f);
  f = compressed_feature (1, 0);
  g_assert_cmpstr (st_perf_decompress_set_feature (d, f->data, f->len), ==,
                   "HEADER_COMPRESSED feature with mmap_len 0");
  g_byte_array_unref (f);
  g_assert_cmpuint (st_perf_decompress_limit (d), ==, 528384);

  /* A huge mmap_len is capped.  */
  f = compressed_feature (1, G_MAXUINT32);
  g_assert_null (st_perf_decompress_set_feature (d, f->data, f->len));
  g_assert_cmpuint (st_perf_decompress_limit (d), ==, 256u << 20);
  g_byte_array_unref (f);
  st_perf_decompress_free (d);
}

static void
test_limit (void)
{
  /* mmap_len 64 bounds what one compressed record decompresses to, not
     what is held: 64 bytes after 8 held ones are fine, 65 are not.  */
  static const size_t cuts[] = { 8, 72 };
  GByteArray *data = kernel_records (0);
  StPerfDecompress *d = st_perf_decompress_new ();
  GByteArray *f = compressed_feature (1, 64);
  GPtrArray *pieces;
  GByteArray *rec1, *rec2, *rec3;
  uint64_t dropped = 0;
  char *why;

  for (guint i = 0; i < 160; i++)
    g_byte_array_append (data, (const guint8 *) &i, 1);
  pieces = zstd_pieces (data, cuts, 2);
  rec1 = compressed (piece_at (pieces, 0)->data, piece_at (pieces, 0)->len);
  rec2 = compressed (piece_at (pieces, 1)->data, piece_at (pieces, 1)->len);
  rec3 = compressed (piece_at (pieces, 2)->data, piece_at (pieces, 2)->len);
  g_assert_null (st_perf_decompress_set_feature (d, f->data, f->len));
  feed_ok (d, 100, rec1);
  feed_ok (d, 200, rec2);
  assert_held (d, data->data, 72, 100);
  /* 88 bytes from the third record.  */
  why = feed (d, 300, rec3, &dropped);
  g_assert_cmpstr (why, ==, "decompresses to more than 64 bytes (the "
                   "mmap_len of the HEADER_COMPRESSED feature)");
  g_assert_cmpuint (dropped, ==, 72);
  assert_held (d, NULL, 0, 0);
  g_free (why);

  st_perf_decompress_free (d);
  g_byte_array_unref (f);
  g_byte_array_unref (rec1);
  g_byte_array_unref (rec2);
  g_byte_array_unref (rec3);
  g_ptr_array_unref (pieces);
  g_byte_array_unref (data);
}

static void
test_default_limit (void)
{
  /* Without the feature: 64 MiB (zeros compress to a few hundred
     bytes; the record fits a COMPRESSED2's u16 size).  */
  const size_t limit = 64u << 20;
  GByteArray *zeros = g_byte_array_sized_new (limit + 1);
  GPtrArray *pieces;
  GByteArray *rec;
  StPerfDecompress *d;
  uint64_t dropped = 0;
  char *why;

  g_byte_array_set_size (zeros, limit);
  memset (zeros->data, 0, limit);
  pieces = zstd_pieces (zeros, NULL, 0);
  rec = compressed2 (piece_at (pieces, 0)->data, piece_at (pieces, 0)->len,
                     0);
  d = st_perf_decompress_new ();
  feed_ok (d, 8, rec);
  {
    size_t len;

    st_perf_decompress_held (d, &len, NULL);
    g_assert_cmpuint (len, ==, limit);
  }
  st_perf_decompress_free (d);
  g_byte_array_unref (rec);
  g_ptr_array_unref (pieces);

  g_byte_array_set_size (zeros, limit + 1);
  zeros->data[limit] = 0;
  pieces = zstd_pieces (zeros, NULL, 0);
  rec = compressed2 (piece_at (pieces, 0)->data, piece_at (pieces, 0)->len,
                     0);
  d = st_perf_decompress_new ();
  why = feed (d, 8, rec, &dropped);
  g_assert_cmpstr (why, ==, "decompresses to more than 67108864 bytes (the "
                   "default limit without a HEADER_COMPRESSED feature)");
  g_free (why);
  st_perf_decompress_free (d);
  g_byte_array_unref (rec);
  g_ptr_array_unref (pieces);
  g_byte_array_unref (zeros);
}

/* Decompresses DATA into a new decompressor's held bytes.  */
static StPerfDecompress *
holding (const GByteArray *data)
{
  GPtrArray *pieces = zstd_pieces (data, NULL, 0);
  GByteArray *rec = compressed (piece_at (pieces, 0)->data,
                                piece_at (pieces, 0)->len);
  StPerfDecompress *d = st_perf_decompress_new ();

  feed_ok (d, 40, rec);
  assert_held (d, data->data, data->len, 40);
  g_byte_array_unref (rec);
  g_ptr_array_unref (pieces);
  return d;
}

static void
fill (GByteArray *b, uint8_t byte, size_t n)
{
  for (size_t i = 0; i < n; i++)
    g_byte_array_append (b, &byte, 1);
}

static void
test_skip_to_record (void)
{
  /* A bad record (16 bytes of 0xff) before a SAMPLE (24) and a COMM
     (16): the skip lands on the SAMPLE.  */
  GByteArray *b = g_byte_array_new ();
  StPerfDecompress *d;

  fill (b, 0xff, 16);
  put_header (b, 9, 2, 24);
  fill (b, 0x11, 16);
  put_header (b, 3, 0, 16);
  fill (b, 0x22, 8);
  d = holding (b);
  g_assert_cmpuint (st_perf_decompress_skip_to_record (d), ==, 16);
  assert_held (d, b->data + 16, 40, 40);
  /* The next call skips from there, not to the same place: never 0.  */
  g_assert_cmpuint (st_perf_decompress_skip_to_record (d), ==, 24);
  assert_held (d, b->data + 40, 16, 40);
  st_perf_decompress_free (d);
  g_byte_array_unref (b);

  /* A plausible header followed by junk is not taken; one that ends the
     held bytes is.  A user record type (FINISHED_ROUND 68) is not a
     kernel record.  Positions are 8-aligned.  */
  b = g_byte_array_new ();
  fill (b, 0xff, 8);
  put_header (b, 9, 2, 16);                     /* at 8, then junk */
  fill (b, 0x33, 8);
  fill (b, 0xff, 8);
  put_header (b, 68, 0, 8);                     /* at 32 */
  fill (b, 0xff, 4);
  put_header (b, 10, 2, 16);                    /* at 44: misaligned */
  fill (b, 0xff, 12);
  put_header (b, 7, 0, 16);                     /* at 64: ends them */
  fill (b, 0x44, 8);
  d = holding (b);
  g_assert_cmpuint (st_perf_decompress_skip_to_record (d), ==, 64);
  assert_held (d, b->data + 64, 16, 40);
  st_perf_decompress_free (d);
  g_byte_array_unref (b);

  /* Nothing plausible: all dropped; sizes not 8-aligned, zero, or past
     the end are not plausible.  */
  b = g_byte_array_new ();
  fill (b, 0xff, 8);
  put_header (b, 9, 2, 20);
  fill (b, 0, 8);
  put_header (b, 9, 2, 0);
  put_header (b, 9, 2, 4000);
  d = holding (b);
  g_assert_cmpuint (st_perf_decompress_skip_to_record (d), ==, b->len);
  assert_held (d, NULL, 0, 0);
  st_perf_decompress_free (d);
  g_byte_array_unref (b);
}

static void
test_empty_record (void)
{
  /* A COMPRESSED record with no data: nothing held, no error.  */
  GByteArray *rec = compressed (NULL, 0);
  StPerfDecompress *d = st_perf_decompress_new ();

  feed_ok (d, 8, rec);
  assert_held (d, NULL, 0, 0);
  st_perf_decompress_free (d);
  g_byte_array_unref (rec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-decompress/one-record", test_one_record);
  g_test_add_func ("/perf-decompress/split-record", test_split_record);
  g_test_add_func ("/perf-decompress/every-cut", test_every_cut);
  g_test_add_func ("/perf-decompress/compressed2", test_compressed2);
  g_test_add_func ("/perf-decompress/corrupt-then-new-frame",
                   test_corrupt_then_new_frame);
  g_test_add_func ("/perf-decompress/feature", test_feature);
  g_test_add_func ("/perf-decompress/limit", test_limit);
  g_test_add_func ("/perf-decompress/default-limit", test_default_limit);
  g_test_add_func ("/perf-decompress/skip-to-record", test_skip_to_record);
  g_test_add_func ("/perf-decompress/empty-record", test_empty_record);
  return g_test_run ();
}
