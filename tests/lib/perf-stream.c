/* perf.data streams for the tests: see perf-stream.h.  */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/domain.h"
#include "perf-stream.h"
#include "test-io.h"

/* --- building streams ---------------------------------------------------- */

void
put (GByteArray *b, const void *p, size_t n)
{
  g_byte_array_append (b, p, n);
}

void
put_u16 (GByteArray *b, uint16_t v)
{
  put (b, &v, 2);
}

void
put_u32 (GByteArray *b, uint32_t v)
{
  put (b, &v, 4);
}

void
put_u64 (GByteArray *b, uint64_t v)
{
  put (b, &v, 8);
}

void
put_zeros (GByteArray *b, size_t n)
{
  while (n-- > 0)
    put (b, "", 1);
}

void
pad8 (GByteArray *b)
{
  put_zeros (b, (8 - b->len % 8) % 8);
}

void
put_string (GByteArray *b, const char *s)
{
  put (b, s, strlen (s) + 1);
  pad8 (b);
}

guint
begin_record (GByteArray *b, uint32_t type, uint16_t misc)
{
  guint start = b->len;

  put_u32 (b, type);
  put_u16 (b, misc);
  put_u16 (b, 0);
  return start;
}

void
end_record (GByteArray *b, guint start)
{
  uint16_t size = b->len - start;

  memcpy (b->data + start + 6, &size, 2);
}

void
put_attr (GByteArray *b, const AttrSpec *a)
{
  put_attr_sized (b, a, ATTR_BYTES);
}

void
put_attr_sized (GByteArray *b, const AttrSpec *a, uint32_t size)
{
  uint8_t raw[256] = { 0 };
  uint32_t type = 1;
  uint64_t config = 0, period = 4000;

  memcpy (raw + ST_PERF_ATTR_TYPE, &type, 4);
  memcpy (raw + ST_PERF_ATTR_SIZE, &size, 4);
  memcpy (raw + ST_PERF_ATTR_CONFIG, &config, 8);
  memcpy (raw + ST_PERF_ATTR_SAMPLE_PERIOD, &period, 8);
  memcpy (raw + ST_PERF_ATTR_SAMPLE_TYPE, &a->sample_type, 8);
  memcpy (raw + ST_PERF_ATTR_READ_FORMAT, &a->read_format, 8);
  memcpy (raw + ST_PERF_ATTR_FLAGS, &a->flags, 8);
  memcpy (raw + ST_PERF_ATTR_BRANCH_SAMPLE_TYPE, &a->branch_sample_type, 8);
  memcpy (raw + ST_PERF_ATTR_SAMPLE_REGS_USER, &a->regs_user, 8);
  memcpy (raw + ST_PERF_ATTR_SAMPLE_STACK_USER, &a->stack_user, 4);
  g_assert (size >= ST_PERF_ATTR_SIZE_VER0 && size <= sizeof raw);
  /* What an older perf's attribute does not have is not there; what a
     newer perf's has beyond ours is a pattern.  */
  if (size < ST_PERF_ATTR_SIZE_VER7)
    memset (raw + size, 0, sizeof raw - size);
  for (uint32_t i = ST_PERF_ATTR_SIZE_VER7; i < size; i++)
    raw[i] = (uint8_t) (0xa0 + i);
  put (b, raw, size);
}

void
put_trailer (GByteArray *b, const AttrSpec *a, const Trailer *t)
{
  uint64_t st = a->sample_type;

  if (!(a->flags & ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL))
    return;
  if (st & ST_PERF_SAMPLE_TID)
    {
      put_u32 (b, t->pid);
      put_u32 (b, t->tid);
    }
  if (st & ST_PERF_SAMPLE_TIME)
    put_u64 (b, t->time);
  if (st & ST_PERF_SAMPLE_ID)
    put_u64 (b, t->id);
  if (st & ST_PERF_SAMPLE_STREAM_ID)
    put_u64 (b, t->stream_id);
  if (st & ST_PERF_SAMPLE_CPU)
    {
      put_u32 (b, t->cpu);
      put_u32 (b, 0);
    }
  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, t->id);
}

