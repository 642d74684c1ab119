/* perf.data reader, the decoding part: a record into an StEvent
   (samples, the kernel's records, HEADER_ATTR and HEADER_BUILD_ID, what
   other records' sample_id trailers say), and the attribute a record
   belongs to.  */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "util/domain.h"
#include "format/perf-reader-private.h"
#include "format/perf-sample.h"
#include "util/popcount.h"

/* Sample fields that make up the sample_id trailer of other records.  */
#define TRAILER_BITS (ST_PERF_SAMPLE_TID | ST_PERF_SAMPLE_TIME        \
                      | ST_PERF_SAMPLE_ID | ST_PERF_SAMPLE_STREAM_ID  \
                      | ST_PERF_SAMPLE_CPU | ST_PERF_SAMPLE_IDENTIFIER)

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

/* Entries of ID_INDEX records kept at most (one per event and CPU).  */
#define ID_INDEX_MAX 65536

/* PERF_RECORD_ID_INDEX: the CPU of each sample id, for samples that do
   not carry PERF_SAMPLE_CPU (Sysprof's live unwinder's rings: the CPU
   is which ring the record came from).  */
static int
decode_id_index (StPerfReader *r, const uint8_t *p, size_t size,
                 uint64_t off, GError **error)
{
  uint64_t nr;

  if (size < sizeof (StPerfEventHeader) + 8)
    return bad_record (error, ST_ERROR_FORMAT, off, ST_PERF_RECORD_ID_INDEX,
                       size, "too short to hold its entry count");
  nr = st_perf_get_u64 (p + sizeof (StPerfEventHeader));
  if (nr > (size - sizeof (StPerfEventHeader) - 8)
           / sizeof (StPerfIdIndexEntry))
    return bad_record (error, ST_ERROR_FORMAT, off, ST_PERF_RECORD_ID_INDEX,
                       size, "%" G_GUINT64_FORMAT " entries do not fit", nr);
  if (r->cpu_by_id == NULL)
    r->cpu_by_id = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                          g_free, NULL);
  for (uint64_t i = 0; i < nr; i++)
    {
      const uint8_t *e = p + sizeof (StPerfEventHeader) + 8
                         + i * sizeof (StPerfIdIndexEntry);
      uint64_t cpu = st_perf_get_u64 (e + offsetof (StPerfIdIndexEntry, cpu));

      if (g_hash_table_size (r->cpu_by_id) >= ID_INDEX_MAX)
        break;
      if (cpu >= (uint64_t) G_MAXINT32)
        continue;   /* (u64)-1: a per-thread event, no CPU */
      uint64_t *id = g_new (uint64_t, 1);
      *id = st_perf_get_u64 (e + offsetof (StPerfIdIndexEntry, id));
      g_hash_table_insert (r->cpu_by_id, id, GSIZE_TO_POINTER (cpu + 1));
    }
  return 1;
}

/* The CPU of sample REC by its id and the ID_INDEX, or -1.  */
static int32_t
cpu_by_index (const StPerfReader *r, const StPerfAttr *a, const uint8_t *rec,
              size_t size)
{
  uint64_t st = a->sample_type, id;
  size_t pos;

  if (r->cpu_by_id == NULL)
    return -1;
  if (st & ST_PERF_SAMPLE_IDENTIFIER)
    pos = 8;
  else if (st & ST_PERF_SAMPLE_ID)
    pos = 8 + 8 * st_popcount64 (st & (ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                                       | ST_PERF_SAMPLE_TIME
                                       | ST_PERF_SAMPLE_ADDR));
  else
    return -1;
  if (pos + 8 > size)
    return -1;
  id = st_perf_get_u64 (rec + pos);
  gpointer cpu = g_hash_table_lookup (r->cpu_by_id, &id);
  return cpu != NULL ? (int32_t) (GPOINTER_TO_SIZE (cpu) - 1) : -1;
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
  /* The next record comes next: its header, and where a record as long
     as this one (samples of one event nearly are) ends with its stack's
     dyn_size, whose load was most of the parsing's time (first touch of
     the bytes after an 8 KiB copy).  Prefetches never fault.  */
  __builtin_prefetch (rec + size);
  __builtin_prefetch (rec + 2 * size - 8);
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
  else
    ev->cpu = cpu_by_index (r, a, rec, size);

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
                /* Only a build-id as the kernel writes one: its size
                   1 to 20, the reserved bytes 0.  A kernel seen here
                   (6.18) also flagged records of events that asked for
                   none, over their device and inode, while another
                   event of the machine asked for build-ids: neither
                   is then known, and no build-id is made up from
                   them (the file would be refused as another); the
                   recording's build-id table may still know it.  */
                if (m2->build_id_size > 0
                    && m2->build_id_size <= ST_PERF_BUILD_ID_MAX
                    && m2->reserved1 == 0 && m2->reserved2 == 0)
                  {
                    bid = m2->build_id;
                    bid_len = m2->build_id_size;
                  }
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
  st_perf_reader_add_attr (r, rec + hdr, attr_size, rec + hdr + attr_size,
                           (size - hdr - attr_size) / 8);
  return 1;
}

/* Decodes the whole record P (SIZE bytes, TOTAL with its payload) at
   OFF into EV.  */
int
st_perf_reader_decode_record (StPerfReader *r, const uint8_t *p,
                              uint32_t type, size_t size, uint64_t off,
                              uint64_t total, StEvent *ev, GError **error)
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
        st_perf_decompress_set_feature (st_perf_reader_decompressor (r),
                                        p + sizeof (StPerfFeatureRecord),
                                        size - sizeof (StPerfFeatureRecord));
      return 1;
    case ST_PERF_RECORD_ID_INDEX:
      return decode_id_index (r, p, size, off, error);
    case ST_PERF_RECORD_HEADER_BUILD_ID:
      {
        const char *why = st_perf_reader_add_build_id (r, p, size);

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

