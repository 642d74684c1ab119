/* perf.data writer: records are built field by field in a scratch buffer
   and written through the StOutput (an unwound sample, one per sample
   of the stream, straight in the output's buffer); file mode keeps what
   goes behind the data (features, late attributes) until
   st_perf_writer_finish.  */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/domain.h"
#include "format/perf-writer.h"
#include "util/popcount.h"

/* A record's size is a u16; records stay 8-aligned.  */
#define RECORD_MAX 65528u

#define TRAILER_BITS (ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME        \
                      | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_STREAM_ID  \
                      | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_IDENTIFIER)

/* The sample fields st_perf_writer_sample can make.  */
#define SYNTH_SAMPLE_BITS (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP   \
                           | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME      \
                           | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_CPU        \
                           | ST_PERF_SAMPLE_PERIOD                         \
                           | ST_PERF_SAMPLE_CALLCHAIN                      \
                           | ST_PERF_SAMPLE_REGS_USER                      \
                           | ST_PERF_SAMPLE_STACK_USER)

typedef struct
{
  uint8_t *attr;                /* ATTR_SIZE bytes */
  size_t attr_size;
  uint64_t *ids;
  size_t n_ids;
} Attr;

struct StPerfWriter
{
  StOutput *out;
  gboolean file_mode;
  gboolean data_started;        /* file mode: the data section has begun */
  uint64_t data_offset;
  StPerfSection attrs_section;  /* where the attributes went, if written */
  guint n_attrs_written;
  GPtrArray *attrs;             /* Attr * */
  GByteArray *features[ST_PERF_FEATURE_BITS];   /* file mode */
  uint64_t trailer_type;
  GByteArray *rec;              /* scratch record */
  GError *error;                /* first problem of our own making */
};

static void
attr_free (gpointer data)
{
  Attr *a = data;

  g_free (a->attr);
  g_free (a->ids);
  g_free (a);
}

gboolean
st_perf_writer_file_mode_possible (StOutput *out)
{
  int fd = st_output_fd (out);
  int flags = fcntl (fd, F_GETFL);

  return (st_output_seekable (out) && flags >= 0 && !(flags & O_APPEND)
          && st_output_offset (out) == 0 && lseek (fd, 0, SEEK_CUR) == 0);
}

StPerfWriter *
st_perf_writer_new (StOutput *out, gboolean file_mode)
{
  StPerfWriter *w = g_new0 (StPerfWriter, 1);

  w->out = out;
  w->file_mode = file_mode;
  w->attrs = g_ptr_array_new_with_free_func (attr_free);
  w->rec = g_byte_array_sized_new (4096);
  if (file_mode)
    {
      /* Room for the header, written for real once the data begins.  */
      st_output_pad (out, ST_PERF_FILE_HEADER_SIZE);
    }
  else
    {
      StPerfPipeHeader h;

      memcpy (h.magic, ST_PERF_MAGIC, 8);
      h.size = ST_PERF_PIPE_HEADER_SIZE;
      st_output_write (out, &h, sizeof h);
    }
  return w;
}

void
st_perf_writer_free (StPerfWriter *w)
{
  if (w == NULL)
    return;
  g_ptr_array_free (w->attrs, TRUE);
  for (int i = 0; i < ST_PERF_FEATURE_BITS; i++)
    if (w->features[i] != NULL)
      g_byte_array_free (w->features[i], TRUE);
  g_byte_array_free (w->rec, TRUE);
  g_clear_error (&w->error);
  g_free (w);
}

gboolean
st_perf_writer_file_mode (const StPerfWriter *w)
{
  return w->file_mode;
}

