/* perf.data reader: synthesized file-mode and pipe-mode streams read
   through a file and a pipe, bad input, and a real `perf record`.  */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/damage.h"
#include "format/domain.h"
#include "format/perf-reader.h"
#include "format/perf-types.h"

/* --- building streams ---------------------------------------------------- */

static void
put (GByteArray *b, const void *p, size_t n)
{
  g_byte_array_append (b, p, n);
}

static void
put_u16 (GByteArray *b, uint16_t v)
{
  put (b, &v, 2);
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
  while (n-- > 0)
    put (b, "", 1);
}

static void
pad8 (GByteArray *b)
{
  put_zeros (b, (8 - b->len % 8) % 8);
}

static void
put_string (GByteArray *b, const char *s)
{
  put (b, s, strlen (s) + 1);
  pad8 (b);
}

static guint
begin_record (GByteArray *b, uint32_t type, uint16_t misc)
{
  guint start = b->len;

  put_u32 (b, type);
  put_u16 (b, misc);
  put_u16 (b, 0);
  return start;
}

static void
end_record (GByteArray *b, guint start)
{
  uint16_t size = b->len - start;

  memcpy (b->data + start + 6, &size, 2);
}

typedef struct
{
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t flags;
  uint64_t branch_sample_type;
  uint64_t regs_user;
  uint32_t stack_user;
} AttrSpec;

#define ATTR_BYTES 128

static void
put_attr (GByteArray *b, const AttrSpec *a)
{
  uint8_t raw[ATTR_BYTES] = { 0 };
  uint32_t type = 1, size = ATTR_BYTES;
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
  put (b, raw, sizeof raw);
}

typedef struct
{
  uint32_t pid, tid;
  uint64_t time, id, stream_id;
  uint32_t cpu;
} Trailer;

static void
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

typedef struct
{
  uint64_t id, ip, time;
  uint32_t pid, tid, cpu;
  uint32_t n_read;              /* group members for READ */
  const uint64_t *chain;
  uint32_t n_chain;
  uint32_t raw_size;            /* size + 4 must be 8-aligned */
  uint32_t n_branches;
  uint64_t abi;
  const uint64_t *regs;         /* popcount (regs_user) of them */
  uint64_t stack_size;
  uint64_t dyn_size;
} SampleSpec;

static void
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

static void
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
static void
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

static void
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

static void
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

static void
put_lost (GByteArray *b, const AttrSpec *a, const Trailer *t, uint64_t n)
{
  guint start = begin_record (b, ST_PERF_RECORD_LOST, 0);

  put_u64 (b, t->id);
  put_u64 (b, n);
  put_trailer (b, a, t);
  end_record (b, start);
}

/* A record of TYPE with LEN body bytes (need not be a multiple of 8).  */
static void
put_other (GByteArray *b, uint32_t type, size_t len)
{
  guint start = begin_record (b, type, 0);

  for (size_t i = 0; i < len; i++)
    put (b, "x", 1);
  end_record (b, start);
}

static void
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

typedef struct
{
  const AttrSpec *attr;
  const uint64_t *ids;
  uint32_t n_ids;
} AttrEntry;

typedef struct
{
  int bit;
  GByteArray *bytes;
} Feature;

enum
{
  LAYOUT_ATTRS_BEHIND = 1 << 0,   /* ids and attrs after the data */
  LAYOUT_DATA_SIZE_0 = 1 << 1,    /* as if perf was killed */
  LAYOUT_GAP = 1 << 2,            /* junk between the attrs and the data */
};

static void
set_u64 (GByteArray *b, guint at, uint64_t v)
{
  memcpy (b->data + at, &v, 8);
}

/* A file-mode perf.data: header, ids, attrs, data, feature table and
   sections (like perf writes it, or as FLAGS say).  */
static GByteArray *
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
static GByteArray *
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

/* An event copied out of the reader's buffer.  */
typedef struct
{
  StEventKind kind;
  uint64_t offset;
  int32_t pid, tid, cpu;
  int64_t time;
  size_t raw_len;
  uint32_t raw_type;
  uint64_t u64s[64];       /* ips, or callchain then regs */
  uint32_t n_ips;          /* sample ips or stack callchain */
  uint32_t n_regs;
  uint32_t abi;
  uint64_t regs_mask;
  uint64_t stack_size;
  uint8_t stack_last;      /* last valid stack byte */
  uint64_t start, end, pgoff, inode;
  uint32_t prot;
  gboolean exec_known;
  char str[256];
  uint8_t build_id[20];
  guint build_id_len;
  gboolean exec;
  int32_t parent_pid, parent_tid;
  uint64_t lost;
} Ev;

typedef struct
{
  GArray *evs;
  GError *error;
  gboolean pipe_mode;
  guint n_attrs;
  uint64_t feature_size[ST_PERF_FEATURE_BITS];
} Result;

