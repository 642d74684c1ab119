#include "config.h"

#include "damage-log.h"

void
damage_log_record (const StDamage *d, void *user)
{
  DamageLog *log = user;

  if (log->n++ == 0)
    {
      log->action = d->action;
      log->offset = d->offset;
      log->n_bytes = d->n_bytes;
      log->message = g_strdup (d->message);
    }
}
