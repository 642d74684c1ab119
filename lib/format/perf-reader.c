/* perf.data reader over a forward-only StInput.

   File mode: the header, then the attributes and their id arrays, read
   forward from the bytes before the data section (perf puts them there),
   then exactly the data section's records.  The feature sections lie
   behind the data: they are pread() up front when the input is a regular
   file, and read forward after the data otherwise.

   Pipe mode: a 16-byte header, then records until EOF; attributes arrive
   as HEADER_ATTR records.

   perf record -z: the records inside COMPRESSED and COMPRESSED2 records
   are decompressed (perf-decompress.c) and come out as if they had been
   written uncompressed, before the record that follows the compressed
   one.

   With a damage handler, a bad record does not end the reading: see
   damage.h and the table in README.stacktrace.  */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/damage.h"
#include "util/domain.h"
#include "format/perf-decompress.h"
#include "format/perf-reader.h"
#include "format/perf-sample.h"
#include "format/perf-types.h"
#include "util/popcount.h"

#define UNTIL_EOF G_MAXUINT64

/* Sanity limits against absurd headers (never reached by real files).  */
#define MAX_HEAD_BYTES (256u << 20)      /* attrs + ids before the data */
#define MAX_ATTRS      65536
#define MAX_PAYLOAD    (256ull << 20)    /* tracing/auxtrace data */

#define ALIGN8(n) (((n) + 7) & ~(uint64_t) 7)

/* Sample fields that make up the sample_id trailer of other records.  */
#define TRAILER_BITS (ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME        \
                      | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_STREAM_ID  \
                      | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_IDENTIFIER)

typedef struct
{
  guint len;
  uint8_t id[ST_PERF_BUILD_ID_MAX];
} BuildId;

struct StPerfReader
{
  StInput *in;
  gboolean pipe;
  gboolean seekable;          /* regular file we may pread */
  StPerfFileHeader header;    /* file mode */
  uint64_t data_end;          /* offset past the data section, or UNTIL_EOF */
  size_t pending;             /* last record's length, consumed next call */
  gboolean unaligned;         /* a record size not a multiple of 8 seen */
  StPerfDecompress *decomp;   /* records of perf record -z, once seen */
  size_t decomp_pending;      /* the same for a decompressed record */
  GPtrArray *attrs;           /* StPerfAttr * */
  GHashTable *by_id;          /* uint64_t * (into attr ids) -> StPerfAttr * */
  GHashTable *build_ids;      /* file name -> BuildId * */
  uint8_t *features[ST_PERF_FEATURE_BITS];
  uint64_t feature_size[ST_PERF_FEATURE_BITS];
  GByteArray *head;           /* file bytes [0, len) while reading headers */
  uint8_t *scratch;           /* aligned copy of a misaligned record */
  size_t scratch_cap;
  gboolean features_known;    /* the feature sections have been read */
  StDamageHandler damage;     /* none: the first damage is an error */
  GError *feature_damage;     /* bad feature sections, reported by next() */
  uint64_t sampled_ip;        /* the chain of a sample whose chain is empty */
};

static StPerfDecompress *decompressor (StPerfReader *r);



static void
bad_header (GError **error, int code, const char *fmt, ...)
  G_GNUC_PRINTF (3, 4);

/* An error in the file header or a section it points to.  */
static void
bad_header (GError **error, int code, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, ST_ERROR, code, "offset 0: bad perf.data header: %s",
               msg);
  g_free (msg);
}

static int
bad_record (GError **error, int code, uint64_t offset, uint32_t type,
            uint64_t size, const char *fmt, ...) G_GNUC_PRINTF (6, 7);

/* An error in the record at OFFSET; returns -1 for the caller.  */
static int
bad_record (GError **error, int code, uint64_t offset, uint32_t type,
            uint64_t size, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, ST_ERROR, code,
               "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, "
               "size %" G_GUINT64_FORMAT "): %s", offset, type, size, msg);
  g_free (msg);
  return -1;
}

/* --- attributes and build-ids ------------------------------------------ */

static void
attr_free (gpointer data)
{
  StPerfAttr *a = data;

  g_free (a->raw);
  g_free (a->ids);
  g_free (a);
}

/* A field of the attr blob, 0 when the attr is too small to hold it.  */
static uint64_t
attr_u64 (const uint8_t *raw, size_t valid, size_t off)
{
  return off + 8 <= valid ? st_perf_get_u64 (raw + off) : 0;
}

/* Adds the attribute in RAW (SIZE bytes of perf_event_attr) with the
   N_IDS sample ids at IDS (any alignment).  */
static void
add_attr (StPerfReader *r, const uint8_t *raw, size_t size,
          const uint8_t *ids, size_t n_ids)
{
  StPerfAttr *a = g_new0 (StPerfAttr, 1);
  size_t valid = size;

  a->raw = g_memdup2 (raw, size);
  a->raw_size = size;
  a->size = st_perf_get_u32 (raw + ST_PERF_ATTR_SIZE);
  /* Bytes past the attr's own size are not part of it (size 0 is the
     first version, 64 bytes).  */
  valid = MIN (valid, a->size != 0 ? a->size : ST_PERF_ATTR_SIZE_VER0);
  a->type = st_perf_get_u32 (raw + ST_PERF_ATTR_TYPE);
  a->config = attr_u64 (raw, valid, ST_PERF_ATTR_CONFIG);
  a->sample_type = attr_u64 (raw, valid, ST_PERF_ATTR_SAMPLE_TYPE);
  a->read_format = attr_u64 (raw, valid, ST_PERF_ATTR_READ_FORMAT);
  a->flags = attr_u64 (raw, valid, ST_PERF_ATTR_FLAGS);
  a->branch_sample_type = attr_u64 (raw, valid,
                                    ST_PERF_ATTR_BRANCH_SAMPLE_TYPE);
  a->sample_regs_user = attr_u64 (raw, valid, ST_PERF_ATTR_SAMPLE_REGS_USER);
  if (ST_PERF_ATTR_SAMPLE_STACK_USER + 4 <= valid)
    a->sample_stack_user = st_perf_get_u32 (raw + ST_PERF_ATTR_SAMPLE_STACK_USER);
  a->ids = g_new (uint64_t, MAX (n_ids, 1));
  if (n_ids > 0)
    memcpy (a->ids, ids, n_ids * sizeof (uint64_t));
  a->n_ids = n_ids;
  for (size_t i = 0; i < n_ids; i++)
    if (!g_hash_table_contains (r->by_id, &a->ids[i]))
      g_hash_table_insert (r->by_id, &a->ids[i], a);
  g_ptr_array_add (r->attrs, a);
}

/* Takes in one HEADER_BUILD_ID entry of LEN bytes; returns why it is bad,
   or NULL.  */
static const char *
add_build_id (StPerfReader *r, const uint8_t *entry, size_t len)
{
  const StPerfBuildId *b = (const StPerfBuildId *) entry;
  const char *name = (const char *) entry + sizeof *b;
  guint n = ST_PERF_BUILD_ID_MAX;
  BuildId *id;

  if (len < sizeof *b)
    return "build-id entry shorter than 36 bytes";
  if (memchr (name, 0, len - sizeof *b) == NULL)
    return "build-id entry with an unterminated file name";
  if (b->header.misc & ST_PERF_MISC_BUILD_ID_SIZE)
    n = MIN (b->build_id[ST_PERF_BUILD_ID_MAX], ST_PERF_BUILD_ID_MAX);
  if (n == 0 || g_hash_table_contains (r->build_ids, name))
    return NULL;
  id = g_new0 (BuildId, 1);
  id->len = n;
  memcpy (id->id, b->build_id, n);
  g_hash_table_insert (r->build_ids, g_strdup (name), id);
  return NULL;
}

