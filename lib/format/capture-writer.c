/* Sysprof capture writer.  Every frame is built field by field in the
   packed wire structs of capture-types.h and padded with zeros to 8.  */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "format/capture-types.h"
#include "format/capture-writer.h"
#include "util/domain.h"
#include "util/popcount.h"

/* The largest frame: u16 len rounded down to the 8-byte alignment.  */
#define FRAME_MAX (ST_CAPTURE_FRAME_MAX & ~(ST_CAPTURE_ALIGN - 1))
#define ROUND8(n) (((n) + ST_CAPTURE_ALIGN - 1) & ~(size_t) (ST_CAPTURE_ALIGN - 1))

struct StCaptureWriter
{
  StOutput *out;
  gboolean has_header;
  gboolean can_patch;     /* the header can be pwrite()n at header_pos */
  uint64_t header_pos;    /* absolute file offset of the file header */
  uint64_t header_offset; /* its offset in the output stream */
  StCaptureFileHeader header;   /* as written or to be patched */
  gboolean header_changed;      /* to be pwrite()n by finish */
  int64_t end_at_least;   /* the template's end_time, or a known end */
  int64_t max_time;
};

StCaptureWriter *
st_capture_writer_new (StOutput *out)
{
  StCaptureWriter *w = g_new0 (StCaptureWriter, 1);
  w->out = out;
  return w;
}

void
st_capture_writer_free (StCaptureWriter *w)
{
  g_free (w);
}

gboolean
st_capture_writer_has_header (const StCaptureWriter *w)
{
  return w->has_header;
}

/* Where the header lands in the file, for patching end_time later.  Not
   with O_APPEND: Linux pwrite() then appends whatever the offset.  */
static void
locate_header (StCaptureWriter *w)
{
  int fd = st_output_fd (w->out);
  int flags;
  off_t pos;

  if (!st_output_seekable (w->out))
    return;
  flags = fcntl (fd, F_GETFL);
  if (flags < 0 || (flags & O_APPEND) != 0)
    return;
  if (!st_output_flush (w->out, NULL))
    return;
  pos = lseek (fd, 0, SEEK_CUR);
  if (pos < 0)
    return;
  w->header_pos = (uint64_t) pos;
  w->can_patch = TRUE;
}

void
st_capture_writer_file_header (StCaptureWriter *w,
                               const uint8_t *template_header,
                               int64_t start_time)
{
  StCaptureFileHeader h;

  g_return_if_fail (!w->has_header);

  if (template_header != NULL)
    {
      memcpy (&h, template_header, sizeof h);
      w->end_at_least = h.end_time;
    }
  else
    {
      GDateTime *now = g_date_time_new_now_utc ();
      char *iso = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");

      memset (&h, 0, sizeof h);
      h.magic = ST_CAPTURE_MAGIC;
      h.version = ST_CAPTURE_VERSION;
      h.little_endian = 1;
      g_strlcpy (h.capture_time, iso, sizeof h.capture_time);
      h.time = start_time;
      h.end_time = 0;
      g_free (iso);
      g_date_time_unref (now);
    }

  locate_header (w);
  w->header = h;
  w->header_offset = st_output_offset (w->out);
  st_output_write (w->out, &h, sizeof h);
  w->has_header = TRUE;
}

void
st_capture_writer_hold_header (StCaptureWriter *w, size_t max_bytes)
{
  g_return_if_fail (w->has_header);
  if (!w->can_patch)
    st_output_hold (w->out, max_bytes);
}

gboolean
st_capture_writer_set_start (StCaptureWriter *w, int64_t start_time,
                             const char *capture_time)
{
  g_return_val_if_fail (w->has_header, FALSE);
  w->header.time = start_time;
  if (capture_time != NULL)
    g_strlcpy (w->header.capture_time, capture_time,
               sizeof w->header.capture_time);
  if (w->can_patch)
    {
      w->header_changed = TRUE;   /* finish writes it with end_time */
      return TRUE;
    }
  gboolean patched = st_output_patch (w->out, w->header_offset, &w->header,
                                      sizeof w->header);
  st_output_release (w->out);
  return patched;
}