void
put_sample (GByteArray *b, const AttrSpec *a, const SampleSpec *s)
{
  uint64_t st = a->sample_type;
  guint start = begin_record (b, ST_PERF_RECORD_SAMPLE, 2);

  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, s->id);
  if (st & ST_PERF_SAMPLE_IP)
    put_u64 (b, s->ip);
  if (st & ST_PERF_SAMPLE_TID)
    {
      put_u32 (b, s->pid);
      put_u32 (b, s->tid);
    }
  if (st & ST_PERF_SAMPLE_TIME)
    put_u64 (b, s->time);
  if (st & ST_PERF_SAMPLE_ADDR)
    put_u64 (b, 0xadd);
  if (st & ST_PERF_SAMPLE_ID)
    put_u64 (b, s->id);
  if (st & ST_PERF_SAMPLE_STREAM_ID)
    put_u64 (b, 77);
  if (st & ST_PERF_SAMPLE_CPU)
    {
      put_u32 (b, s->cpu);
      put_u32 (b, 0);
    }
  if (st & ST_PERF_SAMPLE_PERIOD)
    put_u64 (b, 1000);
  if (st & ST_PERF_SAMPLE_READ)
    {
      uint64_t rf = a->read_format;
      uint32_t n = (rf & ST_PERF_FORMAT_GROUP) ? s->n_read : 1;

      if (rf & ST_PERF_FORMAT_GROUP)
        put_u64 (b, n);
      else
        put_u64 (b, 12345);
      if (rf & ST_PERF_FORMAT_TOTAL_TIME_ENABLED)
        put_u64 (b, 1);
      if (rf & ST_PERF_FORMAT_TOTAL_TIME_RUNNING)
        put_u64 (b, 2);
      for (uint32_t i = 0; i < n; i++)
        {
          if (rf & ST_PERF_FORMAT_GROUP)
            put_u64 (b, 100 + i);
          if (rf & ST_PERF_FORMAT_ID)
            put_u64 (b, 200 + i);
          if (rf & ST_PERF_FORMAT_LOST)
            put_u64 (b, 0);
        }
    }
  if (st & ST_PERF_SAMPLE_CALLCHAIN)
    {
      put_u64 (b, s->n_chain);
      put (b, s->chain, s->n_chain * 8);
    }
  if (st & ST_PERF_SAMPLE_RAW)
    {
      put_u32 (b, s->raw_size);
      for (uint32_t i = 0; i < s->raw_size; i++)
        put (b, "R", 1);
    }
  if (st & ST_PERF_SAMPLE_BRANCH_STACK)
    {
      put_u64 (b, s->n_branches);
      if (a->branch_sample_type & ST_PERF_BRANCH_HW_INDEX)
        put_u64 (b, 5);
      for (uint32_t i = 0; i < s->n_branches; i++)
        {
          put_u64 (b, 0x1000 + i);
          put_u64 (b, 0x2000 + i);
          put_u64 (b, 0);
        }
    }
  if (st & ST_PERF_SAMPLE_REGS_USER)
    {
      put_u64 (b, s->abi);
      if (s->abi != 0)
        put (b, s->regs, 8 * __builtin_popcountll (a->regs_user));
    }
  if (st & ST_PERF_SAMPLE_STACK_USER)
    {
      put_u64 (b, s->stack_size);
      for (uint64_t i = 0; i < s->stack_size; i++)
        {
          uint8_t c = (uint8_t) (i + 1);
          put (b, &c, 1);
        }
      if (s->stack_size != 0)
        put_u64 (b, s->dyn_size);
    }
  if (st & ST_PERF_SAMPLE_DATA_SRC)
    put_u64 (b, 0);
  end_record (b, start);
}