/* --- file mode: header sections ----------------------------------------- */

static gboolean
pread_all (int fd, uint8_t *buf, size_t len, uint64_t off, GError **error)
{
  while (len > 0)
    {
      ssize_t got = pread (fd, buf, len, (off_t) off);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          g_set_error (error, ST_ERROR, got < 0 ? ST_ERROR_IO
                                                : ST_ERROR_TRUNCATED,
                       "offset %" G_GUINT64_FORMAT ": pread failed: %s", off,
                       got < 0 ? g_strerror (errno) : "end of file");
          return FALSE;
        }
      buf += got;
      len -= got;
      off += got;
    }
  return TRUE;
}

/* Whether IN is a regular file whose bytes we can pread at the offsets
   we read from it (checked against the header we got).  */
static gboolean
input_seekable (StPerfReader *r)
{
  int fd = st_input_fd (r->in);
  struct stat st;
  uint8_t check[sizeof r->header];

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)
      || lseek (fd, 0, SEEK_CUR) == (off_t) -1
      || (uint64_t) st.st_size < r->header.size)
    return FALSE;
  if (pread (fd, check, r->header.size, 0) != (ssize_t) r->header.size)
    return FALSE;
  return memcmp (check, &r->header, r->header.size) == 0;
}

static uint64_t
file_size (StPerfReader *r)
{
  struct stat st;

  if (fstat (st_input_fd (r->in), &st) != 0)
    return 0;
  return st.st_size;
}

/* A copy of the file bytes [OFF, OFF + LEN) named WHAT: read forward
   when they lie before the data section, else pread on a seekable input.
   Free with g_free.  */
static uint8_t *
read_head (StPerfReader *r, uint64_t off, uint64_t len, const char *what,
           GError **error)
{
  uint64_t end = off + len;
  uint8_t *copy;

  if (len == 0)
    return g_malloc0 (1);   /* e.g. an attr without ids, at offset 0 */
  if (end < off || off < r->header.size)
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "%s at offset %" G_GUINT64_FORMAT " (size %" G_GUINT64_FORMAT
                  ") overlaps the header or wraps", what, off, len);
      return NULL;
    }
  if (end <= r->header.data.offset
      && (end <= MAX_HEAD_BYTES || !r->seekable))
    {
      if (end > MAX_HEAD_BYTES)
        {
          bad_header (error, ST_ERROR_FORMAT,
                      "%s at offset %" G_GUINT64_FORMAT " lies too far "
                      "into the file to be read from a pipe", what, off);
          return NULL;
        }
      while (r->head->len < end)
        {
          size_t want = MIN (end - r->head->len, 65536);
          size_t avail = 0;
          GError *local = NULL;
          const uint8_t *p = st_input_peek (r->in, want, &avail, &local);

          if (p == NULL)
            {
              if (local != NULL)
                g_propagate_error (error, local);
              else
                g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                             "offset %" G_GUINT64_FORMAT ": input ended "
                             "inside the perf.data %s (at offset %"
                             G_GUINT64_FORMAT ")",
                             (uint64_t) r->head->len + avail, what, off);
              return NULL;
            }
          g_byte_array_append (r->head, p, want);
          st_input_consume (r->in, want);
        }
      return g_memdup2 (r->head->data + off, len);
    }
  if (!r->seekable)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset %" G_GUINT64_FORMAT ": the perf.data %s lies "
                   "behind the data section (offset %" G_GUINT64_FORMAT
                   "); reading it needs a seekable input (a regular file, "
                   "not a pipe)", off, what, r->header.data.offset);
      return NULL;
    }
  if (end > file_size (r))
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "%s at offset %" G_GUINT64_FORMAT " (size %" G_GUINT64_FORMAT
                  ") lies past the end of the file", what, off, len);
      return NULL;
    }
  copy = g_malloc (len);
  if (!pread_all (st_input_fd (r->in), copy, len, off, error))
    {
      g_free (copy);
      return NULL;
    }
  return copy;
}

static gboolean
read_attrs (StPerfReader *r, GError **error)
{
  const StPerfFileHeader *h = &r->header;
  uint64_t n;
  uint8_t *section;

  if (h->attrs.size == 0)
    return TRUE;
  if (h->attr_size < 16 + ST_PERF_ATTR_SIZE_VER0 || h->attr_size % 8 != 0
      || h->attrs.size % h->attr_size != 0)
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "attr_size %" G_GUINT64_FORMAT " does not fit the attribute "
                  "section size %" G_GUINT64_FORMAT, h->attr_size,
                  h->attrs.size);
      return FALSE;
    }
  n = h->attrs.size / h->attr_size;
  if (n > MAX_ATTRS)
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "%" G_GUINT64_FORMAT " attributes", n);
      return FALSE;
    }
  section = read_head (r, h->attrs.offset, h->attrs.size,
                       "attribute section", error);
  if (section == NULL)
    return FALSE;
  for (uint64_t i = 0; i < n; i++)
    {
      const uint8_t *entry = section + i * h->attr_size;
      size_t attr_len = h->attr_size - 16;
      StPerfSection ids;
      uint8_t *id_bytes;
      char *what;

      memcpy (&ids, entry + attr_len, sizeof ids);
      if (ids.size % 8 != 0 || ids.size > MAX_HEAD_BYTES)
        {
          bad_header (error, ST_ERROR_FORMAT,
                      "attribute %" G_GUINT64_FORMAT " has an id array of "
                      "%" G_GUINT64_FORMAT " bytes", i, ids.size);
          g_free (section);
          return FALSE;
        }
      what = g_strdup_printf ("id array of attribute %" G_GUINT64_FORMAT, i);
      id_bytes = read_head (r, ids.offset, ids.size, what, error);
      g_free (what);
      if (id_bytes == NULL)
        {
          g_free (section);
          return FALSE;
        }
      add_attr (r, entry, attr_len, id_bytes, ids.size / 8);
      g_free (id_bytes);
    }
  g_free (section);
  return TRUE;
}

static gboolean
parse_build_id_feature (StPerfReader *r, const uint8_t *sec, uint64_t size,
                        uint64_t sec_offset, GError **error)
{
  uint64_t pos = 0;

  while (pos < size)
    {
      StPerfEventHeader eh;
      const char *why = "build-id entry header truncated";

      if (size - pos >= sizeof eh)
        {
          memcpy (&eh, sec + pos, sizeof eh);
          why = "build-id entry runs past the end of the section";
          if (eh.size <= size - pos)
            why = add_build_id (r, sec + pos, eh.size);
        }
      if (why != NULL)
        {
          g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                       "offset %" G_GUINT64_FORMAT ": bad perf.data BUILD_ID "
                       "feature: %s", sec_offset + pos, why);
          return FALSE;
        }
      pos += eh.size;
    }
  return TRUE;
}