void
st_capture_writer_set_end (StCaptureWriter *w, int64_t end_time)
{
  w->end_at_least = MAX (w->end_at_least, end_time);
}

/* Starts a frame of LEN bytes (padded later by the caller).  A frame
   before any file header gets a fresh one, so the output stays valid.  */
static void
begin_frame (StCaptureWriter *w, StCaptureFrameType type, size_t len,
             int cpu, int32_t pid, int64_t time)
{
  StCaptureFrame f;

  g_assert (len <= FRAME_MAX && len % ST_CAPTURE_ALIGN == 0);
  if (!w->has_header)
    st_capture_writer_file_header (w, NULL, time);
  if (time > w->max_time)
    w->max_time = time;

  memset (&f, 0, sizeof f);
  f.len = (uint16_t) len;
  f.cpu = (int16_t) cpu;
  f.pid = pid;
  f.time = time;
  f.type = type;
  st_output_write (w->out, &f, sizeof f);
}

void
st_capture_writer_raw (StCaptureWriter *w, const uint8_t *frame, size_t len,
                       int64_t time)
{
  if (!w->has_header)
    st_capture_writer_file_header (w, NULL, time);
  if (time > w->max_time)
    w->max_time = time;
  st_output_write (w->out, frame, len);
}

gboolean
st_capture_writer_sample (StCaptureWriter *w, int cpu, int32_t pid,
                          int32_t tid, int64_t time,
                          const uint64_t *ips, uint32_t n_ips)
{
  const uint32_t max_ips = (FRAME_MAX - sizeof (StCaptureSample)) / 8;
  uint32_t n = MIN (n_ips, max_ips);
  StCaptureSample s;

  begin_frame (w, ST_CAPTURE_SAMPLE, sizeof s + (size_t) n * 8, cpu, pid,
               time);
  s.n_addrs = (uint16_t) n;
  s.padding1 = 0;
  s.tid = tid;
  st_output_write (w->out, (const uint8_t *) &s + sizeof s.frame,
                   sizeof s - sizeof s.frame);
  st_output_write (w->out, ips, (size_t) n * 8);
  return n == n_ips;
}

/* The register set a STACK_USER frame carries for EV: the capture's own
   masks are kept, aarch64's registers (perf's X0..PC) make its set,
   anything else (e.g. perf's 0xff0fff) is reduced to the x86_64 or i386
   set by the ABI.  */
static uint64_t
frame_regs_mask (const StEvent *ev)
{
  uint64_t mask = ev->stack.regs_mask;

  if (mask == ST_CAPTURE_REGS_X86_64_MASK || mask == ST_CAPTURE_REGS_I386_MASK
      || mask == ST_CAPTURE_REGS_AARCH64_MASK)
    return mask;
  /* Only aarch64's perf registers go up to its PC (32).  */
  if (ev->stack.abi == ST_REGS_ABI_64 && (mask >> 32 & 1))
    return ST_CAPTURE_REGS_AARCH64_MASK;
  return ev->stack.abi == ST_REGS_ABI_32 ? ST_CAPTURE_REGS_I386_MASK
                                         : ST_CAPTURE_REGS_X86_64_MASK;
}

/* Register R of EV's compacted array, 0 when EV lacks it.  */
static uint64_t
event_reg (const StEvent *ev, unsigned r)
{
  uint64_t mask = ev->stack.regs_mask;
  unsigned idx;

  if ((mask & (1ull << r)) == 0 || ev->stack.regs == NULL)
    return 0;
  idx = (unsigned) st_popcount64 (mask & ((1ull << r) - 1));
  return idx < ev->stack.n_regs ? ev->stack.regs[idx] : 0;
}