void
put_mmap (GByteArray *b, const AttrSpec *a, const Trailer *t, uint16_t misc,
          uint64_t addr, uint64_t len, uint64_t pgoff, const char *name)
{
  guint start = begin_record (b, ST_PERF_RECORD_MMAP, misc);

  put_u32 (b, t->pid);
  put_u32 (b, t->tid);
  put_u64 (b, addr);
  put_u64 (b, len);
  put_u64 (b, pgoff);
  put_string (b, name);
  put_trailer (b, a, t);
  end_record (b, start);
}

/* BUILD_ID: a 20-byte build-id of byte BID_BYTE, size BID_LEN; else an
   inode.  */
void
put_mmap2 (GByteArray *b, const AttrSpec *a, const Trailer *t,
           uint64_t addr, uint64_t len, uint64_t pgoff, uint64_t inode,
           int bid_byte, uint8_t bid_len, uint32_t prot, const char *name)
{
  guint start = begin_record (b, ST_PERF_RECORD_MMAP2,
                              bid_byte >= 0 ? ST_PERF_MISC_MMAP_BUILD_ID : 0);

  put_u32 (b, t->pid);
  put_u32 (b, t->tid);
  put_u64 (b, addr);
  put_u64 (b, len);
  put_u64 (b, pgoff);
  if (bid_byte >= 0)
    {
      uint8_t id[20];

      memset (id, bid_byte, sizeof id);
      put (b, &bid_len, 1);
      put_zeros (b, 3);
      put (b, id, 20);
    }
  else
    {
      put_u32 (b, 8);
      put_u32 (b, 1);
      put_u64 (b, inode);
      put_u64 (b, 0);
    }
  put_u32 (b, prot);
  put_u32 (b, 2);
  put_string (b, name);
  put_trailer (b, a, t);
  end_record (b, start);
}

void
put_comm (GByteArray *b, const AttrSpec *a, const Trailer *t, gboolean exec,
          const char *comm)
{
  guint start = begin_record (b, ST_PERF_RECORD_COMM,
                              exec ? ST_PERF_MISC_COMM_EXEC : 0);

  put_u32 (b, t->pid);
  put_u32 (b, t->tid);
  put_string (b, comm);
  put_trailer (b, a, t);
  end_record (b, start);
}

void
put_fork_exit (GByteArray *b, const AttrSpec *a, const Trailer *t,
               uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
               uint32_t ptid, uint64_t time)
{
  guint start = begin_record (b, type, 0);

  put_u32 (b, pid);
  put_u32 (b, ppid);
  put_u32 (b, tid);
  put_u32 (b, ptid);
  put_u64 (b, time);
  put_trailer (b, a, t);
  end_record (b, start);
}

void
put_lost (GByteArray *b, const AttrSpec *a, const Trailer *t, uint64_t n)
{
  guint start = begin_record (b, ST_PERF_RECORD_LOST, 0);

  put_u64 (b, t->id);
  put_u64 (b, n);
  put_trailer (b, a, t);
  end_record (b, start);
}

/* A record of TYPE with LEN body bytes (need not be a multiple of 8).  */
void
put_other (GByteArray *b, uint32_t type, size_t len)
{
  guint start = begin_record (b, type, 0);

  for (size_t i = 0; i < len; i++)
    put (b, "x", 1);
  end_record (b, start);
}

void
put_build_id_entry (GByteArray *b, int byte, int size, const char *name)
{
  guint start = begin_record (b, ST_PERF_RECORD_HEADER_BUILD_ID,
                              size >= 0 ? ST_PERF_MISC_BUILD_ID_SIZE : 0);
  uint8_t id[24] = { 0 };

  put_u32 (b, 0xffffffff);
  memset (id, byte, 20);
  if (size >= 0)
    id[20] = size;
  put (b, id, 24);
  put_string (b, name);
  end_record (b, start);
}

void
set_u64 (GByteArray *b, guint at, uint64_t v)
{
  memcpy (b->data + at, &v, 8);
}

/* A file-mode perf.data: header, ids, attrs, data, feature table and
   sections (like perf writes it, or as FLAGS say).  */