static void
result_free (Result *res)
{
  g_array_free (res->evs, TRUE);
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
  if (src != NULL)
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

typedef struct
{
  int fd;
  const GByteArray *bytes;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  size_t done = 0;

  while (done < f->bytes->len)
    {
      ssize_t n = write (f->fd, f->bytes->data + done,
                         MIN (f->bytes->len - done, 4093));

      if (n <= 0)
        break;        /* the reader stopped early */
      done += n;
    }
  close (f->fd);
  return NULL;
}

/* What a damage handler saw.  */
typedef struct
{
  guint n;
  StDamageAction action;
  uint64_t offset;
  char *message;
} DamageLog;

static void
log_damage (const StDamage *d, void *user)
{
  DamageLog *log = user;

  if (log->n++ == 0)
    {
      log->action = d->action;
      log->offset = d->offset;
      log->message = g_strdup (d->message);
    }
}

/* When set, read_bytes recovers from damage and logs it here.  */
static DamageLog *recovery;

/* Reads BYTES through a pipe (PIPE) or a regular file.  */
static Result *
read_bytes (const GByteArray *bytes, gboolean pipe_input)
{
  Result *res = g_new0 (Result, 1);
  int fd;
  Feeder f = { -1, bytes };
  GThread *thread = NULL;
  StInput *in;
  StPerfReader *r;

  res->evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  if (pipe_input)
    {
      int fds[2];

      g_assert_no_errno (pipe (fds));
      fd = fds[0];
      f.fd = fds[1];
      thread = g_thread_new ("feed", feed, &f);
    }
  else
    {
      char *path = NULL;
      int wfd = g_file_open_tmp ("test-perf-reader-XXXXXX", &path, NULL);

      g_assert_cmpint (wfd, >=, 0);
      g_assert_cmpint (write (wfd, bytes->data, bytes->len), ==, bytes->len);
      close (wfd);
      fd = open (path, O_RDONLY);
      g_assert_cmpint (fd, >=, 0);
      unlink (path);
      g_free (path);
    }

  in = st_input_new (fd);
  r = st_perf_reader_new (in, &res->error);
  if (r != NULL)
    {
      StEvent ev;
      int rc;

      res->pipe_mode = st_perf_reader_is_pipe (r);
      if (recovery != NULL)
        {
          StDamageHandler h = { log_damage, recovery };
          st_perf_reader_set_damage_handler (r, &h);
        }
      while ((rc = st_perf_reader_next (r, &ev, &res->error)) == 1)
        {
          Ev e;

          copy_event (&e, &ev, bytes);
          g_array_append_val (res->evs, e);
        }
      g_assert_cmpint (rc, ==, res->error != NULL ? -1 : 0);
      /* Still at the end.  */
      if (rc == 0)
        g_assert_cmpint (st_perf_reader_next (r, &ev, NULL), ==, 0);
      res->n_attrs = st_perf_reader_n_attrs (r);
      for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
        st_perf_reader_feature (r, bit, &res->feature_size[bit]);
      st_perf_reader_free (r);
    }
  else
    g_assert_nonnull (res->error);
  st_input_free (in);
  close (fd);
  if (thread != NULL)
    g_thread_join (thread);
  return res;
}

static const Ev *
ev_at (const Result *res, guint i)
{
  g_assert_cmpuint (i, <, res->evs->len);
  return &g_array_index (res->evs, Ev, i);
}

/* Same events apart from build-ids (which may come from the features).  */
static void
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

static void
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

/* --- the synthesized recording ----------------------------------------- */

#define PID 4242
#define MASK_X86_64 0xff01ffull   /* 17 regs */

static const AttrSpec dwarf_attr = {
  .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                 | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR
                 | ST_PERF_SAMPLE_CALLCHAIN | ST_PERF_SAMPLE_PERIOD
                 | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER
                 | ST_PERF_SAMPLE_DATA_SRC | ST_PERF_SAMPLE_CPU,
  .read_format = ST_PERF_FORMAT_ID,
  .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2
           | ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER,
  .regs_user = MASK_X86_64,
  .stack_user = 64,
};
static const uint64_t dwarf_ids[] = { 26, 27 };

static uint64_t regs17[17];

static Trailer
trailer (uint64_t time, uint32_t cpu)
{
  Trailer t = { PID, PID, time, 26, 0, cpu };
  return t;
}

/* Every record kind of a one-attr --call-graph=dwarf recording.  */
static GByteArray *
dwarf_records (void)
{
  GByteArray *d = g_byte_array_new ();
  Trailer t = trailer (1000, 1);
  guint at;
  uint64_t kchain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                        0xffffffff81000020ull };
  uint64_t mixed[] = { ST_CONTEXT_KERNEL, 0xffffffff81000010ull,
                       ST_CONTEXT_USER, 0x401000 };
  SampleSpec s = { .pid = PID, .tid = PID + 1, .time = 2000, .cpu = 1,
                   .ip = 0x401234, .abi = ST_REGS_ABI_64, .regs = regs17,
                   .stack_size = 64, .dyn_size = 48 };

  for (int i = 0; i < 17; i++)
    regs17[i] = 0x1000 + i;

  put_comm (d, &dwarf_attr, &t, TRUE, "prog");                    /* 0 */
  t.time = 1100;
  put_mmap (d, &dwarf_attr, &t, 0, 0xffffffff81000000ull, 0x1000000, 0,
            "[kernel.kallsyms]_text");                            /* 1 */
  put_mmap2 (d, &dwarf_attr, &t, 0x400000, 0x2000, 0x1000, 99, -1, 0,
             5 /* r-x */, "/usr/bin/prog");                       /* 2 */
  put_mmap2 (d, &dwarf_attr, &t, 0x7f0000000000ull, 0x10000, 0, 0, 0xab,
             16, 5, "/usr/lib/libfoo.so");                        /* 3 */
  put_sample (d, &dwarf_attr, &s);                               /* 4 */
  s.chain = kchain;
  s.n_chain = 3;
  s.dyn_size = 64;       /* the whole copy */
  put_sample (d, &dwarf_attr, &s);                               /* 5 */
  s.chain = mixed;
  s.n_chain = 4;
  s.dyn_size = 8;
  put_sample (d, &dwarf_attr, &s);                               /* 6 */
  s.abi = 0;             /* no registers: a plain sample */
  put_sample (d, &dwarf_attr, &s);                               /* 7 */
  s.abi = ST_REGS_ABI_64;
  s.stack_size = 0;      /* no stack, no dyn_size */
  put_sample (d, &dwarf_attr, &s);                               /* 8 */
  s.stack_size = 64;
  s.dyn_size = 0;        /* empty copy */
  put_sample (d, &dwarf_attr, &s);                               /* 9 */
  t.time = 3000;
  put_fork_exit (d, &dwarf_attr, &t, ST_PERF_RECORD_FORK, PID + 10, PID,
                 PID + 11, PID + 1, 3000);                        /* 10 */
  put_lost (d, &dwarf_attr, &t, 17);                              /* 11 */
  at = begin_record (d, ST_PERF_RECORD_THROTTLE, 0);              /* 12 */
  put_u64 (d, 3000);
  put_u64 (d, 26);
  put_u64 (d, 0);
  put_trailer (d, &dwarf_attr, &t);
  end_record (d, at);
  put_other (d, ST_PERF_RECORD_FINISHED_ROUND, 0);                /* 13 */
  put_other (d, 200, 16);                                         /* 14 */
  put_fork_exit (d, &dwarf_attr, &t, ST_PERF_RECORD_EXIT, PID + 10, PID,
                 PID + 11, PID + 1, 3500);                        /* 15 */
  return d;
}

