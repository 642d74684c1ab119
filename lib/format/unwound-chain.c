/* The callchain of an unwound raw-stack sample, for perf.data.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "format/unwound-chain.h"

static uint64_t *
chain_room (StUnwoundChain *c, size_t n)
{
  if (n > c->cap)
    {
      c->cap = MAX (n, 2 * c->cap);
      c->ips = g_renew (uint64_t, c->ips, c->cap);
    }
  return c->ips;
}

size_t
st_unwound_chain_build (StUnwoundChain *c, const StEvent *ev,
                        const uint64_t *user, size_t n_user)
{
  size_t n_kernel = ev->stack.callchain != NULL ? ev->stack.n_callchain : 0;
  uint64_t *chain = chain_room (c, n_kernel + 1 + n_user);

  if (n_kernel > 0)
    memcpy (chain, ev->stack.callchain, n_kernel * sizeof (uint64_t));
  chain[n_kernel] = ST_CONTEXT_USER;
  if (n_user > 0)
    memcpy (chain + n_kernel + 1, user, n_user * sizeof (uint64_t));
  return n_kernel + 1 + n_user;
}

void
st_unwound_chain_clear (StUnwoundChain *c)
{
  g_free (c->ips);
  c->ips = NULL;
  c->cap = 0;
}