GByteArray *
make_file (const AttrEntry *attrs, int n_attrs, const GByteArray *data,
           const Feature *feats, int n_feats, guint flags)
{
  GByteArray *b = g_byte_array_new ();
  uint64_t id_offsets[8];
  uint64_t attrs_offset, data_offset;

  g_assert (n_attrs <= 8);
  put (b, ST_PERF_MAGIC, 8);
  put_u64 (b, ST_PERF_FILE_HEADER_SIZE);
  put_u64 (b, ATTR_BYTES + 16);
  put_zeros (b, ST_PERF_FILE_HEADER_SIZE - 24);
  if (flags & LAYOUT_ATTRS_BEHIND)
    {
      data_offset = b->len;
      put (b, data->data, data->len);
    }
  for (int i = 0; i < n_attrs; i++)
    {
      id_offsets[i] = b->len;
      put (b, attrs[i].ids, attrs[i].n_ids * 8);
    }
  attrs_offset = b->len;
  for (int i = 0; i < n_attrs; i++)
    {
      put_attr (b, attrs[i].attr);
      put_u64 (b, id_offsets[i]);
      put_u64 (b, attrs[i].n_ids * 8);
    }
  if (flags & LAYOUT_GAP)
    for (int i = 0; i < 5000; i++)
      put (b, "g", 1);
  pad8 (b);
  if (!(flags & LAYOUT_ATTRS_BEHIND))
    {
      data_offset = b->len;
      put (b, data->data, data->len);
    }
  set_u64 (b, 24, attrs_offset);
  set_u64 (b, 32, n_attrs * (ATTR_BYTES + 16));
  set_u64 (b, 40, data_offset);
  set_u64 (b, 48, (flags & LAYOUT_DATA_SIZE_0) ? 0 : data->len);
  if (!(flags & LAYOUT_DATA_SIZE_0) && n_feats > 0)
    {
      uint64_t bits[4] = { 0 };
      guint table = b->len;
      uint64_t at = table + 16 * n_feats;

      for (int i = 0; i < n_feats; i++)
        {
          g_assert (i == 0 || feats[i].bit > feats[i - 1].bit);
          bits[feats[i].bit / 64] |= 1ull << (feats[i].bit % 64);
          put_u64 (b, at);
          put_u64 (b, feats[i].bytes->len);
          at += feats[i].bytes->len;
        }
      for (int i = 0; i < n_feats; i++)
        put (b, feats[i].bytes->data, feats[i].bytes->len);
      memcpy (b->data + 72, bits, sizeof bits);
    }
  return b;
}

/* A pipe-mode stream: header, HEADER_ATTR records, then DATA.  */
GByteArray *
make_pipe (const AttrEntry *attrs, int n_attrs, const GByteArray *data)
{
  GByteArray *b = g_byte_array_new ();

  put (b, ST_PERF_MAGIC, 8);
  put_u64 (b, ST_PERF_PIPE_HEADER_SIZE);
  for (int i = 0; i < n_attrs; i++)
    {
      guint start = begin_record (b, ST_PERF_RECORD_HEADER_ATTR, 0);

      put_attr (b, attrs[i].attr);
      put (b, attrs[i].ids, attrs[i].n_ids * 8);
      end_record (b, start);
    }
  put (b, data->data, data->len);
  return b;
}

/* --- reading ------------------------------------------------------------- */

void
result_free (Result *res)
{
  g_array_free (res->evs, TRUE);
  g_ptr_array_unref (res->raws);
  g_ptr_array_unref (res->attrs);
  g_ptr_array_unref (res->attr_ids);
  for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    if (res->features[bit] != NULL)
      g_bytes_unref (res->features[bit]);
  g_clear_error (&res->error);
  g_free (res);
}

static void
copy_u64s (Ev *e, guint at, const uint64_t *p, uint32_t n)
{
  if (n > 0)
    g_assert_cmpuint ((uintptr_t) p % 8, ==, 0);
  for (uint32_t i = 0; i < n && at + i < G_N_ELEMENTS (e->u64s); i++)
    e->u64s[at + i] = p[i];
}

