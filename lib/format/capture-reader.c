/* Sysprof capture reader.  Frames are checked the way Sysprof's own reader
   checks them (len >= 24, len % 8 == 0, whole frame present), plus the
   inner sizes of the frame types we interpret, so that no field is ever
   read outside its frame.  With a damage handler, a bad frame does not
   end the reading: see damage.h and the table in doc/ROBUSTNESS.  */
#include "config.h"

#include <string.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/damage.h"
#include "util/domain.h"

/* Largest register block a STACK_USER frame may carry (aarch64).  */
#define ST_CAPTURE_MAX_REGS ST_CAPTURE_REGS_AARCH64_N

struct StCaptureReader
{
  StInput *in;
  uint8_t header[ST_CAPTURE_HEADER_SIZE];
  /* The registers of the last STACK_USER frame, aligned for uint64_t.  */
  uint64_t regs[ST_CAPTURE_MAX_REGS];
  /* The cmdline of the last PROCESS frame when it lacked its NUL.  */
  char *cmdline;
  StDamageHandler damage;     /* none: the first damage is an error */
  int64_t last_time;          /* of the last good frame, for resyncing */
};

static uint32_t
read_u32 (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

StCaptureReader *
st_capture_reader_new (StInput *in, GError **error)
{
  const uint8_t *p = st_input_peek_header (in, ST_CAPTURE_HEADER_SIZE,
                                           "256-byte capture file header",
                                           error);

  if (p == NULL)
    return NULL;

  uint32_t magic = read_u32 (p);
  if (magic == GUINT32_SWAP_LE_BE (ST_CAPTURE_MAGIC))
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset 0: big-endian / byte-swapped capture not supported");
      return NULL;
    }
  if (magic != ST_CAPTURE_MAGIC)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset 0: bad capture magic 0x%08x (expected 0x%08x)",
                   magic, ST_CAPTURE_MAGIC);
      return NULL;
    }

  const StCaptureFileHeader *h = (const StCaptureFileHeader *) p;
  if (!h->little_endian)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset 0: big-endian / byte-swapped capture not supported");
      return NULL;
    }
  if (h->version != ST_CAPTURE_VERSION)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "offset 0: capture version %u not supported (expected %u)",
                   h->version, ST_CAPTURE_VERSION);
      return NULL;
    }

  StCaptureReader *r = g_new0 (StCaptureReader, 1);
  r->in = in;
  memcpy (r->header, p, ST_CAPTURE_HEADER_SIZE);
  st_input_consume (in, ST_CAPTURE_HEADER_SIZE);
  return r;
}

void
st_capture_reader_free (StCaptureReader *r)
{
  if (r == NULL)
    return;
  g_free (r->cmdline);
  g_free (r);
}