static GByteArray *
build_id_feature (void)
{
  GByteArray *f = g_byte_array_new ();

  put_build_id_entry (f, 0x11, -1, "/usr/bin/prog");
  put_build_id_entry (f, 0x22, 16, "[kernel.kallsyms]_text");
  put_build_id_entry (f, 0x33, -1, "/usr/lib/libfoo.so");
  return f;
}

/* PROG_BID: the byte of /usr/bin/prog's build-id (0: none known);
   KERNEL_BID: whether the kernel map's build-id is known.  */
static void
check_dwarf_events (const Result *res, int prog_bid, gboolean kernel_bid,
                    guint first)
{
  const Ev *e;

  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, first + 16);
  g_assert_cmpuint (res->n_attrs, ==, 1);

  e = ev_at (res, first + 0);
  g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
  g_assert_cmpstr (e->str, ==, "prog");
  g_assert_true (e->exec);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->time, ==, 1000);
  g_assert_cmpint (e->cpu, ==, 1);

  e = ev_at (res, first + 1);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "[kernel.kallsyms]_text");
  g_assert_false (e->exec_known);
  g_assert_cmpuint (e->end - e->start, ==, 0x1000000);
  g_assert_cmpuint (e->build_id_len, ==, kernel_bid ? 16 : 0);
  if (kernel_bid)
    g_assert_cmpuint (e->build_id[15], ==, 0x22);
  g_assert_cmpint (e->time, ==, 1100);

  e = ev_at (res, first + 2);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpstr (e->str, ==, "/usr/bin/prog");
  g_assert_true (e->exec_known);
  g_assert_cmpuint (e->prot, ==, 5);
  g_assert_cmpuint (e->start, ==, 0x400000);
  g_assert_cmpuint (e->end, ==, 0x402000);
  g_assert_cmpuint (e->pgoff, ==, 0x1000);
  g_assert_cmpuint (e->inode, ==, 99);
  g_assert_cmpuint (e->build_id_len, ==, prog_bid ? 20 : 0);
  if (prog_bid)
    g_assert_cmpuint (e->build_id[19], ==, prog_bid);

  /* The record's own build-id wins over the feature's.  */
  e = ev_at (res, first + 3);
  g_assert_cmpint (e->kind, ==, ST_EVENT_MAP);
  g_assert_cmpuint (e->build_id_len, ==, 16);
  g_assert_cmpuint (e->build_id[0], ==, 0xab);
  g_assert_cmpuint (e->inode, ==, 0);

  e = ev_at (res, first + 4);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->tid, ==, PID + 1);
  g_assert_cmpint (e->time, ==, 2000);
  g_assert_cmpint (e->cpu, ==, 1);
  g_assert_cmpuint (e->n_ips, ==, 0);
  g_assert_cmpuint (e->n_regs, ==, 17);
  g_assert_cmpuint (e->regs_mask, ==, MASK_X86_64);
  g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_64);
  g_assert_cmpuint (e->u64s[0], ==, 0x1000);
  g_assert_cmpuint (e->u64s[16], ==, 0x1010);
  g_assert_cmpuint (e->stack_size, ==, 48);
  g_assert_cmpuint (e->stack_last, ==, 48);

  e = ev_at (res, first + 5);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (e->n_ips, ==, 3);
  g_assert_cmpuint (e->u64s[0], ==, ST_CONTEXT_KERNEL);
  g_assert_cmpuint (e->u64s[2], ==, 0xffffffff81000020ull);
  g_assert_cmpuint (e->u64s[3], ==, 0x1000);
  g_assert_cmpuint (e->stack_size, ==, 64);
  g_assert_cmpuint (e->stack_last, ==, 64);

  /* Only the kernel part of a chain that has a user part.  */
  e = ev_at (res, first + 6);
  g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (e->n_ips, ==, 2);
  g_assert_cmpuint (e->stack_size, ==, 8);

  e = ev_at (res, first + 7);
  g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpuint (e->n_ips, ==, 4);
  g_assert_cmpuint (e->u64s[3], ==, 0x401000);
  g_assert_cmpint (e->tid, ==, PID + 1);
  g_assert_cmpint (ev_at (res, first + 8)->kind, ==, ST_EVENT_SAMPLE);
  g_assert_cmpint (ev_at (res, first + 9)->kind, ==, ST_EVENT_SAMPLE);

  e = ev_at (res, first + 10);
  g_assert_cmpint (e->kind, ==, ST_EVENT_FORK);
  g_assert_cmpint (e->pid, ==, PID + 10);
  g_assert_cmpint (e->tid, ==, PID + 11);
  g_assert_cmpint (e->parent_pid, ==, PID);
  g_assert_cmpint (e->parent_tid, ==, PID + 1);
  g_assert_cmpint (e->time, ==, 3000);

  e = ev_at (res, first + 11);
  g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
  g_assert_cmpuint (e->lost, ==, 17);
  g_assert_cmpint (e->pid, ==, PID);
  g_assert_cmpint (e->time, ==, 3000);

  for (guint i = 12; i <= 14; i++)
    g_assert_cmpint (ev_at (res, first + i)->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev_at (res, first + 12)->raw_type, ==,
                    ST_PERF_RECORD_THROTTLE);
  g_assert_cmpint (ev_at (res, first + 12)->cpu, ==, 1);
  g_assert_cmpuint (ev_at (res, first + 13)->raw_len, ==, 8);
  g_assert_cmpuint (ev_at (res, first + 14)->raw_type, ==, 200);
  g_assert_cmpint (ev_at (res, first + 14)->pid, ==, -1);
  g_assert_cmpint (ev_at (res, first + 14)->cpu, ==, -1);

  e = ev_at (res, first + 15);
  g_assert_cmpint (e->kind, ==, ST_EVENT_EXIT);
  g_assert_cmpint (e->pid, ==, PID + 10);
  g_assert_cmpint (e->tid, ==, PID + 11);
  g_assert_cmpint (e->time, ==, 3500);
}