static void
set_error (StPerfWriter *w, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Remembers the first problem, reported by st_perf_writer_finish.  */
static void
set_error (StPerfWriter *w, const char *fmt, ...)
{
  va_list ap;

  if (w->error != NULL)
    return;
  va_start (ap, fmt);
  w->error = g_error_new_valist (ST_ERROR, ST_ERROR_FORMAT, fmt, ap);
  va_end (ap);
}

/* --- building records in w->rec ------------------------------------------ */

static void
put (GByteArray *b, const void *p, size_t n)
{
  g_byte_array_append (b, p, n);
}

static void
put_u32 (GByteArray *b, uint32_t v)
{
  put (b, &v, 4);
}

static void
put_u64 (GByteArray *b, uint64_t v)
{
  put (b, &v, 8);
}

static void
put_zeros (GByteArray *b, size_t n)
{
  static const uint8_t zeros[64];

  while (n > 0)
    {
      size_t k = MIN (n, sizeof zeros);

      put (b, zeros, k);
      n -= k;
    }
}

/* A NUL-terminated string padded with zeros to a multiple of ALIGN.  */
static void
put_string (GByteArray *b, const char *s, size_t align)
{
  size_t len = strlen (s) + 1;

  put (b, s, len);
  put_zeros (b, (align - len % align) % align);
}

/* Starts a record of TYPE in B (emptied).  */
static void
begin_in (GByteArray *b, uint32_t type, uint16_t misc)
{
  StPerfEventHeader h = { type, misc, 0 };

  g_byte_array_set_size (b, 0);
  put (b, &h, sizeof h);
}

/* Starts a record in the scratch buffer; the put helpers then take
   w->rec.  */
static GByteArray *
begin (StPerfWriter *w, uint32_t type, uint16_t misc)
{
  begin_in (w->rec, type, misc);
  return w->rec;
}

/* Whether a record of LEN bytes (its header at REC) fits its 16-bit
   size; else the writer's error says it was not written.  */
static gboolean
fits (StPerfWriter *w, const uint8_t *rec, size_t len)
{
  uint32_t type;

  if (len <= G_MAXUINT16)
    return TRUE;
  memcpy (&type, rec, 4);
  set_error (w, "a perf record of %zu bytes (type %u) does not fit its "
             "16-bit size; it was not written", len, type);
  return FALSE;
}

/* Sets the size of the record in B; FALSE when it does not fit.  */
static gboolean
set_size (StPerfWriter *w, GByteArray *b)
{
  uint16_t size;

  if (!fits (w, b->data, b->len))
    return FALSE;
  size = (uint16_t) b->len;
  memcpy (b->data + 6, &size, 2);
  return TRUE;
}

static void
put_trailer (StPerfWriter *w, GByteArray *b, const StPerfSampleId *sid)
{
  uint64_t st = w->trailer_type;

  if (st & ST_PERF_SAMPLE_TID)
    {
      put_u32 (b, sid->pid);
      put_u32 (b, sid->tid);
    }
  if (st & ST_PERF_SAMPLE_TIME)
    put_u64 (b, sid->time);
  if (st & ST_PERF_SAMPLE_ID)
    put_u64 (b, sid->id);
  if (st & ST_PERF_SAMPLE_STREAM_ID)
    put_u64 (b, sid->id);
  if (st & ST_PERF_SAMPLE_CPU)
    {
      put_u32 (b, sid->cpu);
      put_u32 (b, 0);
    }
  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, sid->id);
}

/* Writes the record built in w->rec.  */
static void
end (StPerfWriter *w)
{
  if (set_size (w, w->rec))
    st_perf_writer_record (w, w->rec->data, w->rec->len);
}

/* --- attributes ---------------------------------------------------------- */

void
st_perf_writer_attr (StPerfWriter *w, const uint8_t *attr, size_t attr_size,
                     const uint64_t *ids, size_t n_ids)
{
  Attr *a = g_new0 (Attr, 1);
  uint32_t own_size;
  GByteArray *b;

  g_return_if_fail (attr_size >= ST_PERF_ATTR_SIZE_VER0);
  a->attr_size = MAX (attr_size, ST_PERF_ATTR_SIZE_VER7);
  a->attr = g_malloc0 (a->attr_size);
  memcpy (a->attr, attr, attr_size);
  own_size = (uint32_t) a->attr_size;
  memcpy (a->attr + ST_PERF_ATTR_SIZE, &own_size, 4);
  a->ids = g_new0 (uint64_t, MAX (n_ids, 1));
  if (n_ids > 0)
    memcpy (a->ids, ids, n_ids * sizeof (uint64_t));
  a->n_ids = n_ids;
  g_ptr_array_add (w->attrs, a);

  if (!w->file_mode)
    {
      b = begin (w, ST_PERF_RECORD_HEADER_ATTR, 0);
      put (b, a->attr, a->attr_size);
      put (b, a->ids, n_ids * sizeof (uint64_t));
      end (w);
    }
}

/* The attribute section: the id arrays, then one entry per attribute
   (attr, then where its ids are), all entries of the largest size.  */