/* Reads every feature section (seekable input, complete header).  */
static gboolean
read_features (StPerfReader *r, GError **error)
{
  const StPerfFileHeader *h = &r->header;
  uint64_t table_off = h->data.offset + h->data.size;
  uint64_t fsize = file_size (r);
  int n = 0;
  StPerfSection *table;
  gboolean ok = TRUE;

  for (int w = 0; w < 4; w++)
    n += st_popcount64 (h->adds_features[w]);
  if (n == 0)
    return TRUE;
  if (table_off < h->data.offset || table_off > fsize
      || (uint64_t) n * sizeof *table > fsize - table_off)
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "feature table at offset %" G_GUINT64_FORMAT " (%d entries) "
                  "lies past the end of the file (%" G_GUINT64_FORMAT
                  " bytes)", table_off, n, fsize);
      return FALSE;
    }
  table = g_new (StPerfSection, n);
  if (!pread_all (st_input_fd (r->in), (uint8_t *) table, n * sizeof *table,
                  table_off, error))
    {
      g_free (table);
      return FALSE;
    }
  for (int bit = 0, k = 0; bit < ST_PERF_FEATURE_BITS && ok; bit++)
    {
      const StPerfSection *s;

      if (!(h->adds_features[bit / 64] & (1ull << (bit % 64))))
        continue;
      s = &table[k++];
      if (s->offset > fsize || s->size > fsize - s->offset)
        {
          g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                       "offset %" G_GUINT64_FORMAT ": bad perf.data feature "
                       "table: section of feature %d (offset %"
                       G_GUINT64_FORMAT ", size %" G_GUINT64_FORMAT ") lies "
                       "past the end of the file",
                       table_off + (k - 1) * sizeof *table, bit, s->offset,
                       s->size);
          ok = FALSE;
          break;
        }
      r->features[bit] = g_malloc (MAX (s->size, 1));
      r->feature_size[bit] = s->size;
      ok = pread_all (st_input_fd (r->in), r->features[bit], s->size,
                      s->offset, error);
      if (ok && bit == ST_PERF_FEAT_BUILD_ID)
        ok = parse_build_id_feature (r, r->features[bit], s->size, s->offset,
                                     error);
    }
  g_free (table);
  return ok;
}

static gboolean
read_file_header (StPerfReader *r, const uint8_t *p, uint64_t size,
                  GError **error)
{
  StPerfFileHeader *h = &r->header;
  memcpy (h, p, size);
  st_input_consume (r->in, size);
  r->head = g_byte_array_new ();
  g_byte_array_append (r->head, (const uint8_t *) h, size);

  if (h->data.offset < size)
    {
      bad_header (error, ST_ERROR_FORMAT,
                  "data section at offset %" G_GUINT64_FORMAT
                  " overlaps the header", h->data.offset);
      return FALSE;
    }
  if (h->data.size == 0)
    r->data_end = UNTIL_EOF;   /* perf was killed before finishing */
  else if (h->data.offset + h->data.size < h->data.offset)
    {
      bad_header (error, ST_ERROR_FORMAT, "data section size wraps");
      return FALSE;
    }
  else
    r->data_end = h->data.offset + h->data.size;
  r->seekable = input_seekable (r);

  if (!read_attrs (r, error))
    return FALSE;
  /* Forward to the data section.  */
  if (!st_input_skip (r->in, h->data.offset - r->head->len, error))
    return FALSE;
  g_byte_array_free (r->head, TRUE);
  r->head = NULL;
  if (h->data.size == 0 || size != ST_PERF_FILE_HEADER_SIZE)
    r->features_known = TRUE;   /* there are none */
  else if (r->seekable)
    {
      /* The feature sections lie behind the data: damaged or cut off,
         they cost the build IDs, not the records.  */
      GError *local = NULL;
      r->features_known = TRUE;
      if (!read_features (r, &local))
        {
          if (local->code == ST_ERROR_IO)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          r->feature_damage = local;
        }
    }
  return TRUE;
}


/* --- the reader ---------------------------------------------------------- */

StPerfReader *
st_perf_reader_new (StInput *in, GError **error)
{
  StPerfReader *r;
  const uint8_t *p = st_input_peek_header (in, ST_PERF_PIPE_HEADER_SIZE,
                                           "perf.data header", error);
  uint64_t size;

  if (p == NULL)
    return NULL;
  if (memcmp (p, ST_PERF_MAGIC_SWAPPED, 8) == 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset 0: byte-swapped (big-endian) perf.data not "
                   "supported");
      return NULL;
    }
  if (memcmp (p, ST_PERF_MAGIC, 8) != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset 0: bad perf.data magic (expected \"PERFILE2\")");
      return NULL;
    }
  size = st_perf_get_u64 (p + 8);
  if (size != ST_PERF_PIPE_HEADER_SIZE && size != ST_PERF_FILE_HEADER_SIZE
      && size != ST_PERF_FILE_HEADER_V0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset 8: unexpected perf.data header size %"
                   G_GUINT64_FORMAT " (expected 16, 72 or 104)", size);
      return NULL;
    }

  r = g_new0 (StPerfReader, 1);
  r->in = in;
  r->attrs = g_ptr_array_new_with_free_func (attr_free);
  r->by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  r->build_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        g_free);
  r->data_end = UNTIL_EOF;
  if (size == ST_PERF_PIPE_HEADER_SIZE)
    {
      r->pipe = TRUE;
      st_input_consume (in, size);
      return r;
    }

  p = st_input_peek_header (in, size, "perf.data header", error);
  if (p == NULL)
    {
      st_perf_reader_free (r);
      return NULL;
    }
  if (!read_file_header (r, p, size, error))
    {
      st_perf_reader_free (r);
      return NULL;
    }
  return r;
}

void
st_perf_reader_free (StPerfReader *r)
{
  if (r == NULL)
    return;
  g_hash_table_destroy (r->by_id);
  g_hash_table_destroy (r->build_ids);
  g_ptr_array_free (r->attrs, TRUE);
  for (int i = 0; i < ST_PERF_FEATURE_BITS; i++)
    g_free (r->features[i]);
  if (r->head != NULL)
    g_byte_array_free (r->head, TRUE);
  g_clear_error (&r->feature_damage);
  st_perf_decompress_free (r->decomp);
  g_free (r->scratch);
  g_free (r);
}

/* --- records ------------------------------------------------------------- */

/* The attribute a record belongs to.  With several attributes, the id
   is found where the first attribute's sample_type puts it (perf requires
   all of them to agree).  NULL for a sample of an unknown id, or (with
   *TOO_SHORT set) one too short to hold its id; other records fall back
   to the first attribute.  */
