#include "config.h"

#include <string.h>

#include "capture-bytes.h"

#define ROUND8(n) (((n) + 7) & ~(size_t) 7)

void
capture_put (GByteArray *b, const void *p, size_t n)
{
  g_byte_array_append (b, p, (guint) n);
}

void
capture_put_u16 (GByteArray *b, uint16_t v)
{
  v = GUINT16_TO_LE (v);
  capture_put (b, &v, 2);
}

void
capture_put_u32 (GByteArray *b, uint32_t v)
{
  v = GUINT32_TO_LE (v);
  capture_put (b, &v, 4);
}

void
capture_put_u64 (GByteArray *b, uint64_t v)
{
  v = GUINT64_TO_LE (v);
  capture_put (b, &v, 8);
}

void
capture_put_zeros (GByteArray *b, size_t n)
{
  guint at = b->len;

  g_byte_array_set_size (b, at + (guint) n);
  memset (b->data + at, 0, n);
}

void
capture_put_fixed_string (GByteArray *b, const char *s, size_t size)
{
  size_t n = MIN (strlen (s), size - 1);

  capture_put (b, s, n);
  capture_put_zeros (b, size - n);
}

void
capture_put_file_header (GByteArray *b, int64_t time, int64_t end_time)
{
  capture_put_file_header_as (b, CAPTURE_MAGIC, 1, 1, time, end_time);
}

void
capture_put_file_header_as (GByteArray *b, uint32_t magic, uint8_t version,
                            uint8_t little_endian, int64_t time,
                            int64_t end_time)
{
  capture_put_u32 (b, magic);
  capture_put (b, (const uint8_t[]) { version, little_endian, 0, 0 }, 4);
  capture_put_fixed_string (b, CAPTURE_TEST_TIME, 64);
  capture_put_u64 (b, (uint64_t) time);
  capture_put_u64 (b, (uint64_t) end_time);
  capture_put_zeros (b, 168);
}

void
capture_put_frame_header (GByteArray *b, uint16_t len, int16_t cpu,
                          int32_t pid, int64_t time, uint8_t type)
{
  capture_put_u16 (b, len);
  capture_put_u16 (b, (uint16_t) cpu);
  capture_put_u32 (b, (uint32_t) pid);
  capture_put_u64 (b, (uint64_t) time);
  capture_put_u32 (b, type);
  capture_put_u32 (b, 0);
}

guint
capture_begin_frame (GByteArray *b, uint8_t type, int16_t cpu, int32_t pid,
                     int64_t time)
{
  guint start = b->len;

  capture_put_frame_header (b, 0, cpu, pid, time, type);
  return start;
}

void
capture_end_frame (GByteArray *b, guint start)
{
  size_t len = ROUND8 (b->len - start);
  uint16_t le;

  g_assert_cmpuint (len, <=, 65535);
  capture_put_zeros (b, start + len - b->len);
  le = GUINT16_TO_LE ((uint16_t) len);
  memcpy (b->data + start, &le, 2);
}

void
capture_put_timestamp (GByteArray *b, int16_t cpu, int32_t pid, int64_t time)
{
  capture_put_frame_header (b, 24, cpu, pid, time, CAPTURE_TIMESTAMP);
}

void
capture_put_zero_frame (GByteArray *b, uint8_t type, int16_t cpu,
                        int32_t pid, int64_t time, size_t n_zeros)
{
  guint at = capture_begin_frame (b, type, cpu, pid, time);

  capture_put_zeros (b, n_zeros);
  capture_end_frame (b, at);
}

void
capture_put_sample (GByteArray *b, int16_t cpu, int32_t pid, int32_t tid,
                    int64_t time, const uint64_t *addrs, uint16_t n_addrs)
{
  guint at = capture_begin_frame (b, CAPTURE_SAMPLE, cpu, pid, time);

  capture_put_u16 (b, n_addrs);
  capture_put_u16 (b, 0);
  capture_put_u32 (b, (uint32_t) tid);
  for (guint i = 0; i < n_addrs; i++)
    capture_put_u64 (b, addrs[i]);
  capture_end_frame (b, at);
}