static void
write_attrs (StPerfWriter *w)
{
  size_t entry = 0;
  uint64_t *id_offsets = g_new (uint64_t, MAX (w->attrs->len, 1));

  for (guint i = 0; i < w->attrs->len; i++)
    {
      Attr *a = w->attrs->pdata[i];

      entry = MAX (entry, a->attr_size);
      id_offsets[i] = st_output_offset (w->out);
      st_output_write (w->out, a->ids, a->n_ids * sizeof (uint64_t));
    }
  w->attrs_section.offset = st_output_offset (w->out);
  for (guint i = 0; i < w->attrs->len; i++)
    {
      Attr *a = w->attrs->pdata[i];
      StPerfSection ids = { id_offsets[i], a->n_ids * sizeof (uint64_t) };
      uint32_t size = (uint32_t) entry;

      /* perf steps through the section by each attr's own size.  */
      st_output_write (w->out, a->attr, ST_PERF_ATTR_SIZE);
      st_output_write (w->out, &size, 4);
      st_output_write (w->out, a->attr + 8, a->attr_size - 8);
      st_output_pad (w->out, entry - a->attr_size);
      st_output_write (w->out, &ids, sizeof ids);
    }
  w->attrs_section.size = w->attrs->len * (entry + sizeof (StPerfSection));
  w->n_attrs_written = w->attrs->len;
  g_free (id_offsets);
}

static size_t
attr_entry_size (StPerfWriter *w)
{
  size_t entry = ST_PERF_ATTR_SIZE_VER7;

  for (guint i = 0; i < w->attrs->len; i++)
    entry = MAX (entry, ((Attr *) w->attrs->pdata[i])->attr_size);
  return entry + sizeof (StPerfSection);
}