static const StPerfAttr *
find_attr (StPerfReader *r, const uint8_t *rec, size_t size,
           gboolean is_sample, gboolean *too_short)
{
  const StPerfAttr *first;
  const StPerfAttr *found;
  uint64_t st, id;
  size_t pos;

  if (r->attrs->len == 0)
    return NULL;
  first = r->attrs->pdata[0];
  if (r->attrs->len == 1)
    return first;
  st = first->sample_type;
  if (is_sample)
    {
      if (st & ST_PERF_SAMPLE_IDENTIFIER)
        pos = 8;
      else if (st & ST_PERF_SAMPLE_ID)
        pos = 8 + 8 * st_popcount64 (st & (ST_PERF_SAMPLE_IP
                                        | ST_PERF_SAMPLE_TID
                                        | ST_PERF_SAMPLE_TIME
                                        | ST_PERF_SAMPLE_ADDR));
      else
        return first;
      if (pos + 8 > size)
        {
          *too_short = TRUE;
          return NULL;
        }
    }
  else
    {
      size_t back;

      if (!(first->flags & ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL))
        return first;
      if (st & ST_PERF_SAMPLE_IDENTIFIER)
        back = 8;
      else if (st & ST_PERF_SAMPLE_ID)
        back = 8 * (1 + st_popcount64 (st & (ST_PERF_SAMPLE_STREAM_ID
                                          | ST_PERF_SAMPLE_CPU)));
      else
        return first;
      if (back > size - 8)
        return first;
      pos = size - back;
    }
  id = st_perf_get_u64 (rec + pos);
  found = g_hash_table_lookup (r->by_id, &id);
  if (found == NULL && !is_sample)
    return first;
  return found;
}

/* Fills pid/tid/time/cpu from the sample_id trailer of a non-sample
   record and sets *BODY_END to where the trailer starts.  FALSE when the
   record has no room for BODY_MIN bytes plus the trailer.  */
static gboolean
parse_trailer (const StPerfAttr *a, const uint8_t *rec, size_t size,
               size_t body_min, StEvent *ev, size_t *body_end)
{
  const uint8_t *t;
  uint64_t st;
  size_t len;

  *body_end = size;
  if (size < body_min)
    return FALSE;
  if (a == NULL || !(a->flags & ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL))
    return TRUE;
  st = a->sample_type;
  len = 8 * st_popcount64 (st & TRAILER_BITS);
  if (len > size - body_min)
    return FALSE;
  t = rec + size - len;
  if (st & ST_PERF_SAMPLE_TID)
    {
      ev->pid = (int32_t) st_perf_get_u32 (t);
      ev->tid = (int32_t) st_perf_get_u32 (t + 4);
      t += 8;
    }
  if (st & ST_PERF_SAMPLE_TIME)
    {
      ev->time = (int64_t) st_perf_get_u64 (t);
      t += 8;
    }
  if (st & ST_PERF_SAMPLE_ID)
    t += 8;
  if (st & ST_PERF_SAMPLE_STREAM_ID)
    t += 8;
  if (st & ST_PERF_SAMPLE_CPU)
    ev->cpu = (int32_t) st_perf_get_u32 (t);
  *body_end = size - len;
  return TRUE;
}

/* Whether the N entries at IPS (unaligned u64) hold an address, not
   only context markers.  */
static gboolean
chain_has_address (const uint8_t *ips, uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    if (!ST_IS_CONTEXT (st_perf_get_u64 (ips + 8 * i)))
      return TRUE;
  return FALSE;
}

static int
decode_sample (StPerfReader *r, const uint8_t *rec, size_t size,
               StEvent *ev, GError **error)
{
  const StPerfAttr *a;
  StPerfSample s;
  gboolean too_short = FALSE;
  char *why;
  uint64_t st;

  if (r->attrs->len == 0)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_SAMPLE, size,
                       "sample before any event attribute");
  a = find_attr (r, rec, size, TRUE, &too_short);
  if (a == NULL)
    {
      if (too_short)
        return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                           ST_PERF_RECORD_SAMPLE, size,
                           "too short to hold its sample id");
      return 1;   /* unknown id: perf skips it, we pass it through */
    }
  why = st_perf_sample_parse (a, rec, size, &s);
  if (why != NULL)
    {
      bad_record (error, ST_ERROR_FORMAT, ev->offset, ST_PERF_RECORD_SAMPLE,
                  size, "%s", why);
      g_free (why);
      return -1;
    }
  st = a->sample_type;
  if ((st & ST_PERF_SAMPLE_REGS_USER) && s.abi > ST_REGS_ABI_64)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_SAMPLE, size,
                       "unknown user register ABI %" G_GUINT64_FORMAT, s.abi);
  if (s.dyn_size > s.stack_size)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_SAMPLE, size,
                       "stack dyn_size %" G_GUINT64_FORMAT " exceeds the "
                       "copied size %" G_GUINT64_FORMAT, s.dyn_size,
                       s.stack_size);
  if (st & ST_PERF_SAMPLE_TID)
    {
      ev->pid = (int32_t) s.pid;
      ev->tid = (int32_t) s.tid;
    }
  if (st & ST_PERF_SAMPLE_TIME)
    ev->time = (int64_t) s.time;
  if (st & ST_PERF_SAMPLE_CPU)
    ev->cpu = (int32_t) s.cpu;

  if ((st & ST_PERF_SAMPLE_REGS_USER) && s.abi != 0 && s.dyn_size > 0)
    {
      uint32_t n_kernel = 0;

      /* The kernel part only: a user part (exclude_callchain_user unset)
         is what unwinding replaces.  */
      while (n_kernel < s.nr
             && st_perf_get_u64 (s.ips + 8 * n_kernel) != ST_CONTEXT_USER)
        n_kernel++;
      ev->kind = ST_EVENT_STACK_USER;
      ev->stack.callchain = n_kernel ? (const uint64_t *) s.ips : NULL;
      ev->stack.n_callchain = n_kernel;
      /* The user part, for the unwinder to go on where the copy ends.  */
      if (n_kernel + 1 < s.nr)
        {
          ev->stack.user_callchain = (const uint64_t *) (s.ips
                                                         + 8 * (n_kernel + 1));
          ev->stack.n_user_callchain = (uint32_t) (s.nr - n_kernel - 1);
        }
      ev->stack.abi = (uint32_t) s.abi;
      ev->stack.regs_mask = a->sample_regs_user;
      ev->stack.regs = s.n_regs ? (const uint64_t *) s.regs : NULL;
      ev->stack.n_regs = s.n_regs;
      ev->stack.stack = s.stack;
      ev->stack.stack_size = s.dyn_size;
    }
  else
    {
      ev->kind = ST_EVENT_SAMPLE;
      ev->sample.ips = s.nr ? (const uint64_t *) s.ips : NULL;
      ev->sample.n_ips = (uint32_t) s.nr;
      /* No stack to unwind (ABI 0, dyn_size 0) and no address in the
         chain (e.g. only its user part was asked for): the sampled IP
         is still known, and a capture has no other place for it.  */
      if ((st & ST_PERF_SAMPLE_IP) && !chain_has_address (s.ips, s.nr))
        {
          r->sampled_ip = s.ip;
          ev->sample.ips = &r->sampled_ip;
          ev->sample.n_ips = 1;
        }
    }
  return 1;
}