/* Whether the record at OFFSET of SRC is a compressed one (the events
   from it are not in SRC as they are).  */
static gboolean
in_compressed (const GByteArray *src, uint64_t offset)
{
  uint32_t type;

  if (offset + 4 > src->len)
    return FALSE;
  memcpy (&type, src->data + offset, 4);
  return type == ST_PERF_RECORD_COMPRESSED
         || type == ST_PERF_RECORD_COMPRESSED2;
}

static void
copy_event (Ev *e, const StEvent *ev, const GByteArray *src)
{
  memset (e, 0, sizeof *e);
  g_assert_cmpint (ev->source, ==, ST_FORMAT_PERF);
  e->kind = ev->kind;
  e->offset = ev->offset;
  e->pid = ev->pid;
  e->tid = ev->tid;
  e->cpu = ev->cpu;
  e->time = ev->time;
  e->raw_len = ev->raw_len;
  memcpy (&e->raw_type, ev->raw, 4);
  if (src != NULL && !in_compressed (src, ev->offset))
    {
      g_assert_cmpuint (ev->offset + ev->raw_len, <=, src->len);
      g_assert (memcmp (ev->raw, src->data + ev->offset, ev->raw_len) == 0);
    }
  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      e->n_ips = ev->sample.n_ips;
      copy_u64s (e, 0, ev->sample.ips, ev->sample.n_ips);
      break;
    case ST_EVENT_STACK_USER:
      e->n_ips = ev->stack.n_callchain;
      copy_u64s (e, 0, ev->stack.callchain, ev->stack.n_callchain);
      e->n_regs = ev->stack.n_regs;
      copy_u64s (e, MIN (e->n_ips, 32), ev->stack.regs, ev->stack.n_regs);
      e->abi = ev->stack.abi;
      e->regs_mask = ev->stack.regs_mask;
      e->stack_size = ev->stack.stack_size;
      g_assert_cmpuint (ev->stack.stack_size, >, 0);
      e->stack_last = ev->stack.stack[ev->stack.stack_size - 1];
      break;
    case ST_EVENT_MAP:
      e->start = ev->map.start;
      e->end = ev->map.end;
      e->pgoff = ev->map.pgoff;
      e->inode = ev->map.inode;
      e->prot = ev->map.prot;
      e->exec_known = ev->map.exec_known;
      g_strlcpy (e->str, ev->map.filename, sizeof e->str);
      memcpy (e->build_id, ev->map.build_id, ev->map.build_id_len);
      e->build_id_len = ev->map.build_id_len;
      break;
    case ST_EVENT_PROCESS:
      g_strlcpy (e->str, ev->process.comm, sizeof e->str);
      e->exec = ev->process.exec;
      break;
    case ST_EVENT_FORK:
      e->parent_pid = ev->fork.parent_pid;
      e->parent_tid = ev->fork.parent_tid;
      break;
    case ST_EVENT_LOST:
      e->lost = ev->lost.count;
      break;
    case ST_EVENT_EXIT:
    case ST_EVENT_OTHER:
      break;
    }
}

DamageLog *recovery;