static void
test_file_mode (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *host = g_byte_array_new ();
  Feature feats[] = { { ST_PERF_FEAT_BUILD_ID, build_id_feature () },
                      { 3, host } };
  GByteArray *file;
  Result *via_file, *via_pipe;

  put_string (host, "myhost");
  file = make_file (&attr, 1, d, feats, 2, 0);
  via_file = read_bytes (file, FALSE);
  via_pipe = read_bytes (file, TRUE);

  g_assert_false (via_file->pipe_mode);
  check_dwarf_events (via_file, 0x11, TRUE, 0);
  check_dwarf_events (via_pipe, 0, FALSE, 0);
  assert_same_events (via_file, via_pipe, FALSE);
  g_assert_cmpuint (ev_at (via_file, 0)->offset, ==,
                    ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16);
  g_assert_cmpuint (via_file->feature_size[ST_PERF_FEAT_BUILD_ID], ==,
                    feats[0].bytes->len);
  g_assert_cmpuint (via_file->feature_size[3], ==, 8);
  g_assert_cmpuint (via_pipe->feature_size[3], ==, 0);

  result_free (via_file);
  result_free (via_pipe);
  g_byte_array_free (file, TRUE);
  g_byte_array_free (feats[0].bytes, TRUE);
  g_byte_array_free (host, TRUE);
  g_byte_array_free (d, TRUE);
}

static void
test_file_layouts (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *file;
  Result *res;

  /* Junk between the attrs and the data is skipped.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_GAP);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);

  /* data.size 0 (perf killed): records until EOF.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_DATA_SIZE_0);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);

  /* An attribute without ids, its empty id array at offset 0.  */
  attr.n_ids = 0;
  file = make_file (&attr, 1, d, NULL, 0, 0);
  set_u64 (file, ST_PERF_FILE_HEADER_SIZE + ATTR_BYTES, 0);
  res = read_bytes (file, TRUE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  g_byte_array_free (file, TRUE);
  attr.n_ids = 2;

  /* Attributes behind the data: fine on a file, an error on a pipe.  */
  file = make_file (&attr, 1, d, NULL, 0, LAYOUT_ATTRS_BEHIND);
  res = read_bytes (file, FALSE);
  check_dwarf_events (res, 0, FALSE, 0);
  result_free (res);
  res = read_bytes (file, TRUE);
  assert_error (res, ST_ERROR_UNSUPPORTED, "offset ", "seekable");
  result_free (res);
  g_byte_array_free (file, TRUE);

  g_byte_array_free (d, TRUE);
}

static void
test_pipe_mode (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *body = g_byte_array_new ();
  GByteArray *stream;
  Result *a, *b;
  guint tracing;

  /* Synthesized records first, like perf record -o -.  */
  put_other (body, ST_PERF_RECORD_HEADER_FEATURE, 20);   /* odd size */
  tracing = body->len;
  begin_record (body, ST_PERF_RECORD_HEADER_TRACING_DATA, 0);
  put_u32 (body, 13);   /* payload after the record, padded to 16 */
  put_u32 (body, 0);
  end_record (body, tracing);
  for (int i = 0; i < 16; i++)
    put (body, "T", 1);
  put_build_id_entry (body, 0x44, -1, "/usr/bin/prog");
  put_other (body, ST_PERF_RECORD_FINISHED_INIT, 0);
  put (body, d->data, d->len);
  stream = make_pipe (&attr, 1, body);

  a = read_bytes (stream, TRUE);
  b = read_bytes (stream, FALSE);
  g_assert_true (a->pipe_mode);
  /* HEADER_ATTR, FEATURE, TRACING_DATA, BUILD_ID, FINISHED_INIT.  */
  check_dwarf_events (a, 0x44, FALSE, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (ev_at (a, i)->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev_at (a, 0)->raw_type, ==, ST_PERF_RECORD_HEADER_ATTR);
  g_assert_cmpuint (ev_at (a, 0)->offset, ==, 16);
  g_assert_cmpuint (ev_at (a, 1)->raw_len, ==, 28);
  g_assert_cmpuint (ev_at (a, 2)->raw_len, ==, 16 + 16);
  assert_same_events (a, b, TRUE);

  result_free (a);
  result_free (b);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (body, TRUE);
  g_byte_array_free (d, TRUE);
}

/* Two attrs told apart by IDENTIFIER (samples first, others last).  */
static void
test_two_attrs (void)
{
  AttrSpec plain = {
    .sample_type = ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP
                   | ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME
                   | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_CALLCHAIN,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
  };
  AttrSpec dwarf = plain;
  uint64_t ids_a[] = { 1, 2 }, ids_b[] = { 3 };
  AttrEntry attrs[] = { { &plain, ids_a, 2 }, { &dwarf, ids_b, 1 } };
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000000ull };
  uint64_t regs[3] = { 7, 8, 9 };
  SampleSpec s = { .id = 2, .pid = 5, .tid = 6, .time = 10, .cpu = 3,
                   .chain = chain, .n_chain = 2, .abi = ST_REGS_ABI_64,
                   .regs = regs, .stack_size = 16, .dyn_size = 16 };
  Trailer t = { 5, 6, 20, 3, 0, 1 };
  GByteArray *d = g_byte_array_new ();

  dwarf.sample_type |= ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER;
  dwarf.regs_user = 0x1c0;   /* BP SP IP */
  put_sample (d, &plain, &s);
  s.id = 3;
  put_sample (d, &dwarf, &s);
  s.id = 99;                 /* unknown: passed through */
  put_sample (d, &plain, &s);
  put_comm (d, &dwarf, &t, FALSE, "two");

  for (int mode = 0; mode < 2; mode++)
    {
      GByteArray *bytes = mode ? make_pipe (attrs, 2, d)
                               : make_file (attrs, 2, d, NULL, 0, 0);
      Result *res = read_bytes (bytes, TRUE);
      guint k = mode ? 2 : 0;    /* the HEADER_ATTR records */
      const Ev *e;

      g_assert_no_error (res->error);
      g_assert_cmpuint (res->n_attrs, ==, 2);
      g_assert_cmpuint (res->evs->len, ==, k + 4);
      e = ev_at (res, k);
      g_assert_cmpint (e->kind, ==, ST_EVENT_SAMPLE);
      g_assert_cmpuint (e->n_ips, ==, 2);
      g_assert_cmpint (e->cpu, ==, 3);
      e = ev_at (res, k + 1);
      g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
      g_assert_cmpuint (e->n_regs, ==, 3);
      g_assert_cmpuint (e->u64s[2 + 2], ==, 9);
      g_assert_cmpuint (e->regs_mask, ==, 0x1c0);
      g_assert_cmpuint (e->stack_size, ==, 16);
      g_assert_cmpint (ev_at (res, k + 2)->kind, ==, ST_EVENT_OTHER);
      e = ev_at (res, k + 3);
      g_assert_cmpint (e->kind, ==, ST_EVENT_PROCESS);
      g_assert_false (e->exec);
      g_assert_cmpint (e->time, ==, 20);
      g_assert_cmpint (e->cpu, ==, 1);
      result_free (res);
      g_byte_array_free (bytes, TRUE);
    }
  g_byte_array_free (d, TRUE);
}

/* ID (not IDENTIFIER), READ group values, RAW, BRANCH_STACK with hw_idx
   before the registers and the stack.  */
static void
test_sample_fields (void)
{
  AttrSpec a = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_ADDR
                   | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_STREAM_ID
                   | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_PERIOD
                   | ST_PERF_SAMPLE_READ | ST_PERF_SAMPLE_CALLCHAIN
                   | ST_PERF_SAMPLE_RAW | ST_PERF_SAMPLE_BRANCH_STACK
                   | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER
                   | ST_PERF_SAMPLE_DATA_SRC,
    .read_format = ST_PERF_FORMAT_GROUP | ST_PERF_FORMAT_ID
                   | ST_PERF_FORMAT_TOTAL_TIME_ENABLED
                   | ST_PERF_FORMAT_TOTAL_TIME_RUNNING
                   | ST_PERF_FORMAT_LOST,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL,
    .branch_sample_type = ST_PERF_BRANCH_HW_INDEX,
    .regs_user = 0x3,
  };
  AttrSpec b = a;
  uint64_t ids_a[] = { 10 }, ids_b[] = { 11 };
  AttrEntry attrs[] = { { &a, ids_a, 1 }, { &b, ids_b, 1 } };
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81234567ull };
  uint64_t regs[2] = { 0xaa, 0xbb };
  SampleSpec s = { .id = 11, .pid = 1, .tid = 2, .time = 3, .cpu = 0,
                   .n_read = 3, .chain = chain, .n_chain = 2,
                   .raw_size = 12, .n_branches = 2, .abi = ST_REGS_ABI_32,
                   .regs = regs, .stack_size = 24, .dyn_size = 20 };
  GByteArray *d = g_byte_array_new ();
  Trailer t = { 1, 2, 50, 11, 0, 1 };

  put_sample (d, &a, &s);
  s.id = 10;
  s.n_read = 0;
  s.n_branches = 0;
  s.raw_size = 4;
  put_sample (d, &a, &s);
  put_lost (d, &a, &t, 3);

  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      GByteArray *bytes = make_file (attrs, 2, d, NULL, 0, 0);
      Result *res = read_bytes (bytes, pipe_input);
      const Ev *e;

      g_assert_no_error (res->error);
      g_assert_cmpuint (res->evs->len, ==, 3);
      for (guint i = 0; i < 2; i++)
        {
          e = ev_at (res, i);
          g_assert_cmpint (e->kind, ==, ST_EVENT_STACK_USER);
          g_assert_cmpuint (e->n_ips, ==, 2);
          g_assert_cmpuint (e->u64s[1], ==, 0xffffffff81234567ull);
          g_assert_cmpuint (e->n_regs, ==, 2);
          g_assert_cmpuint (e->u64s[3], ==, 0xbb);
          g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_32);
          g_assert_cmpuint (e->stack_size, ==, 20);
          g_assert_cmpuint (e->stack_last, ==, 20);
        }
      e = ev_at (res, 2);
      g_assert_cmpint (e->kind, ==, ST_EVENT_LOST);
      g_assert_cmpuint (e->lost, ==, 3);
      g_assert_cmpint (e->time, ==, 50);
      g_assert_cmpint (e->cpu, ==, 1);
      result_free (res);
      g_byte_array_free (bytes, TRUE);
    }
  g_byte_array_free (d, TRUE);
}