/* MMAP, MMAP2, COMM, FORK, EXIT, LOST.  */
static int
decode_kernel (StPerfReader *r, uint32_t type, const uint8_t *rec,
               size_t size, StEvent *ev, GError **error)
{
  const StPerfEventHeader *h = (const StPerfEventHeader *) rec;
  const StPerfAttr *a = find_attr (r, rec, size, FALSE, NULL);
  size_t fixed, body_end;
  const char *str = NULL;

  switch (type)
    {
    case ST_PERF_RECORD_MMAP: fixed = sizeof (StPerfMmap); break;
    case ST_PERF_RECORD_MMAP2: fixed = sizeof (StPerfMmap2); break;
    case ST_PERF_RECORD_COMM: fixed = sizeof (StPerfComm); break;
    case ST_PERF_RECORD_LOST: fixed = sizeof (StPerfLost); break;
    default: fixed = sizeof (StPerfForkExit); break;
    }
  if (!parse_trailer (a, rec, size, fixed, ev, &body_end))
    return bad_record (error, ST_ERROR_FORMAT, ev->offset, type, size,
                       "too short for its %zu-byte body%s", fixed,
                       size >= fixed ? " and sample_id trailer" : "");
  if (type == ST_PERF_RECORD_MMAP || type == ST_PERF_RECORD_MMAP2
      || type == ST_PERF_RECORD_COMM)
    {
      str = (const char *) rec + fixed;
      if (memchr (str, 0, body_end - fixed) == NULL)
        return bad_record (error, ST_ERROR_FORMAT, ev->offset, type, size,
                           "unterminated %s",
                           type == ST_PERF_RECORD_COMM ? "comm"
                                                       : "file name");
    }

  switch (type)
    {
    case ST_PERF_RECORD_MMAP:
    case ST_PERF_RECORD_MMAP2:
      {
        /* MMAP and MMAP2 share their first fields.  */
        const StPerfMmap *m = (const StPerfMmap *) rec;
        const uint8_t *bid;
        guint bid_len = 0;

        if (m->addr + m->len < m->addr)
          return bad_record (error, ST_ERROR_FORMAT, ev->offset, type, size,
                             "mapping wraps around the address space");
        ev->kind = ST_EVENT_MAP;
        ev->pid = (int32_t) m->pid;
        ev->tid = (int32_t) m->tid;
        ev->map.start = m->addr;
        ev->map.end = m->addr + m->len;
        ev->map.pgoff = m->pgoff;
        ev->map.filename = str;
        bid = st_perf_reader_build_id (r, str, &bid_len);
        if (type == ST_PERF_RECORD_MMAP2)
          {
            const StPerfMmap2 *m2 = (const StPerfMmap2 *) rec;

            ev->map.prot = m2->prot;
            ev->map.exec_known = true;
            if (h->misc & ST_PERF_MISC_MMAP_BUILD_ID)
              {
                bid = m2->build_id;
                bid_len = MIN (m2->build_id_size, ST_PERF_BUILD_ID_MAX);
              }
            else
              {
                ev->map.inode = m2->ino;
                ev->map.dev_major = m2->maj;
                ev->map.dev_minor = m2->min;
              }
          }
        else if (h->misc & ST_PERF_MISC_MMAP_DATA)
          ev->map.exec_known = true;   /* a data mapping: prot 0 */
        if (bid != NULL && bid_len > 0)
          {
            memcpy (ev->map.build_id, bid, bid_len);
            ev->map.build_id_len = bid_len;
          }
        break;
      }
    case ST_PERF_RECORD_COMM:
      {
        const StPerfComm *cm = (const StPerfComm *) rec;

        ev->kind = ST_EVENT_PROCESS;
        ev->pid = (int32_t) cm->pid;
        ev->tid = (int32_t) cm->tid;
        ev->process.comm = str;
        ev->process.exec = (h->misc & ST_PERF_MISC_COMM_EXEC) != 0;
        break;
      }
    case ST_PERF_RECORD_FORK:
    case ST_PERF_RECORD_EXIT:
      {
        const StPerfForkExit *f = (const StPerfForkExit *) rec;

        ev->kind = type == ST_PERF_RECORD_FORK ? ST_EVENT_FORK
                                               : ST_EVENT_EXIT;
        ev->pid = (int32_t) f->pid;
        ev->tid = (int32_t) f->tid;
        ev->time = (int64_t) f->time;
        if (type == ST_PERF_RECORD_FORK)
          {
            ev->fork.parent_pid = (int32_t) f->ppid;
            ev->fork.parent_tid = (int32_t) f->ptid;
          }
        break;
      }
    case ST_PERF_RECORD_LOST:
      ev->kind = ST_EVENT_LOST;
      ev->lost.count = ((const StPerfLost *) rec)->lost;
      break;
    }
  return 1;
}

static int
decode_header_attr (StPerfReader *r, const uint8_t *rec, size_t size,
                    StEvent *ev, GError **error)
{
  const size_t hdr = sizeof (StPerfEventHeader);
  uint32_t attr_size;

  if (size < hdr + ST_PERF_ATTR_SIZE_VER0)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_HEADER_ATTR, size,
                       "too short for an event attribute");
  attr_size = st_perf_get_u32 (rec + hdr + ST_PERF_ATTR_SIZE);
  if (attr_size == 0)
    attr_size = ST_PERF_ATTR_SIZE_VER0;
  if (attr_size < ST_PERF_ATTR_SIZE_VER0 || attr_size > size - hdr)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_HEADER_ATTR, size,
                       "attribute size %u does not fit", attr_size);
  if (r->attrs->len >= MAX_ATTRS)
    return bad_record (error, ST_ERROR_FORMAT, ev->offset,
                       ST_PERF_RECORD_HEADER_ATTR, size,
                       "more than %d attributes", MAX_ATTRS);
  add_attr (r, rec + hdr, attr_size, rec + hdr + attr_size,
            (size - hdr - attr_size) / 8);
  return 1;
}

/* The bytes that follow records of TYPE outside their size (tracing and
   AUXTRACE data), from the record's fixed part at P (SIZE bytes).  */
static int
payload_size (uint32_t type, const uint8_t *p, size_t size, uint64_t *out)
{
  *out = 0;
  if (type == ST_PERF_RECORD_HEADER_TRACING_DATA)
    {
      /* perf 4.x writes the record without its pad: 12 bytes.  */
      if (size < ST_PERF_TRACING_DATA_SIZE_OLD)
        return -1;
      *out = ALIGN8 ((uint64_t) ((const StPerfTracingData *) p)->size);
    }
  else if (type == ST_PERF_RECORD_AUXTRACE)
    {
      if (size < sizeof (StPerfAuxtrace))
        return -1;
      *out = ((const StPerfAuxtrace *) p)->size;
      if (*out > MAX_PAYLOAD)
        return -1;
      *out = ALIGN8 (*out);
    }
  return *out > MAX_PAYLOAD ? -1 : 0;
}

/* Sets *LOCAL, unless a read error is already there, to "the input
   ended at OFFSET inside WHAT".  */
static void
input_ended (GError **local, uint64_t offset, size_t avail, uint64_t need,
             const char *what)
{
  if (*local == NULL)
    g_set_error (local, ST_ERROR, ST_ERROR_TRUNCATED,
                 "offset %" G_GUINT64_FORMAT ": input ended inside a perf "
                 "%s (%zu of %" G_GUINT64_FORMAT " bytes)", offset, what,
                 avail, need);
}

/* Whether TYPE is a record type perf or the kernel writes (a
   resynchronization only stops at these).  */
static gboolean
known_record_type (uint32_t type)
{
  return (type >= ST_PERF_RECORD_MMAP && type < ST_PERF_RECORD_KERNEL_MAX)
         || (type >= ST_PERF_RECORD_HEADER_ATTR
             && type <= ST_PERF_RECORD_USER_LAST);
}

/* Decodes the whole record P (SIZE bytes, TOTAL with its payload) at
   OFF into EV.  */