/* The file header for what is written so far.  */
static void
make_header (StPerfWriter *w, StPerfFileHeader *h, uint64_t data_size)
{
  memset (h, 0, sizeof *h);
  memcpy (h->magic, ST_PERF_MAGIC, 8);
  h->size = ST_PERF_FILE_HEADER_SIZE;
  h->attr_size = attr_entry_size (w);
  h->attrs = w->attrs_section;
  h->data.offset = w->data_offset;
  h->data.size = data_size;
  for (int bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    if (w->features[bit] != NULL)
      h->adds_features[bit / 64] |= 1ull << (bit % 64);
}

/* File mode, before the first record: the attributes known so far, then
   a header that is valid should we never finish (data size 0: readers
   take the data up to the end of the file).  */
static void
start_data (StPerfWriter *w)
{
  StPerfFileHeader h;

  w->data_started = TRUE;
  if (w->attrs->len > 0)
    write_attrs (w);
  w->data_offset = st_output_offset (w->out);
  make_header (w, &h, 0);
  memset (h.adds_features, 0, sizeof h.adds_features);
  /* A failure stays in the output's sticky error.  */
  st_output_pwrite (w->out, &h, sizeof h, 0, NULL);
}

/* --- features ------------------------------------------------------------ */

/* Features perf itself sends as HEADER_FEATURE records in pipe mode.  */
static gboolean
pipe_feature (guint bit)
{
  switch (bit)
    {
    case ST_PERF_FEAT_BRANCH_STACK:
    case ST_PERF_FEAT_AUXTRACE:
    case ST_PERF_FEAT_STAT:
    case ST_PERF_FEAT_CACHE:
    case ST_PERF_FEAT_DIR_FORMAT:
      return FALSE;
    default:
      return bit > 0 && bit < ST_PERF_FEAT_LAST_6_1;
    }
}

/* Calls FN on every entry of a BUILD_ID section; FALSE when malformed.  */
static gboolean
each_build_id (StPerfWriter *w, const uint8_t *data, size_t size,
               void (*fn) (StPerfWriter *, const uint8_t *, size_t))
{
  size_t pos = 0;

  while (pos < size)
    {
      StPerfEventHeader h;

      if (size - pos < sizeof (StPerfBuildId))
        return FALSE;
      memcpy (&h, data + pos, sizeof h);
      if (h.size < sizeof (StPerfBuildId) || h.size > size - pos)
        return FALSE;
      if (fn != NULL)
        fn (w, data + pos, h.size);
      pos += h.size;
    }
  return TRUE;
}

gboolean
st_perf_writer_feature (StPerfWriter *w, guint bit, const uint8_t *data,
                        size_t size)
{
  g_return_val_if_fail (bit < ST_PERF_FEATURE_BITS, FALSE);

  if (w->file_mode)
    {
      if (w->features[bit] == NULL)
        w->features[bit] = g_byte_array_new ();
      g_byte_array_set_size (w->features[bit], 0);
      g_byte_array_append (w->features[bit], data, size);
      return TRUE;
    }
  if (bit == ST_PERF_FEAT_BUILD_ID)
    return (each_build_id (w, data, size, NULL)
            && each_build_id (w, data, size, st_perf_writer_build_id));
  if (bit == ST_PERF_FEAT_TRACING_DATA)
    {
      StPerfTracingData t = { { ST_PERF_RECORD_HEADER_TRACING_DATA, 0,
                                sizeof t }, 0, 0 };
      uint64_t aligned = ST_PERF_ALIGN8 ((uint64_t) size);

      if (aligned > G_MAXUINT32)
        return FALSE;
      t.size = (uint32_t) aligned;
      g_byte_array_set_size (w->rec, 0);
      put (w->rec, &t, sizeof t);
      put (w->rec, data, size);
      put_zeros (w->rec, aligned - size);
      st_perf_writer_record (w, w->rec->data, w->rec->len);
      return TRUE;
    }
  if (!pipe_feature (bit) || size > G_MAXUINT16 - sizeof (StPerfFeatureRecord))
    return FALSE;
  put_u64 (begin (w, ST_PERF_RECORD_HEADER_FEATURE, 0), bit);
  put (w->rec, data, size);
  end (w);
  return TRUE;
}

void
st_perf_writer_build_id (StPerfWriter *w, const uint8_t *entry, size_t len)
{
  g_return_if_fail (len >= sizeof (StPerfBuildId));

  if (w->file_mode)
    {
      GByteArray **f = &w->features[ST_PERF_FEAT_BUILD_ID];

      if (*f == NULL)
        *f = g_byte_array_new ();
      g_byte_array_append (*f, entry, len);
      /* perf writes entries with type 0 into the section.  */
      memset ((*f)->data + (*f)->len - len, 0, 4);
      return;
    }
  uint32_t type = ST_PERF_RECORD_HEADER_BUILD_ID;

  g_byte_array_set_size (w->rec, 0);
  put (w->rec, entry, len);
  memcpy (w->rec->data, &type, 4);
  st_perf_writer_record (w, w->rec->data, w->rec->len);
}

void
st_perf_writer_make_build_id (StPerfWriter *w, uint16_t misc_cpumode,
                              const uint8_t *build_id, guint len,
                              const char *filename)
{
  uint8_t id[24] = { 0 };
  GByteArray *b = g_byte_array_new ();

  len = MIN (len, ST_PERF_BUILD_ID_MAX);
  memcpy (id, build_id, len);
  id[ST_PERF_BUILD_ID_MAX] = (uint8_t) len;
  begin_in (b, 0, misc_cpumode | ST_PERF_MISC_BUILD_ID_SIZE);
  put_u32 (b, (uint32_t) -1);
  put (b, id, sizeof id);
  put_string (b, filename, ST_PERF_NAME_ALIGN);
  if (set_size (w, b))
    st_perf_writer_build_id (w, b->data, b->len);
  g_byte_array_free (b, TRUE);
}

/* --- records ------------------------------------------------------------- */

uint64_t
st_perf_writer_offset (StPerfWriter *w)
{
  if (w->file_mode && !w->data_started)
    start_data (w);
  return st_output_offset (w->out);
}

void
st_perf_writer_record (StPerfWriter *w, const void *rec, size_t len)
{
  if (w->file_mode && !w->data_started)
    start_data (w);
  st_output_write (w->out, rec, len);
}

void
st_perf_writer_set_trailer (StPerfWriter *w, uint64_t sample_type)
{
  w->trailer_type = sample_type & TRAILER_BITS;
}

void
st_perf_writer_mmap2 (StPerfWriter *w, uint16_t misc_cpumode, uint32_t pid,
                      uint32_t tid, uint64_t addr, uint64_t len,
                      uint64_t pgoff, uint64_t inode, const uint8_t *build_id,
                      guint build_id_len, uint32_t prot, uint32_t flags,
                      const char *filename, const StPerfSampleId *sid)
{
  gboolean has_bid = build_id != NULL && build_id_len > 0;
  GByteArray *b = begin (w, ST_PERF_RECORD_MMAP2,
                         misc_cpumode
                         | (has_bid ? ST_PERF_MISC_MMAP_BUILD_ID : 0));

  put_u32 (b, pid);
  put_u32 (b, tid);
  put_u64 (b, addr);
  put_u64 (b, len);
  put_u64 (b, pgoff);
  if (has_bid)
    {
      uint8_t id[ST_PERF_BUILD_ID_MAX] = { 0 };
      uint8_t n = (uint8_t) MIN (build_id_len, ST_PERF_BUILD_ID_MAX);

      memcpy (id, build_id, n);
      put (b, &n, 1);
      put_zeros (b, 3);
      put (b, id, sizeof id);
    }
  else
    {
      put_u32 (b, 0);           /* device major, minor: unknown */
      put_u32 (b, 0);
      put_u64 (b, inode);
      put_u64 (b, 0);           /* inode generation */
    }
  put_u32 (b, prot);
  put_u32 (b, flags);
  put_string (b, filename, 8);
  put_trailer (w, b, sid);
  end (w);
}

void
st_perf_writer_comm (StPerfWriter *w, gboolean exec, uint32_t pid,
                     uint32_t tid, const char *comm, const StPerfSampleId *sid)
{
  GByteArray *b = begin (w, ST_PERF_RECORD_COMM,
                         exec ? ST_PERF_MISC_COMM_EXEC : 0);

  put_u32 (b, pid);
  put_u32 (b, tid);
  put_string (b, comm, 8);
  put_trailer (w, b, sid);
  end (w);
}

void
st_perf_writer_task (StPerfWriter *w, uint32_t type, uint32_t pid,
                     uint32_t ppid, uint32_t tid, uint32_t ptid,
                     uint64_t time, const StPerfSampleId *sid)
{
  GByteArray *b;

  g_return_if_fail (type == ST_PERF_RECORD_FORK
                    || type == ST_PERF_RECORD_EXIT);
  b = begin (w, type, 0);
  put_u32 (b, pid);
  put_u32 (b, ppid);
  put_u32 (b, tid);
  put_u32 (b, ptid);
  put_u64 (b, time);
  put_trailer (w, b, sid);
  end (w);
}

void
st_perf_writer_lost (StPerfWriter *w, uint64_t id, uint64_t lost,
                     const StPerfSampleId *sid)
{
  GByteArray *b = begin (w, ST_PERF_RECORD_LOST, 0);

  put_u64 (b, id);
  put_u64 (b, lost);
  put_trailer (w, b, sid);
  end (w);
}

void
st_perf_writer_finished_round (StPerfWriter *w)
{
  begin (w, ST_PERF_RECORD_FINISHED_ROUND, 0);
  end (w);
}

gboolean
st_perf_writer_sample (StPerfWriter *w, uint64_t st, uint16_t misc,
                       const StPerfSampleFields *f)
{
  uint64_t fixed = sizeof (StPerfEventHeader), stack_room = 0;
  uint64_t stack_size = 0;
  uint32_t n_ips = f->n_ips;
  gboolean whole = TRUE;
  GByteArray *b;

  g_return_val_if_fail ((st & ~SYNTH_SAMPLE_BITS) == 0, FALSE);

  /* What must fit in a record besides the stack and the callchain.  */
  fixed += 8 * st_popcount64 (st & (ST_PERF_SAMPLE_IDENTIFIER
                                           | ST_PERF_SAMPLE_IP
                                           | ST_PERF_SAMPLE_TID
                                           | ST_PERF_SAMPLE_TIME
                                           | ST_PERF_SAMPLE_ID
                                           | ST_PERF_SAMPLE_CPU
                                           | ST_PERF_SAMPLE_PERIOD));
  if (st & ST_PERF_SAMPLE_CALLCHAIN)
    fixed += 8;
  if (st & ST_PERF_SAMPLE_REGS_USER)
    fixed += 8 + (f->abi != 0 ? 8 * (uint64_t) f->n_regs : 0);
  if (st & ST_PERF_SAMPLE_STACK_USER)
    {
      fixed += 8;
      stack_size = f->stack_size;
    }
  if (fixed + 8 * (uint64_t) n_ips > RECORD_MAX)
    {
      /* Keep the leaf end of the chain.  */
      n_ips = (uint32_t) ((RECORD_MAX - MIN (fixed, RECORD_MAX)) / 8);
      whole = FALSE;
    }
  fixed += 8 * (uint64_t) n_ips;
  if (stack_size > 0)
    {
      /* Room for the copy and its dyn_size: keep the low (leaf) end.  */
      stack_room = fixed + 8 <= RECORD_MAX ? (RECORD_MAX - fixed - 8) : 0;
      if (ST_PERF_ALIGN8 (stack_size) > stack_room)
        {
          stack_size = stack_room;
          whole = FALSE;
        }
    }

  b = begin (w, ST_PERF_RECORD_SAMPLE, misc);
  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, f->id);
  if (st & ST_PERF_SAMPLE_IP)
    put_u64 (b, f->ip);
  if (st & ST_PERF_SAMPLE_TID)
    {
      put_u32 (b, f->pid);
      put_u32 (b, f->tid);
    }
  if (st & ST_PERF_SAMPLE_TIME)
    put_u64 (b, f->time);
  if (st & ST_PERF_SAMPLE_ID)
    put_u64 (b, f->id);
  if (st & ST_PERF_SAMPLE_CPU)
    {
      put_u32 (b, f->cpu);
      put_u32 (b, 0);
    }
  if (st & ST_PERF_SAMPLE_PERIOD)
    put_u64 (b, f->period);
  if (st & ST_PERF_SAMPLE_CALLCHAIN)
    {
      put_u64 (b, n_ips);
      put (b, f->ips, 8 * (size_t) n_ips);
    }
  if (st & ST_PERF_SAMPLE_REGS_USER)
    {
      put_u64 (b, f->abi);
      if (f->abi != 0)
        put (b, f->regs, 8 * (size_t) f->n_regs);
    }
  if (st & ST_PERF_SAMPLE_STACK_USER)
    {
      /* The kernel's layout: the copy's size (8-aligned), the copy, then
         how much of it is valid.  */
      put_u64 (b, ST_PERF_ALIGN8 (stack_size));
      if (stack_size > 0)
        {
          put (b, f->stack, stack_size);
          put_zeros (b, ST_PERF_ALIGN8 (stack_size) - stack_size);
          put_u64 (b, stack_size);
        }
    }
  end (w);
  return whole;
}