void
capture_put_map (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                 uint64_t start, uint64_t end, uint64_t offset,
                 uint64_t inode, const char *filename,
                 const uint8_t *build_id, size_t build_id_len)
{
  guint at = capture_begin_frame (b, CAPTURE_MAP, cpu, pid, time);

  capture_put_u64 (b, start);
  capture_put_u64 (b, end);
  capture_put_u64 (b, offset);
  capture_put_u64 (b, inode);
  capture_put (b, filename, strlen (filename) + 1);
  if (build_id_len > 0)
    {
      capture_put (b, "@", 1);
      for (size_t i = 0; i < build_id_len; i++)
        {
          char hex[3];

          g_snprintf (hex, sizeof hex, "%02x", build_id[i]);
          capture_put (b, hex, 2);
        }
      capture_put_zeros (b, 1);
    }
  capture_end_frame (b, at);
}

void
capture_put_process (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                     const char *cmdline)
{
  guint at = capture_begin_frame (b, CAPTURE_PROCESS, cpu, pid, time);

  capture_put (b, cmdline, strlen (cmdline) + 1);
  capture_end_frame (b, at);
}

void
capture_put_fork (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                  int32_t child_pid)
{
  guint at = capture_begin_frame (b, CAPTURE_FORK, cpu, pid, time);

  capture_put_u32 (b, (uint32_t) child_pid);
  capture_end_frame (b, at);
}

void
capture_put_exit (GByteArray *b, int16_t cpu, int32_t pid, int64_t time)
{
  capture_put_frame_header (b, 24, cpu, pid, time, CAPTURE_EXIT);
}

void
capture_put_log (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                 uint16_t severity, const char *domain, const char *message)
{
  guint at = capture_begin_frame (b, CAPTURE_LOG, cpu, pid, time);

  capture_put_u16 (b, severity);
  capture_put_zeros (b, 6);
  capture_put_fixed_string (b, domain, 32);
  capture_put (b, message, strlen (message) + 1);
  capture_end_frame (b, at);
}

void
capture_put_mark (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                  int64_t duration, const char *group, const char *name,
                  const char *message)
{
  guint at = capture_begin_frame (b, CAPTURE_MARK, cpu, pid, time);

  capture_put_u64 (b, (uint64_t) duration);
  capture_put_fixed_string (b, group, 24);
  capture_put_fixed_string (b, name, 40);
  capture_put (b, message, strlen (message) + 1);
  capture_end_frame (b, at);
}

void
capture_put_file_chunk (GByteArray *b, int16_t cpu, int32_t pid,
                        int64_t time, gboolean is_last, const char *path,
                        const void *data, size_t len)
{
  guint at = capture_begin_frame (b, CAPTURE_FILE_CHUNK, cpu, pid, time);

  g_assert_cmpuint (len, <=, 65535 - 284 - 7);
  capture_put_u32 (b, (is_last ? 1u : 0u) | ((uint32_t) len << 16));
  capture_put_fixed_string (b, path, 256);
  capture_put (b, data, len);
  capture_end_frame (b, at);
}

void
capture_put_overlay (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                     uint8_t layer, const char *src, const char *dst)
{
  guint at = capture_begin_frame (b, CAPTURE_OVERLAY, cpu, pid, time);

  capture_put_u32 (b, layer);
  capture_put_u16 (b, (uint16_t) strlen (src));
  capture_put_u16 (b, (uint16_t) strlen (dst));
  capture_put (b, src, strlen (src) + 1);
  capture_put (b, dst, strlen (dst) + 1);
  capture_end_frame (b, at);
}