static int
decode_record (StPerfReader *r, const uint8_t *p, uint32_t type,
               size_t size, uint64_t off, uint64_t total, StEvent *ev,
               GError **error)
{
  memset (ev, 0, sizeof *ev);
  ev->kind = ST_EVENT_OTHER;
  ev->source = ST_FORMAT_PERF;
  ev->offset = off;
  ev->pid = -1;
  ev->tid = -1;
  ev->cpu = -1;
  ev->raw = p;
  ev->raw_len = total;
  ev->round_end = type == ST_PERF_RECORD_FINISHED_ROUND;

  switch (type)
    {
    case ST_PERF_RECORD_SAMPLE:
      return decode_sample (r, p, size, ev, error);
    case ST_PERF_RECORD_MMAP:
    case ST_PERF_RECORD_MMAP2:
    case ST_PERF_RECORD_COMM:
    case ST_PERF_RECORD_FORK:
    case ST_PERF_RECORD_EXIT:
    case ST_PERF_RECORD_LOST:
      return decode_kernel (r, type, p, size, ev, error);
    case ST_PERF_RECORD_HEADER_ATTR:
      return decode_header_attr (r, p, size, ev, error);
    case ST_PERF_RECORD_HEADER_FEATURE:
      /* Pipe mode: perf sends the COMPRESSED feature before the first
         compressed record.  A bad one leaves the default limit.  */
      if (size >= sizeof (StPerfFeatureRecord)
          && st_perf_get_u64 (p + 8) == ST_PERF_FEAT_COMPRESSED)
        st_perf_decompress_set_feature (decompressor (r),
                                        p + sizeof (StPerfFeatureRecord),
                                        size - sizeof (StPerfFeatureRecord));
      return 1;
    case ST_PERF_RECORD_HEADER_BUILD_ID:
      {
        const char *why = add_build_id (r, p, size);

        if (why != NULL)
          return bad_record (error, ST_ERROR_FORMAT, off, type, size,
                             "%s", why);
        return 1;
      }
    default:
      if (type < ST_PERF_RECORD_KERNEL_MAX)
        {
          size_t body_end;

          /* Other kernel records: time and cpu from the trailer, when it
             fits.  */
          parse_trailer (find_attr (r, p, size, FALSE, NULL), p, size,
                         sizeof (StPerfEventHeader), ev, &body_end);
        }
      return 1;
    }
}

/* Whether perf writes records of TYPE with sizes that are not multiples
   of 8.  */
static gboolean
unaligned_type (uint32_t type)
{
  return type == ST_PERF_RECORD_HEADER_TRACING_DATA
         || type == ST_PERF_RECORD_HEADER_FEATURE
         || type == ST_PERF_RECORD_COMPRESSED;
}

/* Whether the 8 bytes at P, at offset OFF, look like a record header
   whose record fits in the data section.  */
static gboolean
plausible_header (const StPerfReader *r, const uint8_t *p, uint64_t off)
{
  StPerfEventHeader h;

  memcpy (&h, p, sizeof h);
  return known_record_type (h.type) && h.size >= sizeof h
         && (h.size % 8 == 0 || (r->unaligned && unaligned_type (h.type)))
         && h.size <= r->data_end - off;
}

/* Whether a record starts at the input's position: a plausible header,
   a record that decodes (for the types decoded without side effects),
   and after it a plausible header or the end.  */
static gboolean
record_starts_here (void *user)
{
  StPerfReader *r = user;
  uint64_t off = st_input_offset (r->in);
  size_t avail = 0;
  const uint8_t *p = st_input_peek (r->in, 8, &avail, NULL);
  StPerfEventHeader h;
  StEvent ev;

  if (p == NULL || !plausible_header (r, p, off))
    return FALSE;
  memcpy (&h, p, sizeof h);
  if (h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
      || h.type == ST_PERF_RECORD_AUXTRACE)
    return FALSE;   /* a payload size is too easily taken from garbage */

  gboolean next_known = TRUE;
  p = st_input_peek (r->in, h.size + sizeof h, &avail, NULL);
  if (p == NULL)
    {
      next_known = FALSE;
      if ((p = st_input_peek (r->in, h.size, &avail, NULL)) == NULL)
        return FALSE;
    }
  if ((uintptr_t) p % 8 != 0 && !r->unaligned)
    return FALSE;   /* records of most real files stay 8-aligned */
  if (h.type == ST_PERF_RECORD_SAMPLE || (h.type >= ST_PERF_RECORD_MMAP
                                          && h.type <= ST_PERF_RECORD_FORK)
      || h.type == ST_PERF_RECORD_MMAP2)
    {
      GError *bad = NULL;
      if (decode_record (r, p, h.type, h.size, off, h.size, &ev, &bad) < 0)
        {
          g_error_free (bad);
          return FALSE;
        }
    }
  if (!next_known || off + h.size >= r->data_end)
    return TRUE;
  if (!plausible_header (r, p + h.size, off + h.size))
    return FALSE;
  if (!r->unaligned)
    return TRUE;

  /* Byte by byte, junk passes for two records more often: a third
     header must follow as well (or the end).  */
  StPerfEventHeader next;
  uint64_t third;

  memcpy (&next, p + h.size, sizeof next);
  third = (uint64_t) h.size + next.size;
  if (off + third >= r->data_end)
    return TRUE;
  p = st_input_peek (r->in, third + sizeof h, &avail, NULL);
  return p == NULL || plausible_header (r, p + third, off + third);
}

/* The input ended at OFFSET inside a record or its header (AVAIL bytes
   left), or before the end of the data section.  The reason is in
   LOCAL.  */
static int
truncated_end (StPerfReader *r, uint64_t offset, size_t avail,
               GError *local, GError **error)
{
  if (local->code != ST_ERROR_TRUNCATED)
    {
      g_propagate_error (error, local);   /* a read error: stop */
      return -1;
    }
  gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_TRUNCATED, offset,
                                     avail, ST_ERROR_TRUNCATED,
                                     local->message, error);
  g_error_free (local);
  if (!go_on)
    return -1;
  st_input_consume (r->in, avail);
  r->data_end = st_input_offset (r->in);
  return 0;
}

/* The end of the data section of a file-mode input that is not seekable:
   the feature table and sections follow (perf puts the table right
   behind the data), so they are read forward now.  Returns 0, or -1 with
   ERROR set.  */