/* A record at an odd offset is still decoded with aligned arrays.  */
static void
test_misaligned (void)
{
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *d = g_byte_array_new ();
  uint64_t chain[] = { ST_CONTEXT_KERNEL, 0xffffffff81000000ull };
  SampleSpec s = { .pid = 1, .tid = 1, .chain = chain, .n_chain = 2,
                   .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 8,
                   .dyn_size = 8 };
  GByteArray *stream;
  Result *res;

  put_other (d, ST_PERF_RECORD_HEADER_EVENT_TYPE, 3);
  put_sample (d, &dwarf_attr, &s);
  stream = make_pipe (&attr, 1, d);
  res = read_bytes (stream, TRUE);
  g_assert_no_error (res->error);
  g_assert_cmpuint (res->evs->len, ==, 3);
  g_assert_cmpuint (ev_at (res, 2)->offset % 8, ==, 3);
  g_assert_cmpint (ev_at (res, 2)->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpuint (ev_at (res, 2)->u64s[1], ==, 0xffffffff81000000ull);
  result_free (res);
  g_byte_array_free (stream, TRUE);
  g_byte_array_free (d, TRUE);
}

/* --- bad input ----------------------------------------------------------- */

static Result *
read_pipe_stream (const GByteArray *d, gboolean pipe_input)
{
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *stream = make_pipe (&attr, 1, d);
  Result *res = read_bytes (stream, pipe_input);

  g_byte_array_free (stream, TRUE);
  return res;
}

/* Offset of data byte 0 in make_pipe with one attr.  */
#define PIPE_DATA (16 + 8 + ATTR_BYTES + 16)

static void
test_bad_records (void)
{
  GByteArray *d = dwarf_records ();
  GByteArray *bad;
  Result *res;
  guint last, at;
  SampleSpec s = { .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
                   .dyn_size = 64 };
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  char *want;

  /* Truncated last record on a pipe stream.  */
  bad = g_byte_array_new ();
  put (bad, d->data, d->len);
  last = bad->len;
  put_sample (bad, &dwarf_attr, &s);
  g_byte_array_set_size (bad, bad->len - 9);
  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      res = read_pipe_stream (bad, pipe_input);
      want = g_strdup_printf ("offset %u: input ended inside a perf record",
                              PIPE_DATA + last);
      assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
      g_assert_cmpuint (res->evs->len, ==, 1 + 16);
      g_free (want);
      result_free (res);
    }

  /* Truncated record header.  */
  g_byte_array_set_size (bad, last + 5);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: input ended inside a perf record "
                          "header", PIPE_DATA + last);
  assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
  g_free (want);
  result_free (res);

  /* Record size < 8.  */
  g_byte_array_set_size (bad, last);
  at = begin_record (bad, 1234, 0);
  put_u64 (bad, 0);
  memset (bad->data + at + 6, 0, 2);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 1234, size 0)",
                          PIPE_DATA + at);
  assert_error (res, ST_ERROR_FORMAT, want, "smaller than its 8-byte");
  g_free (want);
  result_free (res);

  /* A sample whose STACK_USER size runs past the record.  */
  g_byte_array_set_size (bad, last);
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + bad->len - 8 - 8 - 64 - 8, &(uint64_t) { 81 }, 8);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 9,",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, "STACK_USER field runs past");
  result_free (res);

  /* A callchain longer than the record.  */
  g_byte_array_set_size (bad, last);
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + last + 8 + 48, &(uint64_t) { 1ull << 61 }, 8);
  res = read_pipe_stream (bad, TRUE);
  assert_error (res, ST_ERROR_FORMAT, want, "CALLCHAIN field runs past");
  g_free (want);
  result_free (res);

  /* A MMAP2 without room for its trailer, a COMM without its NUL.  */
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_MMAP2, 64);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 10, size 72): "
                          "too short", PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, NULL);
  g_free (want);
  result_free (res);
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_COMM, 8 + 8 + 24);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 3, size 48)",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_FORMAT, want, "unterminated comm");
  g_free (want);
  result_free (res);

  /* Compressed data.  */
  g_byte_array_set_size (bad, last);
  put_other (bad, ST_PERF_RECORD_COMPRESSED, 32);
  res = read_pipe_stream (bad, TRUE);
  want = g_strdup_printf ("offset %u: bad perf record (type 81",
                          PIPE_DATA + last);
  assert_error (res, ST_ERROR_UNSUPPORTED, want, "compressed");
  g_free (want);
  result_free (res);

  /* A sample before any attribute.  */
  {
    GByteArray *stream;

    g_byte_array_set_size (bad, 0);
    put_sample (bad, &dwarf_attr, &s);
    stream = make_pipe (NULL, 0, bad);

    res = read_bytes (stream, TRUE);
    assert_error (res, ST_ERROR_FORMAT, "offset 16:", "before any event");
    result_free (res);
    g_byte_array_free (stream, TRUE);
  }

  /* File mode: a record running past the end of the data section, and a
     data section longer than the file.  */
  g_byte_array_set_size (bad, 0);
  put (bad, d->data, d->len);
  put_sample (bad, &dwarf_attr, &s);
  {
    GByteArray *file = make_file (&attr, 1, bad, NULL, 0, 0);
    uint64_t data_size = bad->len - 8;
    uint64_t data_off = ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16;

    set_u64 (file, 48, data_size);
    for (int pipe_input = 0; pipe_input < 2; pipe_input++)
      {
        res = read_bytes (file, pipe_input);
        want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": bad perf "
                                "record (type 9,", data_off + last);
        assert_error (res, ST_ERROR_FORMAT, want, "past the end of the data");
        g_free (want);
        result_free (res);
      }
    set_u64 (file, 48, bad->len + 64);
    res = read_bytes (file, FALSE);
    want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": input ended inside "
                            "the perf.data data section",
                            data_off + bad->len);
    assert_error (res, ST_ERROR_TRUNCATED, want, NULL);
    g_free (want);
    result_free (res);
    g_byte_array_free (file, TRUE);
  }

  g_byte_array_free (bad, TRUE);
  g_byte_array_free (d, TRUE);
}