/* Reads BYTES through a pipe (PIPE) or a regular file.  */
Result *
read_bytes (const GByteArray *bytes, gboolean pipe_input)
{
  Result *res = g_new0 (Result, 1);
  GBytes *input = g_bytes_new (bytes->data, bytes->len);
  Source src;
  int fd;
  StInput *in;
  StPerfReader *r;

  res->evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  res->raws = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  res->attrs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  res->attr_ids = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                  g_array_unref);
  source_open (&src, input, pipe_input);
  fd = src.fd;
  in = st_input_new (fd);
  r = st_perf_reader_new (in, &res->error);
  if (r != NULL)
    {
      StEvent ev;
      int rc;

      res->pipe_mode = st_perf_reader_is_pipe (r);
      if (recovery != NULL)
        {
          StDamageHandler h = { damage_log_record, recovery };
          st_perf_reader_set_damage_handler (r, &h);
        }
      while ((rc = st_perf_reader_next (r, &ev, &res->error)) == 1)
        {
          Ev e;

          copy_event (&e, &ev, bytes);
          g_array_append_val (res->evs, e);
          g_ptr_array_add (res->raws, g_bytes_new (ev.raw, ev.raw_len));
        }
      g_assert_cmpint (rc, ==, res->error != NULL ? -1 : 0);
      /* Still at the end.  */
      if (rc == 0)
        g_assert_cmpint (st_perf_reader_next (r, &ev, NULL), ==, 0);
      res->n_attrs = st_perf_reader_n_attrs (r);
      for (guint i = 0; i < res->n_attrs; i++)
        {
          const StPerfAttr *a = st_perf_reader_attr (r, i);
          GArray *ids = g_array_new (FALSE, FALSE, sizeof (uint64_t));

          g_ptr_array_add (res->attrs, g_bytes_new (a->raw, a->raw_size));
          g_array_append_vals (ids, a->ids, a->n_ids);
          g_ptr_array_add (res->attr_ids, ids);
        }
      for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
        {
          const uint8_t *f = st_perf_reader_feature (r, bit,
                                                     &res->feature_size[bit]);

          if (f != NULL)
            res->features[bit] = g_bytes_new (f, res->feature_size[bit]);
        }
      st_perf_reader_free (r);
    }
  else
    g_assert_nonnull (res->error);
  st_input_free (in);
  source_close (&src);
  g_bytes_unref (input);
  return res;
}

const Ev *
ev_at (const Result *res, guint i)
{
  g_assert_cmpuint (i, <, res->evs->len);
  return &g_array_index (res->evs, Ev, i);
}

guint
count_type (const Result *res, uint32_t type)
{
  guint n = 0;

  for (guint i = 0; i < res->evs->len; i++)
    n += ev_at (res, i)->raw_type == type;
  return n;
}

/* Same events apart from build-ids (which may come from the features).  */
void
assert_same_events (const Result *a, const Result *b, gboolean build_ids)
{
  g_assert_cmpuint (a->evs->len, ==, b->evs->len);
  for (guint i = 0; i < a->evs->len; i++)
    {
      Ev x = *ev_at (a, i), y = *ev_at (b, i);

      if (!build_ids)
        {
          memset (x.build_id, 0, 20);
          memset (y.build_id, 0, 20);
          x.build_id_len = y.build_id_len = 0;
        }
      g_assert (memcmp (&x, &y, sizeof x) == 0);
    }
}

void
assert_error (const Result *res, int code, const char *prefix,
              const char *part)
{
  g_assert_nonnull (res->error);
  if (!g_str_has_prefix (res->error->message, prefix)
      || (part != NULL && strstr (res->error->message, part) == NULL))
    g_error ("unexpected error message: %s (want %s ... %s)",
             res->error->message, prefix, part ? part : "");
  g_assert_error (res->error, ST_ERROR, code);
}

gboolean
is_pipe_header_record (uint32_t type)
{
  return type == ST_PERF_RECORD_HEADER_ATTR
         || type == ST_PERF_RECORD_HEADER_FEATURE
         || type == ST_PERF_RECORD_HEADER_BUILD_ID
         || type == ST_PERF_RECORD_HEADER_EVENT_TYPE;
}

guint
result_first_data (const Result *res)
{
  guint i = 0;

  while (i < res->evs->len && is_pipe_header_record (ev_at (res, i)->raw_type))
    i++;
  return i;
}

uint64_t
result_attr_u64 (const Result *res, guint a, size_t off)
{
  GBytes *attr = res->attrs->pdata[a];
  uint64_t v;

  g_assert_cmpuint (g_bytes_get_size (attr), >=, off + 8);
  memcpy (&v, (const uint8_t *) g_bytes_get_data (attr, NULL) + off, 8);
  return v;
}