gboolean
st_capture_writer_stack_user (StCaptureWriter *w, const StEvent *ev)
{
  uint64_t mask = frame_regs_mask (ev);
  uint32_t n_regs = (uint32_t) st_popcount64 (mask);
  uint64_t regs[64];
  size_t fixed = sizeof (StCaptureStackUser) + sizeof (StCaptureUserRegs)
                 + (size_t) n_regs * 8;
  uint64_t size = ev->stack.stack_size;
  gboolean whole = TRUE;
  unsigned i = 0;

  /* Keep the lowest addresses: they hold the innermost frames.  */
  if (size > FRAME_MAX - fixed)
    {
      size = FRAME_MAX - fixed;
      whole = FALSE;
    }
  if (ev->stack.stack == NULL)
    size = 0;

  for (unsigned r = 0; r < 64; r++)
    if (mask & (1ull << r))
      regs[i++] = event_reg (ev, r);

  size_t len = fixed + (size_t) size;
  size_t padded = ROUND8 (len);
  StCaptureStackUser su;
  StCaptureUserRegs block;

  begin_frame (w, ST_CAPTURE_STACK_USER, padded, ev->cpu, ev->pid, ev->time);
  su.size = size;
  su.tid = ev->tid;
  su.padding = 0;
  st_output_write (w->out, (const uint8_t *) &su + sizeof su.frame,
                   sizeof su - sizeof su.frame);
  st_output_write (w->out, ev->stack.stack, (size_t) size);
  block.n_regs = n_regs;
  block.abi = ev->stack.abi;
  st_output_write (w->out, &block, sizeof block);
  st_output_write (w->out, regs, (size_t) n_regs * 8);
  st_output_pad (w->out, padded - len);
  return whole;
}

void
st_capture_writer_map (StCaptureWriter *w, int cpu, int32_t pid,
                       int64_t time, uint64_t start, uint64_t end,
                       uint64_t offset, uint64_t inode,
                       const char *filename, const uint8_t *build_id,
                       size_t build_id_len)
{
  char hex[2 * ST_BUILD_ID_MAX + 3];   /* '@', digits, NUL */
  size_t hex_len = 0;
  StCaptureMap m;

  if (filename == NULL)
    filename = "";
  if (build_id != NULL && build_id_len > 0)
    {
      build_id_len = MIN (build_id_len, (size_t) ST_BUILD_ID_MAX);
      hex[hex_len++] = '@';
      for (size_t i = 0; i < build_id_len; i++)
        {
          static const char digits[] = "0123456789abcdef";
          hex[hex_len++] = digits[build_id[i] >> 4];
          hex[hex_len++] = digits[build_id[i] & 0xf];
        }
      hex[hex_len++] = '\0';
    }

  size_t name_len = MIN (strlen (filename),
                         FRAME_MAX - sizeof m - 1 - hex_len);
  size_t len = sizeof m + name_len + 1 + hex_len;
  size_t padded = ROUND8 (len);

  begin_frame (w, ST_CAPTURE_MAP, padded, cpu, pid, time);
  m.start = start;
  m.end = end;
  m.offset = offset;
  m.inode = inode;
  st_output_write (w->out, (const uint8_t *) &m + sizeof m.frame,
                   sizeof m - sizeof m.frame);
  st_output_write (w->out, filename, name_len);
  st_output_pad (w->out, 1);
  st_output_write (w->out, hex, hex_len);
  st_output_pad (w->out, padded - len);
}

void
st_capture_writer_process (StCaptureWriter *w, int cpu, int32_t pid,
                           int64_t time, const char *cmdline)
{
  if (cmdline == NULL)
    cmdline = "";

  size_t n = MIN (strlen (cmdline),
                  FRAME_MAX - sizeof (StCaptureProcess) - 1);
  size_t len = sizeof (StCaptureProcess) + n + 1;
  size_t padded = ROUND8 (len);

  begin_frame (w, ST_CAPTURE_PROCESS, padded, cpu, pid, time);
  st_output_write (w->out, cmdline, n);
  st_output_pad (w->out, padded - len + 1);
}

void
st_capture_writer_fork (StCaptureWriter *w, int cpu, int32_t pid,
                        int64_t time, int32_t child_pid)
{
  StCaptureFork fk;

  begin_frame (w, ST_CAPTURE_FORK, sizeof fk, cpu, pid, time);
  fk.child_pid = child_pid;
  fk.padding = 0;
  st_output_write (w->out, (const uint8_t *) &fk + sizeof fk.frame,
                   sizeof fk - sizeof fk.frame);
}