/* The unwound sample of st_perf_writer_unwound_sample, TOTAL bytes, into
   DST.  */
static void
fill_unwound_sample (uint8_t *dst, const uint8_t *rec, size_t size,
                     const StPerfSampleSpans *sp, const uint64_t *chain,
                     uint64_t n_chain, size_t total)
{
  uint16_t record_size = (uint16_t) total;
  size_t between = sp->regs_user_at - sp->callchain_end;

  memcpy (dst, rec, sp->callchain_at);
  memcpy (dst + 6, &record_size, 2);
  dst += sp->callchain_at;
  memcpy (dst, &n_chain, 8);
  dst += 8;
  if (n_chain > 0)
    memcpy (dst, chain, 8 * n_chain);
  dst += 8 * n_chain;
  memcpy (dst, rec + sp->callchain_end, between);
  dst += between;
  memcpy (dst, rec + sp->stack_user_end, size - sp->stack_user_end);
}

gboolean
st_perf_writer_unwound_sample (StPerfWriter *w, const uint8_t *rec,
                               size_t size, const StPerfSampleSpans *sp,
                               const uint64_t *chain, size_t n_chain)
{
  size_t rest, total;
  gboolean whole = TRUE;
  uint8_t *dst;

  if (chain == NULL)
    {
      /* Keep the old callchain (u64 nr, then the entries), or give an
         empty one.  */
      n_chain = sp->callchain_end > sp->callchain_at
                ? st_perf_get_u64 (rec + sp->callchain_at) : 0;
      chain = n_chain > 0 ? (const uint64_t *) (rec + sp->callchain_at + 8)
                          : NULL;
    }
  /* Everything but the CALLCHAIN, REGS_USER and STACK_USER fields.  */
  rest = size - (sp->callchain_end - sp->callchain_at)
         - (sp->stack_user_end - sp->regs_user_at);
  if (rest + 8 + 8 * n_chain > RECORD_MAX)
    {
      /* Keep the leaf end.  */
      n_chain = (RECORD_MAX - MIN (rest + 8, RECORD_MAX)) / 8;
      whole = FALSE;
    }
  total = rest + 8 + 8 * n_chain;
  if (!fits (w, rec, total))
    return whole;
  if (w->file_mode && !w->data_started)
    start_data (w);
  /* Straight into the output buffer, where it has room (nearly always):
     most of the record is copied, the rest is a few words.  */
  dst = st_output_reserve (w->out, total);
  if (dst != NULL)
    {
      fill_unwound_sample (dst, rec, size, sp, chain, n_chain, total);
      st_output_commit (w->out, total);
      return whole;
    }
  g_byte_array_set_size (w->rec, total);
  fill_unwound_sample (w->rec->data, rec, size, sp, chain, n_chain, total);
  st_perf_writer_record (w, w->rec->data, total);
  return whole;
}