void
capture_put_ctrdef (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                    const CaptureCounter *counters, guint n)
{
  guint at = capture_begin_frame (b, CAPTURE_CTRDEF, cpu, pid, time);

  capture_put_u16 (b, (uint16_t) n);
  capture_put_zeros (b, 6);
  for (guint i = 0; i < n; i++)
    {
      const CaptureCounter *c = &counters[i];

      capture_put_fixed_string (b, c->category, 32);
      capture_put_fixed_string (b, c->name, 32);
      capture_put_fixed_string (b, c->description, 52);
      capture_put_u32 (b, (c->id & 0xffffff) | ((uint32_t) c->type << 24));
      capture_put_u64 (b, (uint64_t) c->value);
    }
  capture_end_frame (b, at);
}

void
capture_put_ctrset (GByteArray *b, int16_t cpu, int32_t pid, int64_t time,
                    const uint32_t *ids, const int64_t *values, guint n)
{
  guint at = capture_begin_frame (b, CAPTURE_CTRSET, cpu, pid, time);
  guint n_groups = (n + 7) / 8;

  capture_put_u16 (b, (uint16_t) n_groups);
  capture_put_zeros (b, 6);
  for (guint g = 0; g < n_groups; g++)
    {
      for (guint i = g * 8; i < g * 8 + 8; i++)
        capture_put_u32 (b, i < n ? ids[i] : 0);
      for (guint i = g * 8; i < g * 8 + 8; i++)
        capture_put_u64 (b, i < n ? (uint64_t) values[i] : 0);
    }
  capture_end_frame (b, at);
}

void
capture_put_stack_user (GByteArray *b, int16_t cpu, int32_t pid,
                        int32_t tid, int64_t time, const void *stack,
                        uint64_t size, uint32_t abi, const uint64_t *regs,
                        uint32_t n_regs)
{
  guint at = capture_begin_frame (b, CAPTURE_STACK_USER, cpu, pid, time);

  capture_put_u64 (b, size);
  capture_put_u32 (b, (uint32_t) tid);
  capture_put_u32 (b, 0);
  capture_put (b, stack, (size_t) size);
  capture_put_u32 (b, n_regs);
  capture_put_u32 (b, abi);
  for (uint32_t i = 0; i < n_regs; i++)
    capture_put_u64 (b, regs[i]);
  capture_end_frame (b, at);
}

GByteArray *
capture_with_forks (guint n, int32_t first_parent, int32_t parent_step)
{
  GByteArray *b = g_byte_array_new ();

  capture_put_file_header (b, 1000, 0);
  for (guint i = 0; i < n; i++)
    capture_put_fork (b, 1, first_parent + (int32_t) i * parent_step,
                      2000 + i, 200 + (int32_t) i);
  return b;
}

StEvent
capture_perf_event (StEventKind kind, int32_t pid, int32_t tid, int cpu,
                    int64_t time)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.source = ST_FORMAT_PERF;
  ev.pid = pid;
  ev.tid = tid;
  ev.cpu = cpu;
  ev.time = time;
  return ev;
}

StEvent
capture_stack_event (int32_t pid, int32_t tid, int cpu, int64_t time,
                     uint32_t abi, uint64_t mask, const uint64_t *regs,
                     const uint8_t *stack, uint64_t size)
{
  StEvent ev = capture_perf_event (ST_EVENT_STACK_USER, pid, tid, cpu, time);

  ev.stack.abi = abi;
  ev.stack.regs_mask = mask;
  ev.stack.regs = regs;
  ev.stack.n_regs = (uint32_t) __builtin_popcountll (mask);
  ev.stack.stack = size > 0 ? stack : NULL;
  ev.stack.stack_size = size;
  return ev;
}

/* ---- reading back ------------------------------------------------------ */

void
capture_next_ok (StCaptureReader *r, StEvent *ev)
{
  GError *error = NULL;
  int rc = st_capture_reader_next (r, ev, &error);

  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 1);
  g_assert_cmpint (ev->source, ==, ST_FORMAT_SYSPROF);
  g_assert_nonnull (ev->raw);
  g_assert_cmpuint (ev->raw_len % 8, ==, 0);
  g_assert_cmpuint (ev->raw_len, >=, CAPTURE_FRAME_HEADER_BYTES);
  g_assert_cmpuint ((uintptr_t) ev->raw % 8, ==, 0);
}

