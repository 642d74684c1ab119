/* Damaged input: what a reader tells its owner when it meets a frame or
   record it cannot use, and what it did about it.  A reader without a
   damage handler treats the first damage as an error instead (its next()
   returns -1), which is what strict users and the unit tests want.  */
#ifndef ST_DAMAGE_H
#define ST_DAMAGE_H

#include <glib.h>
#include <stdint.h>

#include "format/input.h"

typedef enum
{
  /* A well-framed frame/record with inconsistent content, passed on
     unchanged as an event of kind ST_EVENT_OTHER (not interpreted).  */
  ST_DAMAGE_PASSED,
  /* A well-framed frame with inconsistent content, left out.  */
  ST_DAMAGE_DROPPED,
  /* Bad framing: the bytes up to the next plausible frame/record
     header were skipped.  */
  ST_DAMAGE_SKIPPED,
  /* The input ended inside a header or frame/record.  */
  ST_DAMAGE_TRUNCATED,
  ST_DAMAGE_N
} StDamageAction;

typedef struct
{
  StDamageAction action;
  uint64_t offset;      /* where the damage starts */
  uint64_t n_bytes;     /* bytes passed on, dropped, skipped or cut off */
  const char *message;  /* "offset N: ...", complete for the user */
} StDamage;

typedef void (*StDamageFunc) (const StDamage *damage, void *user);

typedef struct
{
  StDamageFunc func;
  void *user;
} StDamageHandler;

/* Reports damage ACTION at OFFSET of N_BYTES with the message WHY, which
   already names the offset.  With no handler, sets ERROR (CODE) and
   returns FALSE: the caller stops.  With one, calls it and returns TRUE:
   the caller goes on.  */
gboolean st_damage_report (const StDamageHandler *h, StDamageAction action,
                           uint64_t offset, uint64_t n_bytes, int code,
                           const char *why, GError **error);

/* After a framing error at OFFSET (WHY), where the next frame starts is
   unknown: consumes IN in steps of STEP bytes (8: frames and records are
   8-byte multiples; 1 for perf streams that are not), up to input offset
   LIMIT (G_MAXUINT64: the end), until STARTS_HERE (USER) says a frame
   plausibly starts at the position; then reports the skipped bytes, from
   which offset to which.  Without a handler, or on a read error, returns
   FALSE with ERROR.  */
gboolean st_damage_resynchronize (const StDamageHandler *h, StInput *in,
                                  uint64_t offset, uint64_t limit,
                                  size_t step,
                                  gboolean (*starts_here) (void *user),
                                  void *user, const char *why,
                                  GError **error);

const char *st_damage_action_name (StDamageAction action);

#endif /* ST_DAMAGE_H */