/* BAD holds the dwarf records then one damaged record at LAST (and the
   good suffix when SUFFIX): with a damage handler, it is reported once
   (ACTION, naming its offset) and every good record still comes out.  */
static void
expect_recovery (GByteArray *bad, guint last, StDamageAction action,
                 gboolean suffix, const char *part)
{
  Trailer t = trailer (5000, 1);

  if (suffix)
    {
      put_lost (bad, &dwarf_attr, &t, 5);
      put_fork_exit (bad, &dwarf_attr, &t, ST_PERF_RECORD_EXIT, PID, PID,
                     PID, PID, 5000);
    }
  for (int pipe_input = 0; pipe_input < 2; pipe_input++)
    {
      DamageLog log = { 0 };
      Result *res;

      recovery = &log;
      res = read_pipe_stream (bad, pipe_input);
      recovery = NULL;
      g_assert_no_error (res->error);
      g_test_message ("recovered: %s", log.message);
      if (log.n != 1 || log.action != action
          || log.offset != PIPE_DATA + last
          || strstr (log.message, part) == NULL)
        g_error ("%u damage report(s), first: action %d offset %"
                 G_GUINT64_FORMAT " (want %d at %u, '%s'): %s", log.n,
                 log.action, log.offset, action, PIPE_DATA + last, part,
                 log.message);
      g_free (log.message);
      guint n = 1 + 16 + (action == ST_DAMAGE_PASSED) + (suffix ? 2 : 0);
      g_assert_cmpuint (res->evs->len, ==, n);
      if (action == ST_DAMAGE_PASSED)
        {
          g_assert_cmpint (ev_at (res, 17)->kind, ==, ST_EVENT_OTHER);
          g_assert_cmpuint (ev_at (res, 17)->offset, ==, PIPE_DATA + last);
        }
      if (suffix)
        {
          g_assert_cmpint (ev_at (res, n - 2)->kind, ==, ST_EVENT_LOST);
          g_assert_cmpuint (ev_at (res, n - 2)->lost, ==, 5);
          g_assert_cmpint (ev_at (res, n - 1)->kind, ==, ST_EVENT_EXIT);
        }
      result_free (res);
    }
  g_byte_array_set_size (bad, last);
}

