#include "config.h"

#include "kernel-join.h"

struct StKernelJoin
{
  StEvent *held;      /* the copy in BUF, or NULL */
  uint8_t *buf;
  size_t cap;
};

StKernelJoin *
st_kernel_join_new (void)
{
  return g_new0 (StKernelJoin, 1);
}

void
st_kernel_join_free (StKernelJoin *j)
{
  if (j == NULL)
    return;
  g_free (j->buf);
  g_free (j);
}

gboolean
st_kernel_join_is_kernel_part (const StEvent *ev)
{
  if (ev->kind != ST_EVENT_SAMPLE || ev->source != ST_FORMAT_SYSPROF
      || ev->sample.n_ips == 0 || ev->sample.ips[0] != ST_CONTEXT_KERNEL)
    return FALSE;
  for (uint32_t i = 0; i < ev->sample.n_ips; i++)
    if (ev->sample.ips[i] == ST_CONTEXT_USER)
      return FALSE;
  return TRUE;
}

void
st_kernel_join_hold (StKernelJoin *j, const StEvent *ev)
{
  size_t size = st_event_copy_size (ev, NULL, NULL);

  if (size > j->cap)
    {
      j->cap = MAX (size, 2 * j->cap);
      g_free (j->buf);
      j->buf = g_malloc (j->cap);
    }
  j->held = st_event_copy_to (ev, j->buf, NULL, NULL);
}

const StEvent *
st_kernel_join_held (const StKernelJoin *j)
{
  return j->held;
}

const StEvent *
st_kernel_join_take (StKernelJoin *j, const StEvent *ev, StEvent *merged)
{
  const StEvent *h = j->held;

  *merged = *ev;
  if (h == NULL || h->pid != ev->pid || h->tid != ev->tid
      || h->time != ev->time || ev->stack.n_callchain != 0)
    return NULL;
  merged->stack.callchain = h->sample.ips;
  merged->stack.n_callchain = h->sample.n_ips;
  j->held = NULL;
  return h;
}

const StEvent *
st_kernel_join_release (StKernelJoin *j)
{
  const StEvent *h = j->held;

  j->held = NULL;
  return h;
}