void
capture_next_eof (StCaptureReader *r)
{
  GError *error = NULL;
  StEvent ev;

  g_assert_cmpint (st_capture_reader_next (r, &ev, &error), ==, 0);
  g_assert_no_error (error);
}

static uint64_t
u64_at (const uint8_t *p, size_t at)
{
  uint64_t v;

  memcpy (&v, p + at, 8);
  return GUINT64_FROM_LE (v);
}

void
capture_check_file_header (const uint8_t *p, int64_t time, int64_t end_time)
{
  uint32_t magic;
  char capture_time[64];

  memcpy (&magic, p, 4);
  g_assert_cmphex (GUINT32_FROM_LE (magic), ==, CAPTURE_MAGIC);
  g_assert_cmpuint (p[4], ==, 1);
  g_assert_cmpuint (p[5] & 1, ==, 1);
  g_assert_cmpint ((int64_t) u64_at (p, CAPTURE_HEADER_TIME_AT), ==, time);
  g_assert_cmpint ((int64_t) u64_at (p, CAPTURE_HEADER_END_TIME_AT), ==,
                   end_time);
  memcpy (capture_time, p + CAPTURE_HEADER_CAPTURE_TIME_AT, 64);
  g_assert_nonnull (memchr (capture_time, '\0', 64));
  g_assert_cmpuint (strlen (capture_time), ==, 20);
  g_assert_true (g_regex_match_simple
                 ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                  capture_time, 0, 0));
}

void
capture_check_stack (const StEvent *ev, int32_t pid, int32_t tid, int cpu,
                     int64_t time, uint32_t abi, uint64_t mask,
                     const uint8_t *stack, uint64_t size)
{
  g_assert_cmpint (ev->kind, ==, ST_EVENT_STACK_USER);
  g_assert_cmpint (ev->pid, ==, pid);
  g_assert_cmpint (ev->tid, ==, tid);
  g_assert_cmpint (ev->cpu, ==, cpu);
  g_assert_cmpint (ev->time, ==, time);
  g_assert_cmpuint (ev->stack.abi, ==, abi);
  g_assert_cmphex (ev->stack.regs_mask, ==, mask);
  g_assert_cmpuint (ev->stack.n_regs, ==, __builtin_popcountll (mask));
  g_assert_cmpuint ((uintptr_t) ev->stack.regs % 8, ==, 0);
  g_assert_null (ev->stack.callchain);
  g_assert_cmpuint (ev->stack.n_callchain, ==, 0);
  g_assert_cmpuint (ev->stack.stack_size, ==, size);
  g_assert_cmpmem (ev->stack.stack, size, stack, size);
}

void
capture_check_log (const StEvent *ev, uint16_t severity, const char *domain,
                   const char *message)
{
  uint16_t sev;
  char dom[32];

  g_assert_cmpint (ev->kind, ==, ST_EVENT_OTHER);
  g_assert_cmpuint (ev->raw_len, >=, 64 + strlen (message) + 1);
  g_assert_cmpuint (ev->raw[16], ==, CAPTURE_LOG);
  memcpy (&sev, ev->raw + 24, 2);
  g_assert_cmpuint (GUINT16_FROM_LE (sev), ==, severity);
  memcpy (dom, ev->raw + 32, 32);
  g_assert_nonnull (memchr (dom, '\0', 32));
  g_assert_cmpstr (dom, ==, domain);
  g_assert_cmpstr ((const char *) ev->raw + 64, ==, message);
}

gboolean
capture_says_offset (const char *message, uint64_t offset)
{
  char *needle = g_strdup_printf ("offset %" G_GUINT64_FORMAT, offset);
  gboolean found = strstr (message, needle) != NULL;

  g_free (needle);
  return found;
}