const uint8_t *
st_capture_reader_header (const StCaptureReader *r)
{
  return r->header;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* The "@HEXBUILDID\0" convention after a MAP filename.  Anything that does
   not follow it (e.g. the zero padding) just means "no build-id".  */
static void
parse_build_id (StEvent *ev, const char *s, const char *end)
{
  ev->map.build_id_len = 0;
  if (s >= end || *s != '@')
    return;
  s++;

  const char *nul = memchr (s, '\0', end - s);
  size_t n = nul != NULL ? (size_t) (nul - s) : 0;
  if (n == 0 || n % 2 != 0 || n / 2 > ST_BUILD_ID_MAX)
    return;
  for (size_t i = 0; i < n / 2; i++)
    {
      int hi = hex_value (s[2 * i]);
      int lo = hex_value (s[2 * i + 1]);
      if (hi < 0 || lo < 0)
        return;
      ev->map.build_id[i] = (uint8_t) (hi << 4 | lo);
    }
  ev->map.build_id_len = (uint8_t) (n / 2);
}

/* Each parser returns NULL, or why the frame's content is inconsistent.  */
static const char *
parse_stack_user (StCaptureReader *r, const uint8_t *p, size_t len,
                  StEvent *ev)
{
  const StCaptureStackUser *su = (const StCaptureStackUser *) p;

  if (len < sizeof *su + sizeof (StCaptureUserRegs))
    return "frame too short for a raw-stack sample";
  /* Compare without adding to SIZE, which may be huge.  */
  if (su->size > len - sizeof *su - sizeof (StCaptureUserRegs))
    return "stack size overflows the frame";

  const uint8_t *block = p + sizeof *su + su->size;
  uint32_t n_regs = read_u32 (block);
  uint32_t abi = read_u32 (block + 4);
  size_t room = len - sizeof *su - su->size - sizeof (StCaptureUserRegs);

  if (n_regs == 17)
    ev->stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  else if (n_regs == 9)
    ev->stack.regs_mask = ST_CAPTURE_REGS_I386_MASK;
  else if (n_regs == ST_CAPTURE_REGS_AARCH64_N)
    ev->stack.regs_mask = ST_CAPTURE_REGS_AARCH64_MASK;
  else
    return "register count is neither 17 (x86_64), 9 (i386) nor 33 "
           "(aarch64)";
  /* 9 registers with the 64-bit ABI is legitimate: a perf recording
     that sampled only AX..IP.  */
  if (abi > ST_REGS_ABI_64)
    return "unknown register ABI (neither 0, 1 nor 2)";
  if ((size_t) n_regs * 8 > room)
    return "registers overflow the frame";

  /* The block is unaligned when size % 8 != 0.  */
  memcpy (r->regs, block + sizeof (StCaptureUserRegs), n_regs * 8);

  ev->kind = ST_EVENT_STACK_USER;
  ev->tid = su->tid;
  ev->stack.callchain = NULL;
  ev->stack.n_callchain = 0;
  ev->stack.abi = abi;
  ev->stack.regs = r->regs;
  ev->stack.n_regs = n_regs;
  ev->stack.stack = su->data;
  ev->stack.stack_size = su->size;
  return NULL;
}

/* Fills EV from the whole frame P of LEN bytes.  */
static const char *
parse_frame (StCaptureReader *r, const uint8_t *p, size_t len, StEvent *ev)
{
  const StCaptureFrame *f = (const StCaptureFrame *) p;

  switch (f->type)
    {
    case ST_CAPTURE_SAMPLE:
      {
        const StCaptureSample *s = (const StCaptureSample *) p;
        if (len < sizeof *s)
          return "frame too short for a sample";
        if ((size_t) s->n_addrs > (len - sizeof *s) / 8)
          return "address count overflows the frame";
        ev->kind = ST_EVENT_SAMPLE;
        ev->tid = s->tid;
        /* Frames sit at 8-aligned offsets and the input keeps that.  */
        ev->sample.ips = (const uint64_t *) (p + sizeof *s);
        ev->sample.n_ips = s->n_addrs;
        return NULL;
      }

    case ST_CAPTURE_STACK_USER:
      return parse_stack_user (r, p, len, ev);

    case ST_CAPTURE_MAP:
      {
        const StCaptureMap *m = (const StCaptureMap *) p;
        const char *name = (const char *) p + sizeof *m;
        const char *end = (const char *) p + len;
        const char *nul;

        if (len < sizeof *m)
          return "frame too short for a mapping";
        nul = memchr (name, '\0', end - name);
        if (nul == NULL)
          return "file name not NUL-terminated within the frame";
        ev->kind = ST_EVENT_MAP;
        ev->map.start = m->start;
        ev->map.end = m->end;
        ev->map.pgoff = m->offset;
        ev->map.inode = m->inode;
        ev->map.prot = 0;
        ev->map.exec_known = false;
        ev->map.filename = name;
        parse_build_id (ev, nul + 1, end);
        return NULL;
      }

    case ST_CAPTURE_PROCESS:
      {
        const char *cmd = (const char *) p + sizeof (StCaptureProcess);
        size_t n = len - sizeof (StCaptureProcess);

        ev->kind = ST_EVENT_PROCESS;
        ev->process.exec = false;
        if (memchr (cmd, '\0', n) != NULL)
          ev->process.comm = cmd;
        else
          {
            g_free (r->cmdline);
            r->cmdline = g_strndup (cmd, n);
            ev->process.comm = r->cmdline;
          }
        return NULL;
      }

    case ST_CAPTURE_FORK:
      {
        const StCaptureFork *fk = (const StCaptureFork *) p;
        if (len < sizeof *fk)
          return "frame too short for a fork";
        ev->kind = ST_EVENT_FORK;
        ev->fork.parent_pid = ev->pid;
        ev->fork.parent_tid = ev->pid;
        ev->pid = fk->child_pid;
        ev->tid = fk->child_pid;
        return NULL;
      }

    case ST_CAPTURE_EXIT:
      ev->kind = ST_EVENT_EXIT;
      return NULL;

    default:
      ev->kind = ST_EVENT_OTHER;
      return NULL;
    }
}

/* The event of the frame P of LEN bytes at OFFSET, from its header only:
   kind OTHER.  */
static void
fill_header (StEvent *ev, const uint8_t *p, uint64_t offset, size_t len)
{
  const StCaptureFrame *f = (const StCaptureFrame *) p;

  memset (ev, 0, sizeof *ev);
  ev->kind = ST_EVENT_OTHER;
  ev->source = ST_FORMAT_SYSPROF;
  ev->offset = offset;
  ev->pid = f->pid;
  ev->tid = f->pid;
  ev->cpu = f->cpu;
  ev->time = f->time;
  ev->raw = p;
  ev->raw_len = len;
}

/* Sysprof's own types and ours: what a resynchronization accepts.  */
static gboolean
known_type (unsigned type)
{
  return type >= ST_CAPTURE_TIMESTAMP && type <= ST_CAPTURE_STACK_USER;
}

/* Frames Sysprof's reader interprets: one with inconsistent content would
   stop a reader downstream, so it is dropped rather than passed on.  */
static gboolean
drop_when_inconsistent (unsigned type)
{
  return type != ST_CAPTURE_STACK_USER;
}

/* Largest distance in time from the last good frame that a frame found
   by resynchronization may have: an hour.  */
#define RESYNC_MAX_TIME_JUMP (3600ll * 1000000000ll)

/* Whether the 24 bytes at P look like a frame header that follows the
   frames read so far.  */
static gboolean
plausible_header (const StCaptureReader *r, const uint8_t *p)
{
  const StCaptureFrame *f = (const StCaptureFrame *) p;

  if (!known_type (f->type) || f->len < ST_CAPTURE_FRAME_HEADER
      || f->len % ST_CAPTURE_ALIGN != 0 || f->pid < -1
      || f->pid > (1 << 22) || f->cpu < -1
      || f->time < 0)
    return FALSE;
  if (r->last_time > 0
      && (f->time > r->last_time + RESYNC_MAX_TIME_JUMP
          || f->time < r->last_time - RESYNC_MAX_TIME_JUMP))
    return FALSE;
  return TRUE;
}

/* Whether a frame starts at the input's position: a plausible header, a
   consistent frame, and after it a plausible header or the end.  */
static gboolean
frame_starts_here (void *user)
{
  StCaptureReader *r = user;
  size_t avail = 0;
  const uint8_t *p = st_input_peek (r->in, ST_CAPTURE_FRAME_HEADER, &avail,
                                    NULL);
  StEvent ev;

  if (p == NULL || !plausible_header (r, p))
    return FALSE;
  size_t len = ((const StCaptureFrame *) p)->len;
  gboolean next_known = TRUE;
  p = st_input_peek (r->in, len + ST_CAPTURE_FRAME_HEADER, &avail, NULL);
  if (p == NULL)
    {
      /* Fewer than 24 bytes follow the frame: nothing more to check.  */
      next_known = FALSE;
      if ((p = st_input_peek (r->in, len, &avail, NULL)) == NULL)
        return FALSE;
    }
  fill_header (&ev, p, 0, len);
  if (parse_frame (r, p, len, &ev) != NULL)
    return FALSE;
  return !next_known || plausible_header (r, p + len);
}

/* The input ended inside a header or frame at OFFSET, AVAIL bytes left.  */
static int
truncated_end (StCaptureReader *r, uint64_t offset, size_t avail,
               char *why, GError **error)
{
  gboolean go_on = st_damage_report (&r->damage, ST_DAMAGE_TRUNCATED, offset,
                                     avail, ST_ERROR_TRUNCATED, why, error);
  g_free (why);
  if (!go_on)
    return -1;
  st_input_consume (r->in, avail);
  return 0;
}

int
st_capture_reader_next (StCaptureReader *r, StEvent *ev, GError **error)
{
  for (;;)
    {
      uint64_t offset = st_input_offset (r->in);
      size_t avail = 0;
      GError *local = NULL;
      const uint8_t *p;

      memset (ev, 0, sizeof *ev);
      p = st_input_peek (r->in, ST_CAPTURE_FRAME_HEADER, &avail, &local);
      if (p == NULL)
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return -1;
            }
          if (avail == 0)
            return 0;
          return truncated_end (r, offset, avail, g_strdup_printf (
                   "offset %" G_GUINT64_FORMAT ": input ended inside a "
                   "capture frame header (%zu of 24 bytes)", offset, avail),
                   error);
        }

      const StCaptureFrame *f = (const StCaptureFrame *) p;
      size_t len = f->len;
      unsigned type = f->type;

      if (len < ST_CAPTURE_FRAME_HEADER || len % ST_CAPTURE_ALIGN != 0)
        {
          g_autofree char *why = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad capture frame: length %zu "
            "is %s", offset, len, len < ST_CAPTURE_FRAME_HEADER
            ? "shorter than the 24-byte frame header"
            : "not a multiple of 8");
          if (!st_damage_resynchronize (&r->damage, r->in, offset,
                                        G_MAXUINT64, 8, frame_starts_here, r,
                                        why, error))
            return -1;
          continue;
        }

      p = st_input_peek (r->in, len, &avail, &local);
      if (p == NULL)
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return -1;
            }
          return truncated_end (r, offset, avail, g_strdup_printf (
                   "offset %" G_GUINT64_FORMAT ": input ended inside a "
                   "capture frame of type %u (%zu of %zu bytes)", offset,
                   type, avail, len), error);
        }

      fill_header (ev, p, offset, len);
      const char *why = parse_frame (r, p, len, ev);
      if (why != NULL)
        {
          StDamageAction action = drop_when_inconsistent (type)
                                  ? ST_DAMAGE_DROPPED : ST_DAMAGE_PASSED;
          g_autofree char *msg = g_strdup_printf (
            "offset %" G_GUINT64_FORMAT ": bad capture frame (type %u): %s%s",
            offset, type, why, r->damage.func == NULL ? ""
            : action == ST_DAMAGE_DROPPED ? "; frame dropped"
            : "; frame passed on unchanged");
          if (!st_damage_report (&r->damage, action, offset, len,
                                 ST_ERROR_FORMAT, msg, error))
            return -1;
          if (action == ST_DAMAGE_DROPPED)
            {
              st_input_consume (r->in, len);
              continue;
            }
          /* Not interpreted: only its bytes go on.  */
          fill_header (ev, p, offset, len);
        }
      if (ev->time > 0)
        r->last_time = ev->time;

      /* Consuming does not move the buffer: P stays valid until the next
         peek, i.e. the next call.  */
      st_input_consume (r->in, len);
      return 1;
    }
}

void
st_capture_reader_set_damage_handler (StCaptureReader *r,
                                      const StDamageHandler *handler)
{
  r->damage = handler != NULL ? *handler : (StDamageHandler) { 0 };
}