static int
read_tail_features (StPerfReader *r, GError **error)
{
  const StPerfFileHeader *h = &r->header;
  uint64_t table_off = r->data_end, sections_off, end;
  StPerfSection *table;
  GByteArray *tail;
  GError *local = NULL;
  const uint8_t *p;
  size_t avail = 0;
  int n = 0;

  if (r->features_known)
    return 0;
  r->features_known = TRUE;
  for (int w = 0; w < 4; w++)
    n += st_popcount64 (h->adds_features[w]);
  if (n == 0)
    return 0;
  p = st_input_peek (r->in, n * sizeof *table, &avail, &local);
  if (p == NULL)
    {
      input_ended (&local, table_off, avail, n * sizeof *table,
                   "feature table");
      g_propagate_error (error, local);
      return -1;
    }
  table = g_memdup2 (p, n * sizeof *table);
  st_input_consume (r->in, n * sizeof *table);
  sections_off = end = table_off + n * sizeof *table;
  for (int k = 0; k < n; k++)
    {
      const StPerfSection *s = &table[k];

      if (s->offset < sections_off || s->offset - sections_off > MAX_PAYLOAD
          || s->size > MAX_PAYLOAD - (s->offset - sections_off))
        {
          g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                       "offset %" G_GUINT64_FORMAT ": bad perf.data feature "
                       "table: section at offset %" G_GUINT64_FORMAT
                       " (size %" G_GUINT64_FORMAT ") is not in the %u MiB "
                       "behind the table", table_off + k * sizeof *table,
                       s->offset, s->size, (unsigned) (MAX_PAYLOAD >> 20));
          g_free (table);
          return -1;
        }
      end = MAX (end, s->offset + s->size);
    }
  tail = g_byte_array_sized_new (end - sections_off);
  while (tail->len < end - sections_off)
    {
      size_t want = MIN (end - sections_off - tail->len, 65536);

      p = st_input_peek (r->in, want, &avail, &local);
      if (p == NULL)
        {
          g_byte_array_free (tail, TRUE);
          g_free (table);
          input_ended (&local, sections_off + tail->len, avail, want,
                       "feature section");
          g_propagate_error (error, local);
          return -1;
        }
      g_byte_array_append (tail, p, want);
      st_input_consume (r->in, want);
    }
  for (int bit = 0, k = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    {
      const StPerfSection *s;

      if (!(h->adds_features[bit / 64] & (1ull << (bit % 64))))
        continue;
      s = &table[k++];
      r->features[bit] = g_memdup2 (tail->data + (s->offset - sections_off),
                                    MAX (s->size, 1));
      r->feature_size[bit] = s->size;
      if (bit == ST_PERF_FEAT_BUILD_ID
          && !parse_build_id_feature (r, r->features[bit], s->size, s->offset,
                                      error))
        {
          g_byte_array_free (tail, TRUE);
          g_free (table);
          return -1;
        }
    }
  g_byte_array_free (tail, TRUE);
  g_free (table);
  return 0;
}

/* At the end of the data section: the feature sections of a file read
   through a pipe.  Damaged or cut off, they cost the build IDs, not the
   records read before.  */
static int
end_of_data (StPerfReader *r, GError **error)
{
  GError *local = NULL;

  if (read_tail_features (r, &local) == 0)
    return 0;
  if (local->code == ST_ERROR_IO)
    {
      g_propagate_error (error, local);
      return -1;
    }
  g_autofree char *msg = g_strdup_printf ("%s; the feature sections are "
                                          "ignored", local->message);
  gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_SKIPPED,
                                     r->data_end, 0, local->code, msg, error);
  g_error_free (local);
  return go_on ? 0 : -1;
}

/* Decodes the record at P (header H, TOTAL bytes with its payload) at
   OFF into EV.  With a damage handler, a record whose content does not
   decode is passed on unchanged.  Inlined: as a call of its own it cost
   about 40 instructions a record (0.5 % of the cc1 benchmark).  */
G_ALWAYS_INLINE static inline int
deliver (StPerfReader *r, const uint8_t *p, const StPerfEventHeader *h,
         uint64_t off, uint64_t total, StEvent *ev, GError **error)
{
  GError *local = NULL;

  if ((uintptr_t) p % 8 != 0)
    {
      /* Only a record at an odd offset: keep u64 arrays aligned.  */
      if (r->scratch_cap < total)
        {
          g_free (r->scratch);
          r->scratch_cap = MAX (total, 65536);
          r->scratch = g_malloc (r->scratch_cap);
        }
      memcpy (r->scratch, p, total);
      p = r->scratch;
    }
  if (decode_record (r, p, h->type, h->size, off, total, ev, &local) > 0)
    return 1;
  if (local->code == ST_ERROR_UNSUPPORTED || r->damage.func == NULL)
    {
      g_propagate_error (error, local);
      return -1;
    }
  /* Inconsistent content: the record goes on unchanged, not
     interpreted.  */
  g_autofree char *msg = g_strdup_printf ("%s; record passed on "
                                          "unchanged", local->message);
  g_error_free (local);
  st_damage_report (&r->damage, ST_DAMAGE_PASSED, off, total,
                    ST_ERROR_FORMAT, msg, NULL);
  decode_record (r, p, ST_PERF_RECORD_KERNEL_MAX, h->size, off, total, ev,
                 NULL);
  ev->round_end = FALSE;
  return 1;
}

/* --- compressed records (perf record -z) --------------------------------- */

static StPerfDecompress *
decompressor (StPerfReader *r)
{
  if (r->decomp == NULL)
    {
      r->decomp = st_perf_decompress_new ();
      /* File mode: the feature sections are known unless the input is a
         pipe; a bad feature leaves the default limit.  */
      if (r->features[ST_PERF_FEAT_COMPRESSED] != NULL)
        st_perf_decompress_set_feature (
          r->decomp, r->features[ST_PERF_FEAT_COMPRESSED],
          r->feature_size[ST_PERF_FEAT_COMPRESSED]);
    }
  return r->decomp;
}

/* The compressed record P (header H, whole) at OFF into the decompressed
   bytes.  Data that does not decompress is damage: reported, and the
   records after it go on.  0, or -1 with ERROR set.  */
static int
take_compressed (StPerfReader *r, const uint8_t *p,
                 const StPerfEventHeader *h, uint64_t off, GError **error)
{
  uint64_t dropped = 0;
  g_autofree char *why = st_perf_decompress_record (decompressor (r), off, p,
                                                    h->size, &dropped);

  if (why == NULL)
    return 0;

  g_autofree char *msg = g_strdup_printf (
    "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size %u): "
    "compressed data %s; the records in it are dropped%s", off, h->type,
    h->size, why, dropped > 0 ? ", with the incomplete record held from "
                                "before it" : "");
  return st_damage_report (&r->damage, ST_DAMAGE_DROPPED, off,
                           h->size + dropped, ST_ERROR_FORMAT, msg, error)
         ? 0 : -1;
}

/* The next whole record of the decompressed bytes into EV: 1, or 0 when
   there is none (the rest continues in the next compressed record), or
   -1 with ERROR set.  */
static int
next_decompressed (StPerfReader *r, StEvent *ev, GError **error)
{
  if (r->decomp_pending > 0)
    {
      st_perf_decompress_consume (r->decomp, r->decomp_pending);
      r->decomp_pending = 0;
    }
  for (;;)
    {
      size_t held;
      uint64_t off, total, payload = 0;
      const uint8_t *p = st_perf_decompress_held (r->decomp, &held, &off);
      StPerfEventHeader h;
      const char *why = NULL;

      if (held < sizeof h)
        return 0;
      memcpy (&h, p, sizeof h);
      if (h.size < sizeof h)
        why = "smaller than its 8-byte header";
      else if (h.type == ST_PERF_RECORD_COMPRESSED
               || h.type == ST_PERF_RECORD_COMPRESSED2)
        why = "compressed record inside compressed data";
      else if (h.type > 0xffff)
        why = "not a perf record type";
      else if ((h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
                || h.type == ST_PERF_RECORD_AUXTRACE) && held >= h.size
               && payload_size (h.type, p, h.size, &payload) < 0)
        why = "too short, or too large a data payload";
      if (why != NULL)
        {
          size_t skip = st_perf_decompress_skip_to_record (r->decomp);
          g_autofree char *msg = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size "
            "%u) in the data decompressed from this compressed record: %s; "
            "skipped %zu of the %zu decompressed bytes held", off, h.type,
            h.size, why, skip, held);
          if (!st_damage_report (&r->damage, ST_DAMAGE_SKIPPED, off, skip,
                                 ST_ERROR_FORMAT, msg, error))
            return -1;
          continue;
        }
      total = h.size + payload;
      if (held < total)
        return 0;
      r->decomp_pending = total;
      return deliver (r, p, &h, off, total, ev, error);
    }
}

