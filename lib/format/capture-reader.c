/* Sysprof capture reader.  Frames are checked the way Sysprof's own reader
   checks them (len >= 24, len % 8 == 0, whole frame present), plus the
   inner sizes of the frame types we interpret, so that no field is ever
   read outside its frame.  */
#include "config.h"

#include <string.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "format/domain.h"

/* Largest register block a STACK_USER frame may carry (x86_64).  */
#define ST_CAPTURE_MAX_REGS 17

struct StCaptureReader
{
  StInput *in;
  uint8_t header[ST_CAPTURE_HEADER_SIZE];
  /* The registers of the last STACK_USER frame, aligned for uint64_t.  */
  uint64_t regs[ST_CAPTURE_MAX_REGS];
  /* The cmdline of the last PROCESS frame when it lacked its NUL.  */
  char *cmdline;
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
  size_t avail = 0;
  GError *local = NULL;
  const uint8_t *p = st_input_peek (in, ST_CAPTURE_HEADER_SIZE, &avail, &local);

  if (p == NULL)
    {
      if (local != NULL)
        g_propagate_error (error, local);
      else
        g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                     "offset 0: input ended after %zu bytes, inside the "
                     "256-byte capture file header", avail);
      return NULL;
    }

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
bad_frame (GError **error, uint64_t offset, unsigned type, const char *why)
{
  g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
               "offset %" G_GUINT64_FORMAT ": bad capture frame (type %u): %s",
               offset, type, why);
  return -1;
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

static int
parse_stack_user (StCaptureReader *r, const uint8_t *p, size_t len,
                  StEvent *ev, GError **error)
{
  const StCaptureStackUser *su = (const StCaptureStackUser *) p;
  uint64_t offset = ev->offset;

  if (len < sizeof *su + sizeof (StCaptureUserRegs))
    return bad_frame (error, offset, ST_CAPTURE_STACK_USER,
                      "frame too short for a raw-stack sample");
  /* Compare without adding to SIZE, which may be huge.  */
  if (su->size > len - sizeof *su - sizeof (StCaptureUserRegs))
    return bad_frame (error, offset, ST_CAPTURE_STACK_USER,
                      "stack size overflows the frame");

  const uint8_t *block = p + sizeof *su + su->size;
  uint32_t n_regs = read_u32 (block);
  uint32_t abi = read_u32 (block + 4);
  size_t room = len - sizeof *su - su->size - sizeof (StCaptureUserRegs);

  if (n_regs == 17)
    ev->stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  else if (n_regs == 9)
    ev->stack.regs_mask = ST_CAPTURE_REGS_I386_MASK;
  else
    return bad_frame (error, offset, ST_CAPTURE_STACK_USER,
                      "register count is neither 17 (x86_64) nor 9 (i386)");
  if ((size_t) n_regs * 8 > room)
    return bad_frame (error, offset, ST_CAPTURE_STACK_USER,
                      "registers overflow the frame");

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
  return 1;
}

/* Fills EV from the whole frame P of LEN bytes.  */
static int
parse_frame (StCaptureReader *r, const uint8_t *p, size_t len, StEvent *ev,
             GError **error)
{
  const StCaptureFrame *f = (const StCaptureFrame *) p;

  switch (f->type)
    {
    case ST_CAPTURE_SAMPLE:
      {
        const StCaptureSample *s = (const StCaptureSample *) p;
        if (len < sizeof *s)
          return bad_frame (error, ev->offset, f->type,
                            "frame too short for a sample");
        if ((size_t) s->n_addrs > (len - sizeof *s) / 8)
          return bad_frame (error, ev->offset, f->type,
                            "address count overflows the frame");
        ev->kind = ST_EVENT_SAMPLE;
        ev->tid = s->tid;
        /* Frames sit at 8-aligned offsets and the input keeps that.  */
        ev->sample.ips = (const uint64_t *) (p + sizeof *s);
        ev->sample.n_ips = s->n_addrs;
        return 1;
      }

    case ST_CAPTURE_STACK_USER:
      return parse_stack_user (r, p, len, ev, error);

    case ST_CAPTURE_MAP:
      {
        const StCaptureMap *m = (const StCaptureMap *) p;
        const char *name = (const char *) p + sizeof *m;
        const char *end = (const char *) p + len;
        const char *nul;

        if (len < sizeof *m)
          return bad_frame (error, ev->offset, f->type,
                            "frame too short for a mapping");
        nul = memchr (name, '\0', end - name);
        if (nul == NULL)
          return bad_frame (error, ev->offset, f->type,
                            "file name not NUL-terminated within the frame");
        ev->kind = ST_EVENT_MAP;
        ev->map.start = m->start;
        ev->map.end = m->end;
        ev->map.pgoff = m->offset;
        ev->map.inode = m->inode;
        ev->map.prot = 0;
        ev->map.exec_known = false;
        ev->map.filename = name;
        parse_build_id (ev, nul + 1, end);
        return 1;
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
        return 1;
      }

    case ST_CAPTURE_FORK:
      {
        const StCaptureFork *fk = (const StCaptureFork *) p;
        if (len < sizeof *fk)
          return bad_frame (error, ev->offset, f->type,
                            "frame too short for a fork");
        ev->kind = ST_EVENT_FORK;
        ev->fork.parent_pid = ev->pid;
        ev->fork.parent_tid = ev->pid;
        ev->pid = fk->child_pid;
        ev->tid = fk->child_pid;
        return 1;
      }

    case ST_CAPTURE_EXIT:
      ev->kind = ST_EVENT_EXIT;
      return 1;

    default:
      ev->kind = ST_EVENT_OTHER;
      return 1;
    }
}

int
st_capture_reader_next (StCaptureReader *r, StEvent *ev, GError **error)
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
      g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                   "offset %" G_GUINT64_FORMAT ": input ended inside a "
                   "capture frame header (%zu of 24 bytes)", offset, avail);
      return -1;
    }

  const StCaptureFrame *f = (const StCaptureFrame *) p;
  size_t len = f->len;
  unsigned type = f->type;

  if (len < ST_CAPTURE_FRAME_HEADER)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset %" G_GUINT64_FORMAT ": bad capture frame: length "
                   "%zu is shorter than the 24-byte frame header", offset, len);
      return -1;
    }
  if (len % ST_CAPTURE_ALIGN != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
                   "offset %" G_GUINT64_FORMAT ": bad capture frame: length "
                   "%zu is not a multiple of 8", offset, len);
      return -1;
    }

  p = st_input_peek (r->in, len, &avail, &local);
  if (p == NULL)
    {
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return -1;
        }
      g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                   "offset %" G_GUINT64_FORMAT ": input ended inside a "
                   "capture frame of type %u (%zu of %zu bytes)",
                   offset, type, avail, len);
      return -1;
    }

  f = (const StCaptureFrame *) p;
  ev->source = ST_FORMAT_SYSPROF;
  ev->offset = offset;
  ev->pid = f->pid;
  ev->tid = f->pid;
  ev->cpu = f->cpu;
  ev->time = f->time;
  ev->raw = p;
  ev->raw_len = len;

  if (parse_frame (r, p, len, ev, error) < 0)
    return -1;

  /* Consuming does not move the buffer: P stays valid until the next
     peek, i.e. the next call.  */
  st_input_consume (r->in, len);
  return 1;
}
