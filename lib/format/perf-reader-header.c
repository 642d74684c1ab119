/* perf.data reader, the header part: the file header, the attributes
   and their ids, the feature sections (pread() up front from a regular
   file, read forward after the data otherwise), the build-id table, and
   the accessors of what they hold.  */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/domain.h"
#include "format/perf-reader-private.h"
#include "util/popcount.h"

/* Sanity limit against absurd headers (never reached by real files).  */
#define MAX_HEAD_BYTES (256u << 20)      /* attrs + ids before the data */

typedef struct
{
  guint len;
  uint8_t id[ST_PERF_BUILD_ID_MAX];
} BuildId;

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

/* --- attributes and build-ids ------------------------------------------ */

void
st_perf_reader_attr_free (gpointer data)
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
void
st_perf_reader_add_attr (StPerfReader *r, const uint8_t *raw, size_t size,
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
const char *
st_perf_reader_add_build_id (StPerfReader *r, const uint8_t *entry,
                             size_t len)
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
      st_perf_reader_add_attr (r, entry, attr_len, id_bytes, ids.size / 8);
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
            why = st_perf_reader_add_build_id (r, sec + pos, eh.size);
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
  if (table_off >= h->data.offset && table_off > fsize)
    {
      /* The data section itself runs past the end: the file was cut
         (a copy or a recording that did not finish).  */
      bad_header (error, ST_ERROR_TRUNCATED,
                  "the file is truncated: it ends at %" G_GUINT64_FORMAT
                  " bytes, but its data section ends at offset %"
                  G_GUINT64_FORMAT " and %d feature section(s) follow",
                  fsize, table_off, n);
      return FALSE;
    }
  if (table_off < h->data.offset
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

gboolean
st_perf_reader_read_file_header (StPerfReader *r, const uint8_t *p,
                                 uint64_t size, GError **error)
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


/* Sets *LOCAL, unless a read error is already there, to "the input
   ended at OFFSET inside WHAT".  */
void
st_perf_reader_input_ended (GError **local, uint64_t offset, size_t avail,
                            uint64_t need, const char *what)
{
  if (*local == NULL)
    g_set_error (local, ST_ERROR, ST_ERROR_TRUNCATED,
                 "offset %" G_GUINT64_FORMAT ": input ended inside a perf "
                 "%s (%zu of %" G_GUINT64_FORMAT " bytes)", offset, what,
                 avail, need);
}

/* The end of the data section of a file-mode input that is not seekable:
   the feature table and sections follow (perf puts the table right
   behind the data), so they are read forward now.  Returns 0, or -1 with
   ERROR set.  */
int
st_perf_reader_read_tail_features (StPerfReader *r, GError **error)
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
      st_perf_reader_input_ended (&local, table_off, avail,
                                  n * sizeof *table, "feature table");
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
          st_perf_reader_input_ended (&local, sections_off + tail->len,
                                      avail, want, "feature section");
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

StPerfDecompress *
st_perf_reader_decompressor (StPerfReader *r)
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

const uint8_t *
st_perf_reader_build_id (const StPerfReader *r, const char *filename,
                         guint *len)
{
  const BuildId *id = g_hash_table_lookup (r->build_ids, filename);

  if (len != NULL)
    *len = id != NULL ? id->len : 0;
  return id != NULL ? id->id : NULL;
}