void
st_capture_writer_exit (StCaptureWriter *w, int cpu, int32_t pid,
                        int64_t time)
{
  begin_frame (w, ST_CAPTURE_EXIT, sizeof (StCaptureFrame), cpu, pid, time);
}

void
st_capture_writer_log (StCaptureWriter *w, int cpu, int32_t pid,
                       int64_t time, int severity, const char *domain,
                       const char *message)
{
  StCaptureLog lg;

  if (message == NULL)
    message = "";

  size_t n = MIN (strlen (message), FRAME_MAX - sizeof lg - 1);
  size_t len = sizeof lg + n + 1;
  size_t padded = ROUND8 (len);

  begin_frame (w, ST_CAPTURE_LOG, padded, cpu, pid, time);
  memset (&lg, 0, sizeof lg);
  lg.severity = (uint16_t) severity;
  if (domain != NULL)
    g_strlcpy (lg.domain, domain, sizeof lg.domain);
  st_output_write (w->out, (const uint8_t *) &lg + sizeof lg.frame,
                   sizeof lg - sizeof lg.frame);
  st_output_write (w->out, message, n);
  st_output_pad (w->out, padded - len + 1);
}

void
st_capture_writer_define_counters (StCaptureWriter *w, int cpu, int32_t pid,
                                   int64_t time,
                                   const StCaptureCounter *counters, guint n)
{
  StCaptureCounterDefine def;
  size_t len = sizeof def + (size_t) n * sizeof *counters;

  g_return_if_fail (len <= FRAME_MAX);
  begin_frame (w, ST_CAPTURE_CTRDEF, len, cpu, pid, time);
  memset (&def, 0, sizeof def);
  def.n_counters = (uint16_t) n;
  st_output_write (w->out, (const uint8_t *) &def + sizeof def.frame,
                   sizeof def - sizeof def.frame);
  st_output_write (w->out, counters, (size_t) n * sizeof *counters);
}

void
st_capture_writer_set_counters (StCaptureWriter *w, int cpu, int32_t pid,
                                int64_t time, const uint32_t *ids,
                                const uint64_t *values, guint n)
{
  StCaptureCounterSet set;
  guint n_groups = (n + 7) / 8;
  size_t len = sizeof set + (size_t) n_groups * sizeof (StCaptureCounterValues);

  g_return_if_fail (len <= FRAME_MAX);
  begin_frame (w, ST_CAPTURE_CTRSET, len, cpu, pid, time);
  memset (&set, 0, sizeof set);
  set.n_values = (uint16_t) n_groups;
  st_output_write (w->out, (const uint8_t *) &set + sizeof set.frame,
                   sizeof set - sizeof set.frame);
  for (guint g = 0; g < n_groups; g++)
    {
      StCaptureCounterValues group;

      /* Unused slots stay zero: id 0 is no counter.  */
      memset (&group, 0, sizeof group);
      for (guint i = 0; i < 8 && g * 8 + i < n; i++)
        {
          group.ids[i] = ids[g * 8 + i];
          memcpy (&group.values[i], &values[g * 8 + i], sizeof values[0]);
        }
      st_output_write (w->out, &group, sizeof group);
    }
}

gboolean
st_capture_writer_finish (StCaptureWriter *w, GError **error)
{
  st_output_release (w->out);
  if (!st_output_flush (w->out, error))
    return FALSE;
  if (!w->has_header || !w->can_patch)
    return TRUE;

  w->header.end_time = MAX (w->end_at_least, w->max_time);
  if (w->header_changed)
    return st_output_pwrite (w->out, &w->header, sizeof w->header,
                             w->header_pos, error);
  return st_output_pwrite (w->out, &w->header.end_time,
                           sizeof w->header.end_time,
                           w->header_pos
                           + G_STRUCT_OFFSET (StCaptureFileHeader, end_time),
                           error);
}
