#include "config.h"

#include <glib.h>
#include <string.h>

#include "model/event.h"

/* Where a pointer of the copy goes: into the copied frame when it pointed
   into the frame, else into the copy's tail.  */
typedef struct
{
  const StEvent *src;
  uint8_t *raw;         /* the copied frame (or the stable original) */
  uint8_t *tail;        /* next free byte after it */
  StEventStable stable;
  void *user;
} Copier;

static bool
is_stable (StEventStable stable, void *user, const void *ptr, size_t len)
{
  return stable != NULL && ptr != NULL && stable (ptr, len, user);
}

static const void *
relocate (Copier *c, const void *ptr, size_t len)
{
  const uint8_t *p = ptr;

  if (p == NULL)
    return NULL;
  if (c->src->raw != NULL && p >= c->src->raw
      && p + len <= c->src->raw + c->src->raw_len)
    return c->raw + (p - c->src->raw);
  if (is_stable (c->stable, c->user, p, len))
    return p;
  void *dst = c->tail;
  memcpy (dst, p, len);
  c->tail += (len + 7) & ~(size_t) 7;
  return dst;
}

static size_t
padded (size_t len)
{
  return (len + 7) & ~(size_t) 7;
}

/* Bytes a pointed-to block needs in a copy: none when it lies in the
   frame or in stable memory.  */
static size_t
need (const StEvent *ev, StEventStable stable, void *user, const void *ptr,
      size_t len)
{
  const uint8_t *p = ptr;

  if (p == NULL || (ev->raw != NULL && p >= ev->raw
                    && p + len <= ev->raw + ev->raw_len)
      || is_stable (stable, user, p, len))
    return 0;
  return padded (len);
}

size_t
st_event_copy_size (const StEvent *ev, StEventStable stable, void *user)
{
  bool raw_stable = is_stable (stable, user, ev->raw, ev->raw_len);
  size_t extra = raw_stable ? 0 : padded (ev->raw_len);

  /* Room for anything that does not point into the frame.  */
  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      extra += need (ev, stable, user, ev->sample.ips,
                     ev->sample.n_ips * sizeof (uint64_t));
      break;
    case ST_EVENT_STACK_USER:
      extra += need (ev, stable, user, ev->stack.callchain,
                     ev->stack.n_callchain * sizeof (uint64_t))
               + need (ev, stable, user, ev->stack.user_callchain,
                       ev->stack.n_user_callchain * sizeof (uint64_t))
               + need (ev, stable, user, ev->stack.regs,
                       ev->stack.n_regs * sizeof (uint64_t))
               + need (ev, stable, user, ev->stack.stack,
                       ev->stack.stack_size);
      break;
    case ST_EVENT_MAP:
      if (ev->map.filename)
        extra += need (ev, stable, user, ev->map.filename,
                       strlen (ev->map.filename) + 1);
      break;
    case ST_EVENT_PROCESS:
      if (ev->process.comm)
        extra += need (ev, stable, user, ev->process.comm,
                       strlen (ev->process.comm) + 1);
      break;
    default:
      break;
    }
  return padded (sizeof (StEvent)) + extra;
}

StEvent *
st_event_copy_to (const StEvent *ev, void *dst, StEventStable stable,
                  void *user)
{
  StEvent *copy = dst;
  bool raw_stable = is_stable (stable, user, ev->raw, ev->raw_len);
  Copier c = { ev, (uint8_t *) copy + padded (sizeof *copy), NULL, stable,
               user };

  *copy = *ev;
  if (raw_stable)
    {
      /* Pointers into the frame stay where they are.  */
      c.raw = (uint8_t *) ev->raw;
      c.tail = (uint8_t *) copy + padded (sizeof *copy);
    }
  else
    {
      if (ev->raw_len > 0)
        memcpy (c.raw, ev->raw, ev->raw_len);
      c.tail = c.raw + padded (ev->raw_len);
      copy->raw = ev->raw_len > 0 ? c.raw : NULL;
    }
  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      copy->sample.ips = relocate (&c, ev->sample.ips,
                                   ev->sample.n_ips * sizeof (uint64_t));
      break;
    case ST_EVENT_STACK_USER:
      copy->stack.callchain =
        relocate (&c, ev->stack.callchain,
                  ev->stack.n_callchain * sizeof (uint64_t));
      copy->stack.user_callchain =
        relocate (&c, ev->stack.user_callchain,
                  ev->stack.n_user_callchain * sizeof (uint64_t));
      copy->stack.regs = relocate (&c, ev->stack.regs,
                                   ev->stack.n_regs * sizeof (uint64_t));
      copy->stack.stack = relocate (&c, ev->stack.stack, ev->stack.stack_size);
      break;
    case ST_EVENT_MAP:
      if (ev->map.filename)
        copy->map.filename = relocate (&c, ev->map.filename,
                                       strlen (ev->map.filename) + 1);
      break;
    case ST_EVENT_PROCESS:
      if (ev->process.comm)
        copy->process.comm = relocate (&c, ev->process.comm,
                                       strlen (ev->process.comm) + 1);
      break;
    default:
      break;
    }
  return copy;
}

StEvent *
st_event_copy (const StEvent *ev)
{
  return st_event_copy_to (ev, g_malloc (st_event_copy_size (ev, NULL, NULL)),
                           NULL, NULL);
}

const char *
st_event_kind_name (StEventKind kind)
{
  switch (kind)
    {
    case ST_EVENT_OTHER: return "other";
    case ST_EVENT_SAMPLE: return "sample";
    case ST_EVENT_STACK_USER: return "stack-user";
    case ST_EVENT_MAP: return "map";
    case ST_EVENT_PROCESS: return "process";
    case ST_EVENT_FORK: return "fork";
    case ST_EVENT_EXIT: return "exit";
    case ST_EVENT_LOST: return "lost";
    }
  return "unknown";
}

const char *
st_format_name (StFormat format)
{
  switch (format)
    {
    case ST_FORMAT_AUTO: return "auto";
    case ST_FORMAT_SYSPROF: return "sysprof";
    case ST_FORMAT_PERF: return "perf";
    }
  return "unknown";
}