static void
test_recovery (void)
{
  GByteArray *d = dwarf_records ();
  GByteArray *bad = g_byte_array_new ();
  SampleSpec s = { .abi = ST_REGS_ABI_64, .regs = regs17, .stack_size = 64,
                   .dyn_size = 64 };
  uint8_t junk[40];
  guint last, at;

  put (bad, d->data, d->len);
  last = bad->len;

  /* Framing: size < 8, garbage, an odd size of an unknown type.  */
  at = begin_record (bad, 1234, 0);
  put_u64 (bad, 0);
  memset (bad->data + at + 6, 0, 2);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "skipped 16 bytes");
  memset (junk, 0xff, sizeof junk);
  put (bad, junk, sizeof junk);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "not a perf record");
  put_other (bad, 3000, 5);     /* a damaged size: 16 bytes really follow */
  put (bad, "pad", 3);
  expect_recovery (bad, last, ST_DAMAGE_SKIPPED, TRUE, "not a multiple of 8");

  /* Content: the record goes on unchanged, not interpreted.  */
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + bad->len - 8 - 8 - 64 - 8, &(uint64_t) { 81 }, 8);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "STACK_USER field");
  put_sample (bad, &dwarf_attr, &s);
  memcpy (bad->data + last + 8 + 48, &(uint64_t) { 1ull << 61 }, 8);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "CALLCHAIN field");
  put_other (bad, ST_PERF_RECORD_MMAP2, 64);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "too short");
  put_other (bad, ST_PERF_RECORD_COMM, 8 + 8 + 24);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "unterminated comm");
  s.dyn_size = 100;
  put_sample (bad, &dwarf_attr, &s);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE,
                   "dyn_size 100 exceeds the copied size 64");
  s.dyn_size = 64;
  s.abi = 7;
  put_sample (bad, &dwarf_attr, &s);
  expect_recovery (bad, last, ST_DAMAGE_PASSED, TRUE, "register ABI 7");
  s.abi = ST_REGS_ABI_64;

  /* The input ends inside a record.  */
  put_sample (bad, &dwarf_attr, &s);
  g_byte_array_set_size (bad, bad->len - 9);
  expect_recovery (bad, last, ST_DAMAGE_TRUNCATED, FALSE, "input ended");

  /* File mode: the last record runs past the end of the data section,
     which ends 8 bytes early: skipped to the end, no more records.  */
  put_sample (bad, &dwarf_attr, &s);
  {
    AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
    GByteArray *file = make_file (&attr, 1, bad, NULL, 0, 0);
    uint64_t data_off = ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES + 16;

    set_u64 (file, 48, bad->len - 8);
    for (int pipe_input = 0; pipe_input < 2; pipe_input++)
      {
        DamageLog log = { 0 };
        Result *res;
        char *want = g_strdup_printf ("offset %" G_GUINT64_FORMAT ": bad perf "
                                      "record (type 9, size %u): runs past "
                                      "the end of the data section",
                                      data_off + last, bad->len - last);

        recovery = &log;
        res = read_bytes (file, pipe_input);
        recovery = NULL;
        g_assert_no_error (res->error);
        g_assert_cmpuint (res->evs->len, ==, 16);
        g_assert_cmpuint (log.n, ==, 1);
        g_assert_cmpint (log.action, ==, ST_DAMAGE_SKIPPED);
        if (!g_str_has_prefix (log.message, want)
            || strstr (log.message, "to the end at") == NULL)
          g_error ("unexpected: %s", log.message);
        g_free (want);
        g_free (log.message);
        result_free (res);
      }
    g_byte_array_free (file, TRUE);
  }

  g_byte_array_free (bad, TRUE);
  g_byte_array_free (d, TRUE);
}

static void
test_bad_headers (void)
{
  GByteArray *d = dwarf_records ();
  AttrEntry attr = { &dwarf_attr, dwarf_ids, 2 };
  GByteArray *file = make_file (&attr, 1, d, NULL, 0, 0);
  GByteArray *copy = g_byte_array_new ();
  Result *res;

  put (copy, file->data, 12);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_TRUNCATED, "offset 0:", "header");
  result_free (res);

  g_byte_array_set_size (copy, 0);
  put (copy, file->data, file->len);
  memcpy (copy->data, "2ELIFREP", 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_UNSUPPORTED, "offset 0:", "byte-swapped");
  result_free (res);

  memcpy (copy->data, "PERFFILE", 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0:", "magic");
  result_free (res);

  memcpy (copy->data, ST_PERF_MAGIC, 8);
  set_u64 (copy, 8, 40);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 8:", "header size 40");
  result_free (res);

  /* attr_size that does not divide the attrs section.  */
  set_u64 (copy, 8, ST_PERF_FILE_HEADER_SIZE);
  set_u64 (copy, 16, 100);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0: bad perf.data header",
                "attr_size 100");
  result_free (res);

  /* An id array overlapping the header.  */
  set_u64 (copy, 16, ATTR_BYTES + 16);
  set_u64 (copy, ST_PERF_FILE_HEADER_SIZE + 16 + ATTR_BYTES, 8);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_FORMAT, "offset 0: bad perf.data header",
                "overlaps");
  result_free (res);

  /* Input ending inside the attributes.  */
  g_byte_array_set_size (copy, 0);
  put (copy, file->data, ST_PERF_FILE_HEADER_SIZE + 16 + 40);
  res = read_bytes (copy, TRUE);
  assert_error (res, ST_ERROR_TRUNCATED, "offset 160:", "attribute section");
  result_free (res);

  /* A bad BUILD_ID feature, on a file.  */
  {
    GByteArray *f = build_id_feature ();
    Feature feat = { ST_PERF_FEAT_BUILD_ID, f };
    GByteArray *with = NULL;

    f->data[6] = 200;     /* first entry runs past the section */
    f->data[7] = 0;
    with = make_file (&attr, 1, d, &feat, 1, 0);
    res = read_bytes (with, FALSE);
    assert_error (res, ST_ERROR_FORMAT, "offset ", "BUILD_ID feature");
    result_free (res);
    /* Through a pipe the features are never looked at.  */
    res = read_bytes (with, TRUE);
    check_dwarf_events (res, 0, FALSE, 0);
    result_free (res);
    g_byte_array_free (with, TRUE);
    g_byte_array_free (f, TRUE);
  }

  g_byte_array_free (copy, TRUE);
  g_byte_array_free (file, TRUE);
  g_byte_array_free (d, TRUE);
}

