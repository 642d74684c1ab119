#include "config.h"

#include "format/damage.h"
#include "util/domain.h"

gboolean
st_damage_report (const StDamageHandler *h, StDamageAction action,
                  uint64_t offset, uint64_t n_bytes, int code,
                  const char *why, GError **error)
{
  if (h == NULL || h->func == NULL)
    {
      g_set_error_literal (error, ST_ERROR, code, why);
      return FALSE;
    }
  StDamage d = { action, offset, n_bytes, why };
  h->func (&d, h->user);
  return TRUE;
}

/* While skipping, the owner is asked whether to go on every this many
   bytes.  */
#define ST_DAMAGE_CHECK_STEP (1u << 20)

gboolean
st_damage_resynchronize (const StDamageHandler *h, StInput *in,
                         uint64_t offset, uint64_t limit, size_t step,
                         gboolean (*starts_here) (void *user), void *user,
                         const char *why, GError **error)
{
  size_t avail = 0;
  GError *local = NULL;
  gboolean stopped = FALSE;
  uint64_t next_check = offset + ST_DAMAGE_CHECK_STEP;

  if (h == NULL || h->func == NULL)
    return st_damage_report (NULL, ST_DAMAGE_SKIPPED, offset, 0,
                             ST_ERROR_FORMAT, why, error);
  for (;;)
    {
      uint64_t at = st_input_offset (in);
      size_t n = (size_t) MIN ((uint64_t) step, limit - at);

      if (n == 0)
        break;
      /* Garbage that never ends must not hide a stop request, nor the
         damage it is.  */
      if (at >= next_check && (next_check = at + ST_DAMAGE_CHECK_STEP)
          && !st_input_check (in))
        {
          stopped = TRUE;
          break;
        }
      if (st_input_peek (in, n, &avail, &local) == NULL)
        {
          if (g_error_matches (local, ST_ERROR, ST_ERROR_STOPPED))
            {
              /* Stopped while the garbage stalled: still damage.  */
              g_clear_error (&local);
              stopped = TRUE;
              break;
            }
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          st_input_consume (in, avail);
          break;
        }
      st_input_consume (in, n);
      if (n == step && at + n < limit && starts_here (user))
        break;
    }

  uint64_t to = st_input_offset (in);
  gboolean at_end = !stopped
    && (to >= limit || st_input_peek (in, 8, &avail, NULL) == NULL);
  g_autofree char *msg =
    g_strdup_printf ("%s; skipped %" G_GUINT64_FORMAT " bytes from offset %"
                     G_GUINT64_FORMAT " to %s %" G_GUINT64_FORMAT "%s", why,
                     to - offset, offset, at_end ? "the end at" : "offset",
                     to, stopped ? ", where the run was stopped (no valid "
                     "frame found in them)" : at_end ? " (garbage after the "
                     "last valid frame)" : "");
  if (!st_damage_report (h, ST_DAMAGE_SKIPPED, offset, to - offset,
                         ST_ERROR_FORMAT, msg, error))
    return FALSE;
  if (stopped)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_STOPPED,
                   "stopped while skipping damaged input at offset %"
                   G_GUINT64_FORMAT, to);
      return FALSE;
    }
  return TRUE;
}

const char *
st_damage_action_name (StDamageAction action)
{
  static const char *const names[ST_DAMAGE_N] = {
    "passed on unchanged", "dropped", "skipped", "cut off"
  };
  return action < ST_DAMAGE_N ? names[action] : "?";
}
