#include "config.h"

#include "format/damage.h"
#include "format/domain.h"

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

const char *
st_damage_action_name (StDamageAction action)
{
  static const char *const names[ST_DAMAGE_N] = {
    "passed on unchanged", "dropped", "skipped", "cut off"
  };
  return action < ST_DAMAGE_N ? names[action] : "?";
}