/* --- a real recording ---------------------------------------------------- */

static GByteArray *
slurp (const char *path)
{
  char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return NULL;
  return g_byte_array_new_take ((guint8 *) contents, len);
}

static gboolean
run_perf (const char *cmd)
{
  int status = 0;

  if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL))
    return FALSE;
  return g_spawn_check_wait_status (status, NULL);
}

/* Checks a real dwarf recording of /bin/sh running a loop.  */
static void
check_real (const Result *res, const char *shell)
{
  guint stacks = 0, maps = 0, comms = 0, with_bid = 0;

  g_assert_no_error (res->error);
  for (guint i = 0; i < res->evs->len; i++)
    {
      const Ev *e = ev_at (res, i);

      if (e->kind == ST_EVENT_STACK_USER)
        {
          /* perf 6.1 asks for 0xff0fff: 20 registers.  */
          g_assert_cmpuint (e->n_regs, ==,
                            __builtin_popcountll (e->regs_mask));
          g_assert_cmpuint (e->n_regs, >=, 17);
          g_assert_cmpuint (e->abi, ==, ST_REGS_ABI_64);
          g_assert_cmpuint (e->stack_size, >, 0);
          g_assert_cmpuint (e->stack_size, <=, 8192);
          stacks++;
        }
      if (e->kind == ST_EVENT_MAP && strcmp (e->str, shell) == 0)
        {
          maps++;
          if (e->build_id_len == 20)
            with_bid++;
        }
      if (e->kind == ST_EVENT_PROCESS)
        comms++;
    }
  g_test_message ("%u stack samples, %u maps of %s (%u with a build-id), "
                  "%u comms", stacks, maps, shell, with_bid, comms);
  g_assert_cmpuint (stacks, >, 0);
  g_assert_cmpuint (maps, >, 0);
  g_assert_cmpuint (comms, >, 0);
}

static void
test_real_recording (void)
{
  char *dir = g_dir_make_tmp ("test-perf-reader-XXXXXX", NULL);
  char *file = g_build_filename (dir, "file.data", NULL);
  char *piped = g_build_filename (dir, "pipe.data", NULL);
  char *shell = realpath ("/bin/sh", NULL);
  const char *loop = "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done";
  char *cmd;
  GByteArray *fbytes, *pbytes;
  Result *ff, *fp, *pp;
  guint regs = 0;

  g_assert_nonnull (dir);
  cmd = g_strdup_printf ("perf record -q -e cpu-clock --call-graph=dwarf "
                         "-o %s -- /bin/sh -c '%s'", file, loop);
  if (!run_perf (cmd))
    {
      g_test_skip ("perf record does not work here");
      goto out;
    }
  g_free (cmd);
  cmd = g_strdup_printf ("sh -c \"perf record -q -e cpu-clock "
                         "--call-graph=dwarf -o - -- /bin/sh -c '%s' > %s\"",
                         loop, piped);
  if (!run_perf (cmd))
    {
      g_test_skip ("perf record -o - does not work here");
      goto out;
    }
  fbytes = slurp (file);
  pbytes = slurp (piped);
  g_assert_nonnull (fbytes);
  g_assert_nonnull (pbytes);

  ff = read_bytes (fbytes, FALSE);
  fp = read_bytes (fbytes, TRUE);
  pp = read_bytes (pbytes, TRUE);
  check_real (ff, shell);
  check_real (fp, shell);
  check_real (pp, shell);
  g_assert_false (ff->pipe_mode);
  g_assert_true (pp->pipe_mode);
  g_assert_cmpuint (pp->n_attrs, ==, 1);
  /* Through the file, the build-id feature is there.  */
  g_assert_cmpuint (ff->feature_size[ST_PERF_FEAT_BUILD_ID], >, 0);
  g_assert_cmpuint (fp->feature_size[ST_PERF_FEAT_BUILD_ID], ==, 0);
  assert_same_events (ff, fp, FALSE);
  for (guint i = 0; i < ff->evs->len; i++)
    if (ev_at (ff, i)->kind == ST_EVENT_STACK_USER)
      regs = ev_at (ff, i)->n_regs;
  g_test_message ("%u registers per stack sample", regs);

  result_free (ff);
  result_free (fp);
  result_free (pp);
  g_byte_array_free (fbytes, TRUE);
  g_byte_array_free (pbytes, TRUE);
out:
  g_free (cmd);
  unlink (file);
  unlink (piped);
  rmdir (dir);
  g_free (file);
  g_free (piped);
  g_free (dir);
  free (shell);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-reader/file-mode", test_file_mode);
  g_test_add_func ("/perf-reader/file-layouts", test_file_layouts);
  g_test_add_func ("/perf-reader/pipe-mode", test_pipe_mode);
  g_test_add_func ("/perf-reader/two-attrs", test_two_attrs);
  g_test_add_func ("/perf-reader/sample-fields", test_sample_fields);
  g_test_add_func ("/perf-reader/misaligned", test_misaligned);
  g_test_add_func ("/perf-reader/bad-records", test_bad_records);
  g_test_add_func ("/perf-reader/bad-headers", test_bad_headers);
  g_test_add_func ("/perf-reader/recovery", test_recovery);
  g_test_add_func ("/perf-reader/real-recording", test_real_recording);
  return g_test_run ();
}