/* --- the end ------------------------------------------------------------- */

/* File mode: the feature table right behind the data (perf finds it
   there), then the sections in bit order.  */
static void
write_features (StPerfWriter *w)
{
  uint64_t at = st_output_offset (w->out);
  int n = 0;

  for (int bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    if (w->features[bit] != NULL)
      n++;
  at += (uint64_t) n * sizeof (StPerfSection);
  for (int bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    if (w->features[bit] != NULL)
      {
        StPerfSection s = { at, w->features[bit]->len };

        st_output_write (w->out, &s, sizeof s);
        at += s.size;
      }
  for (int bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    if (w->features[bit] != NULL)
      st_output_write (w->out, w->features[bit]->data,
                       w->features[bit]->len);
}

/* The end of the last whole record of the data section, when the file
   holds WRITTEN bytes: read back from the file, header by header (through
   /proc/self/fd: the output was opened write-only).  */
static uint64_t
last_whole_record_end (StPerfWriter *w, uint64_t written)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fd/%d",
                                           st_output_fd (w->out));
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  uint64_t at = w->data_offset;
  StPerfEventHeader h;

  if (fd < 0)
    return at;
  while (at + sizeof h <= written
         && pread (fd, &h, sizeof h, (off_t) at) == (ssize_t) sizeof h
         && h.size >= sizeof h && at + h.size <= written)
    at += h.size;
  close (fd);
  return at;
}

/* A write failed (ENOSPC, EIO...): the header written at the start says
   data size 0, which perf takes for "no data".  Rewrite it, in place
   (no new blocks needed), to describe the whole records that did reach
   the file, without the features, which did not.  FALSE when that is
   not possible either.  */
static gboolean
describe_what_was_written (StPerfWriter *w, uint64_t *data_size)
{
  StPerfFileHeader h;
  uint64_t written = st_output_written (w->out);

  if (!w->data_started || w->n_attrs_written != w->attrs->len
      || written < w->data_offset)
    return FALSE;
  *data_size = last_whole_record_end (w, written) - w->data_offset;
  if (*data_size == 0)
    return FALSE;
  make_header (w, &h, *data_size);
  memset (h.adds_features, 0, sizeof h.adds_features);
  return pwrite (st_output_fd (w->out), &h, sizeof h, 0)
         == (ssize_t) sizeof h;
}

gboolean
st_perf_writer_finish (StPerfWriter *w, GError **error)
{
  /* The data first: a write error there is handled below.  */
  if (w->file_mode)
    st_output_flush (w->out, NULL);
  if (w->file_mode && st_output_failed (w->out))
    {
      GError *write_error = NULL;
      uint64_t data_size = 0;

      st_output_flush (w->out, &write_error);
      if (describe_what_was_written (w, &data_size))
        g_prefix_error (&write_error, "perf.data header rewritten to hold "
                        "the %" G_GUINT64_FORMAT " bytes of whole records "
                        "written (no feature sections): ", data_size);
      else
        g_prefix_error (&write_error, "the perf.data header could not be "
                        "completed (its data size says 0): ");
      g_propagate_error (error, write_error);
      return FALSE;
    }
  if (w->file_mode)
    {
      StPerfFileHeader h;
      uint64_t data_size;

      if (!w->data_started)
        start_data (w);
      /* Data size 0 would mean "up to the end of the file".  */
      if (st_output_offset (w->out) == w->data_offset)
        st_perf_writer_finished_round (w);
      data_size = st_output_offset (w->out) - w->data_offset;
      write_features (w);
      if (w->n_attrs_written != w->attrs->len)
        write_attrs (w);
      make_header (w, &h, data_size);
      if (!st_output_pwrite (w->out, &h, sizeof h, 0, error))
        return FALSE;
    }
  if (!st_output_flush (w->out, error))
    return FALSE;
  if (w->error != NULL)
    {
      g_propagate_error (error, g_error_copy (w->error));
      return FALSE;
    }
  return TRUE;
}
