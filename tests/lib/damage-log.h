/* A damage handler for the reader tests: what it saw.  */
#ifndef ST_DAMAGE_LOG_H
#define ST_DAMAGE_LOG_H

#include <glib.h>
#include <stdint.h>

#include "format/damage.h"

/* The count, and the first damage (MESSAGE: free it with g_free).  */
typedef struct
{
  guint n;
  StDamageAction action;
  uint64_t offset;
  uint64_t n_bytes;
  char *message;
} DamageLog;

/* An StDamageFunc; USER is the DamageLog.  */
void damage_log_record (const StDamage *d, void *user);

#endif /* ST_DAMAGE_LOG_H */