/* The end of the input or of the data section: a record begun in
   compressed data and never completed is cut off.  FALSE with ERROR set
   when that stops the reading.  */
static gboolean
held_at_end (StPerfReader *r, GError **error)
{
  size_t held = 0;
  uint64_t off = 0;

  if (r->decomp == NULL)
    return TRUE;
  st_perf_decompress_held (r->decomp, &held, &off);
  if (held == 0)
    return TRUE;
  g_autofree char *msg = g_strdup_printf (
    "offset %" G_GUINT64_FORMAT ": input ended inside a perf record begun "
    "in the data decompressed from this compressed record (%zu bytes "
    "held)", off, held);
  st_perf_decompress_consume (r->decomp, held);
  return st_damage_report (&r->damage, ST_DAMAGE_TRUNCATED, off, held,
                           ST_ERROR_TRUNCATED, msg, error);
}

int
st_perf_reader_next (StPerfReader *r, StEvent *ev, GError **error)
{
  if (r->feature_damage != NULL)
    {
      GError *e = g_steal_pointer (&r->feature_damage);
      g_autofree char *msg = g_strdup_printf ("%s; the feature sections "
                                              "are ignored", e->message);
      uint64_t table = r->header.data.offset + r->header.data.size;
      gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_SKIPPED,
                                         table, 0, e->code, msg, error);
      g_error_free (e);
      if (!go_on)
        return -1;
    }
  for (;;)
    {
      uint64_t off, total, payload;
      size_t avail = 0;
      GError *local = NULL;
      const uint8_t *p;
      StPerfEventHeader h;
      g_autofree char *why = NULL;

      if (r->pending > 0)
        {
          st_input_consume (r->in, r->pending);
          r->pending = 0;
        }
      if (r->decomp != NULL)
        {
          int got = next_decompressed (r, ev, error);
          if (got != 0)
            return got;
        }
      off = st_input_offset (r->in);
      if (off >= r->data_end)
        return held_at_end (r, error) ? end_of_data (r, error) : -1;

      p = st_input_peek (r->in, sizeof h, &avail, &local);
      if (p == NULL)
        {
          if (local == NULL && avail == 0)
            {
              if (r->data_end == UNTIL_EOF)
                return held_at_end (r, error) ? 0 : -1;
              g_set_error (&local, ST_ERROR, ST_ERROR_TRUNCATED,
                           "offset %" G_GUINT64_FORMAT ": input ended inside "
                           "the perf.data data section, which ends at offset %"
                           G_GUINT64_FORMAT, off, r->data_end);
            }
          else
            input_ended (&local, off, avail, sizeof h, "record header");
          return truncated_end (r, off, avail, local, error);
        }
      memcpy (&h, p, sizeof h);
      total = h.size;
      if (h.size < sizeof h)
        why = g_strdup ("smaller than its 8-byte header");
      else if (h.type > 0xffff)
        why = g_strdup ("not a perf record type");
      else if (h.size % 8 != 0 && !known_record_type (h.type))
        why = g_strdup ("unknown type with a size that is not a multiple "
                        "of 8");
      else if (h.type == ST_PERF_RECORD_HEADER_TRACING_DATA
               || h.type == ST_PERF_RECORD_AUXTRACE)
        {
          p = st_input_peek (r->in, h.size, &avail, &local);
          if (p == NULL)
            {
              input_ended (&local, off, avail, h.size, "record");
              return truncated_end (r, off, avail, local, error);
            }
          if (payload_size (h.type, p, h.size, &payload) < 0)
            why = g_strdup ("too short, or too large a data payload");
          total += payload;
        }
      if (why == NULL && total > r->data_end - off)
        why = g_strdup_printf ("runs past the end of the data section at "
                               "offset %" G_GUINT64_FORMAT, r->data_end);
      if (why != NULL)
        {
          g_autofree char *msg = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad perf record (type %u, size %u)"
            ": %s", off, h.type, h.size, why);
          if (!st_damage_resynchronize (&r->damage, r->in, off, r->data_end,
                                        r->unaligned ? 1 : 8,
                                        record_starts_here, r, msg, error))
            return -1;
          continue;
        }

      p = st_input_peek (r->in, total, &avail, &local);
      if (p == NULL)
        {
          input_ended (&local, off, avail, total, "record");
          return truncated_end (r, off, avail, local, error);
        }
      r->pending = total;
      /* perf 4.x tracing data, pipe-mode features, compressed records:
         what follows may be at any offset.  */
      if (h.size % 8 != 0 && unaligned_type (h.type))
        r->unaligned = TRUE;
      if (h.type == ST_PERF_RECORD_COMPRESSED
          || h.type == ST_PERF_RECORD_COMPRESSED2)
        {
          if (take_compressed (r, p, &h, off, error) < 0)
            return -1;
          continue;
        }
      return deliver (r, p, &h, off, total, ev, error);
    }
}

void
st_perf_reader_set_damage_handler (StPerfReader *r,
                                   const StDamageHandler *handler)
{
  r->damage = handler != NULL ? *handler : (StDamageHandler) { 0 };
}

gboolean
st_perf_reader_is_pipe (const StPerfReader *r)
{
  return r->pipe;
}

guint
st_perf_reader_n_attrs (const StPerfReader *r)
{
  return r->attrs->len;
}

const StPerfAttr *
st_perf_reader_attr (const StPerfReader *r, guint i)
{
  return i < r->attrs->len ? r->attrs->pdata[i] : NULL;
}

const StPerfFileHeader *
st_perf_reader_file_header (const StPerfReader *r)
{
  return r->pipe ? NULL : &r->header;
}

const uint8_t *
st_perf_reader_feature (const StPerfReader *r, guint bit, uint64_t *size)
{
  if (size != NULL)
    *size = 0;
  if (bit >= ST_PERF_FEATURE_BITS || r->features[bit] == NULL)
    return NULL;
  if (size != NULL)
    *size = r->feature_size[bit];
  return r->features[bit];
}

gboolean
st_perf_reader_features_known (const StPerfReader *r)
{
  return r->pipe || r->features_known;
}

const StPerfAttr *
st_perf_reader_record_attr (StPerfReader *r, const uint8_t *rec, size_t size)
{
  StPerfEventHeader h;
  gboolean too_short = FALSE;

  if (size < sizeof h)
    return NULL;
  memcpy (&h, rec, sizeof h);
  return find_attr (r, rec, size, h.type == ST_PERF_RECORD_SAMPLE,
                    &too_short);
}

const uint8_t *
st_perf_reader_build_id (const StPerfReader *r, const char *filename,
                         guint *len)
{
  const BuildId *id = g_hash_table_lookup (r->build_ids, filename);

  if (len != NULL)
    *len = id != NULL ? id->len : 0;
  return id != NULL ? id->id : NULL;
}
