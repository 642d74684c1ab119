/* Damage reporting (format/damage.c): what a reader's owner is told
   about damaged input and what is consumed.

   st_damage_report: without a handler the damage is an error with the
   given code and message; with one, the handler sees exactly the action,
   offset, size and message, once.  st_damage_resynchronize: over inputs
   of hand-placed garbage and a marker where the next frame starts (read
   through a pipe in odd chunks and through a mapped file): how many
   bytes are skipped, from where to where, what the message says (to the
   next frame, to the end, to a limit, when the owner stops the run while
   the input stalls or while the garbage goes on), and that nothing past
   the marker or the limit is consumed.  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "format/damage.h"
#include "format/input.h"
#include "util/domain.h"

#include "test-io.h"

/* --- a handler that keeps every damage -------------------------------- */

typedef struct
{
  StDamageAction action;
  uint64_t offset;
  uint64_t n_bytes;
  char *message;
  const char *message_ptr;
} Seen;

typedef struct
{
  GArray *seen;   /* Seen */
} Log;

static void
log_damage (const StDamage *d, void *user)
{
  Log *log = user;
  Seen s = { d->action, d->offset, d->n_bytes, g_strdup (d->message),
             d->message };

  g_array_append_val (log->seen, s);
}

static void
log_init (Log *log, StDamageHandler *h)
{
  log->seen = g_array_new (FALSE, TRUE, sizeof (Seen));
  h->func = log_damage;
  h->user = log;
}

static void
log_clear (Log *log)
{
  for (guint i = 0; i < log->seen->len; i++)
    g_free (g_array_index (log->seen, Seen, i).message);
  g_array_free (log->seen, TRUE);
}

static const Seen *
seen_at (const Log *log, guint i)
{
  g_assert_cmpuint (i, <, log->seen->len);
  return &g_array_index (log->seen, Seen, i);
}

/* --- st_damage_report --------------------------------------------------- */

static void
test_report_without_handler (void)
{
  StDamageHandler empty = { NULL, NULL };
  GError *error = NULL;

  g_assert_false (st_damage_report (NULL, ST_DAMAGE_DROPPED, 48, 16,
                                    ST_ERROR_FORMAT, "offset 48: bad MAP",
                                    &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_FORMAT);
  g_assert_cmpstr (error->message, ==, "offset 48: bad MAP");
  g_clear_error (&error);

  /* A handler without a function is no handler; the code is the
     caller's.  */
  g_assert_false (st_damage_report (&empty, ST_DAMAGE_TRUNCATED, 0, 3,
                                    ST_ERROR_TRUNCATED, "offset 0: cut",
                                    &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_TRUNCATED);
  g_assert_cmpstr (error->message, ==, "offset 0: cut");
  g_clear_error (&error);

  /* No GError wanted: still FALSE.  */
  g_assert_false (st_damage_report (NULL, ST_DAMAGE_PASSED, 0, 0,
                                    ST_ERROR_FORMAT, "x", NULL));
}

static void
test_report_to_handler (void)
{
  static const char why[] = "offset 4096: FORK frame of 16 bytes";
  StDamageHandler h;
  GError *error = NULL;
  Log log;

  log_init (&log, &h);
  for (StDamageAction a = ST_DAMAGE_PASSED; a < ST_DAMAGE_N; a++)
    g_assert_true (st_damage_report (&h, a, 4096 + a, G_MAXUINT64 - a,
                                     ST_ERROR_FORMAT, why, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (log.seen->len, ==, ST_DAMAGE_N);
  for (StDamageAction a = ST_DAMAGE_PASSED; a < ST_DAMAGE_N; a++)
    {
      const Seen *s = seen_at (&log, a);

      g_assert_cmpint (s->action, ==, a);
      g_assert_cmpuint (s->offset, ==, 4096 + a);
      g_assert_cmpuint (s->n_bytes, ==, G_MAXUINT64 - a);
      /* The caller's message itself, not a copy with something added.  */
      g_assert_true (s->message_ptr == why);
    }
  log_clear (&log);
}

static void
test_action_names (void)
{
  g_assert_cmpstr (st_damage_action_name (ST_DAMAGE_PASSED), ==,
                   "passed on unchanged");
  g_assert_cmpstr (st_damage_action_name (ST_DAMAGE_DROPPED), ==, "dropped");
  g_assert_cmpstr (st_damage_action_name (ST_DAMAGE_SKIPPED), ==, "skipped");
  g_assert_cmpstr (st_damage_action_name (ST_DAMAGE_TRUNCATED), ==,
                   "cut off");
  g_assert_cmpstr (st_damage_action_name (ST_DAMAGE_N), ==, "?");
  g_assert_cmpstr (st_damage_action_name ((StDamageAction) 1000), ==, "?");
}

/* --- st_damage_resynchronize ------------------------------------------ */

/* A frame starts where the input shows "FRAME!!!" next.  */
static const char marker[8] = { 'F', 'R', 'A', 'M', 'E', '!', '!', '!' };

typedef struct
{
  StInput *in;
  guint calls;
} Probe;

static gboolean
marker_here (void *user)
{
  Probe *p = user;
  size_t avail = 0;
  const uint8_t *b = st_input_peek (p->in, 8, &avail, NULL);

  p->calls++;
  return b != NULL && memcmp (b, marker, 8) == 0;
}

/* LEN bytes of garbage (0x5a) with the marker at each of the N_AT
   offsets AT.  */
static GBytes *
garbage_with_markers (size_t len, const size_t *at, guint n_at)
{
  uint8_t *b = g_malloc (len);

  memset (b, 0x5a, len);
  for (guint i = 0; i < n_at; i++)
    memcpy (b + at[i], marker, 8);
  return g_bytes_new_take (b, len);
}

typedef struct
{
  gboolean ok;
  GError *error;
  uint64_t end_offset;        /* input offset afterwards */
  Log log;
} Resync;

/* Consumes FIRST bytes (the damaged frame's header, as a reader has),
   then resynchronizes from OFFSET with LIMIT and STEP.  */
static void
resync (GBytes *bytes, gboolean via_pipe, size_t first, uint64_t offset,
        uint64_t limit, size_t step, Resync *r)
{
  Source src;
  StDamageHandler h;
  Probe probe = { 0 };
  GError *error = NULL;

  memset (r, 0, sizeof *r);
  log_init (&r->log, &h);
  source_open (&src, bytes, via_pipe);
  probe.in = st_input_new (src.fd);
  if (first > 0)
    g_assert_true (st_input_skip (probe.in, first, &error));
  g_assert_no_error (error);
  r->ok = st_damage_resynchronize (&h, probe.in, offset, limit, step,
                                   marker_here, &probe,
                                   "offset 8: frame of length 7",
                                   &r->error);
  r->end_offset = st_input_offset (probe.in);
  st_input_free (probe.in);
  source_close (&src);
}

static void
resync_clear (Resync *r)
{
  g_clear_error (&r->error);
  log_clear (&r->log);
}

static void
test_resync_to_next_frame (void)
{
  /* A reader read a bad 8-byte header at 8 (after 8 good bytes), then
     garbage up to the marker at 40.  */
  static const size_t at[] = { 40, 56 };
  GBytes *bytes = garbage_with_markers (72, at, 2);

  for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
    {
      Resync r;
      const Seen *s;

      resync (bytes, via_pipe, 16, 8, G_MAXUINT64, 8, &r);
      g_assert_no_error (r.error);
      g_assert_true (r.ok);
      /* Stopped at the first marker, not consumed.  */
      g_assert_cmpuint (r.end_offset, ==, 40);
      g_assert_cmpuint (r.log.seen->len, ==, 1);
      s = seen_at (&r.log, 0);
      g_assert_cmpint (s->action, ==, ST_DAMAGE_SKIPPED);
      g_assert_cmpuint (s->offset, ==, 8);
      g_assert_cmpuint (s->n_bytes, ==, 32);
      g_assert_cmpstr (s->message, ==,
                       "offset 8: frame of length 7; skipped 32 bytes from "
                       "offset 8 to offset 40");
      resync_clear (&r);
    }
  g_bytes_unref (bytes);
}

static void
test_resync_moves_at_least_one_step (void)
{
  /* The marker right where the damaged frame was: it is not taken as the
     next frame (that would loop), the next one is.  */
  static const size_t at[] = { 0, 16 };
  GBytes *bytes = garbage_with_markers (32, at, 2);
  Resync r;

  resync (bytes, FALSE, 0, 0, G_MAXUINT64, 8, &r);
  g_assert_true (r.ok);
  g_assert_cmpuint (r.end_offset, ==, 16);
  g_assert_cmpuint (seen_at (&r.log, 0)->n_bytes, ==, 16);
  resync_clear (&r);
  g_bytes_unref (bytes);
}

static void
test_resync_to_end (void)
{
  /* No marker: everything to the end, whether the end is on a step or
     not (44 = 5 steps of 8 and 4 bytes).  */
  static const size_t lens[] = { 40, 44 };

  for (guint i = 0; i < G_N_ELEMENTS (lens); i++)
    for (int via_pipe = 0; via_pipe <= 1; via_pipe++)
      {
        GBytes *bytes = garbage_with_markers (lens[i], NULL, 0);
        g_autofree char *want =
          g_strdup_printf ("offset 8: frame of length 7; skipped %zu bytes "
                           "from offset 8 to the end at %zu (garbage after "
                           "the last valid frame)", lens[i] - 8, lens[i]);
        Resync r;

        resync (bytes, via_pipe, 8, 8, G_MAXUINT64, 8, &r);
        g_assert_no_error (r.error);
        g_assert_true (r.ok);
        g_assert_cmpuint (r.end_offset, ==, lens[i]);
        g_assert_cmpuint (seen_at (&r.log, 0)->n_bytes, ==, lens[i] - 8);
        g_assert_cmpstr (seen_at (&r.log, 0)->message, ==, want);
        resync_clear (&r);
        g_bytes_unref (bytes);
      }
}

static void
test_resync_to_limit (void)
{
  /* The data section ends at LIMIT (feature sections follow): the skip
     stops there, even off a step, and never looks at a marker at the
     limit itself.  */
  static const size_t at[] = { 24 };
  static const uint64_t limits[] = { 24, 20 };
  GBytes *bytes = garbage_with_markers (64, at, 1);

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autofree char *want =
        g_strdup_printf ("offset 8: frame of length 7; skipped %" G_GUINT64_FORMAT
                         " bytes from offset 0 to the end at %" G_GUINT64_FORMAT
                         " (garbage after the last valid frame)", limits[i],
                         limits[i]);
      Resync r;

      resync (bytes, TRUE, 0, 0, limits[i], 8, &r);
      g_assert_true (r.ok);
      g_assert_cmpuint (r.end_offset, ==, limits[i]);
      g_assert_cmpstr (seen_at (&r.log, 0)->message, ==, want);
      resync_clear (&r);
    }
  g_bytes_unref (bytes);
}

static void
test_resync_step_one (void)
{
  /* perf streams need not keep 8-byte records: step 1 finds a marker at
     an odd offset.  */
  static const size_t at[] = { 13 };
  GBytes *bytes = garbage_with_markers (40, at, 1);
  Resync r;

  resync (bytes, TRUE, 3, 3, G_MAXUINT64, 1, &r);
  g_assert_true (r.ok);
  g_assert_cmpuint (r.end_offset, ==, 13);
  g_assert_cmpuint (seen_at (&r.log, 0)->offset, ==, 3);
  g_assert_cmpuint (seen_at (&r.log, 0)->n_bytes, ==, 10);
  resync_clear (&r);
  g_bytes_unref (bytes);
}

static void
test_resync_without_handler (void)
{
  /* Strict: an error naming the damage, nothing consumed.  */
  static const size_t at[] = { 16 };
  GBytes *bytes = garbage_with_markers (32, at, 1);
  Source src;
  Probe probe = { 0 };
  GError *error = NULL;

  source_open (&src, bytes, FALSE);
  probe.in = st_input_new (src.fd);
  g_assert_false (st_damage_resynchronize (NULL, probe.in, 0, G_MAXUINT64, 8,
                                           marker_here, &probe,
                                           "offset 0: bad frame", &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_FORMAT);
  g_assert_cmpstr (error->message, ==, "offset 0: bad frame");
  g_assert_cmpuint (st_input_offset (probe.in), ==, 0);
  g_assert_cmpuint (probe.calls, ==, 0);
  g_clear_error (&error);
  st_input_free (probe.in);
  source_close (&src);
  g_bytes_unref (bytes);
}

static gboolean
stop_now (void *user)
{
  guint *calls = user;

  (*calls)++;
  return FALSE;
}

static void
test_resync_stopped_while_stalled (void)
{
  /* 24 bytes of garbage, and the writer keeps the pipe open: the owner
     stops the run while the input waits.  The skipped bytes are still
     reported, then the stop.  */
  uint8_t garbage[24];
  int fds[2];
  guint waits = 0;
  StDamageHandler h;
  Probe probe = { 0 };
  GError *error = NULL;
  Log log;

  memset (garbage, 0x5a, sizeof garbage);
  g_assert_no_errno (pipe (fds));
  g_assert_cmpint (write (fds[1], garbage, sizeof garbage), ==,
                   sizeof garbage);
  log_init (&log, &h);
  probe.in = st_input_new (fds[0]);
  st_input_set_wait_func (probe.in, 10, stop_now, &waits);
  g_assert_false (st_damage_resynchronize (&h, probe.in, 0, G_MAXUINT64, 8,
                                           marker_here, &probe,
                                           "offset 0: bad frame", &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_STOPPED);
  g_assert_cmpstr (error->message, ==,
                   "stopped while skipping damaged input at offset 24");
  g_assert_cmpuint (waits, >=, 1);
  g_assert_cmpuint (log.seen->len, ==, 1);
  g_assert_cmpuint (seen_at (&log, 0)->n_bytes, ==, 24);
  g_assert_cmpstr (seen_at (&log, 0)->message, ==,
                   "offset 0: bad frame; skipped 24 bytes from offset 0 to "
                   "offset 24, where the run was stopped (no valid frame "
                   "found in them)");
  g_clear_error (&error);
  log_clear (&log);
  st_input_free (probe.in);
  close (fds[0]);
  close (fds[1]);
}

typedef struct
{
  StInput *in;
  guint calls;
  uint64_t at_offset;
} StopAfter;

static gboolean
stop_and_note (void *user)
{
  StopAfter *s = user;

  s->calls++;
  s->at_offset = st_input_offset (s->in);
  return FALSE;
}

static void
test_resync_stopped_in_endless_garbage (void)
{
  /* Garbage that never stalls (a mapped file of 3 MiB): the owner is
     asked every MiB, and the first refusal ends the skip there.  */
  const size_t len = 3u << 20;
  GBytes *bytes = garbage_with_markers (len, NULL, 0);
  Source src;
  StDamageHandler h;
  Probe probe = { 0 };
  StopAfter stop = { 0 };
  GError *error = NULL;
  Log log;

  log_init (&log, &h);
  source_open (&src, bytes, FALSE);
  probe.in = stop.in = st_input_new (src.fd);
  st_input_set_wait_func (probe.in, 10, stop_and_note, &stop);
  g_assert_false (st_damage_resynchronize (&h, probe.in, 0, G_MAXUINT64, 8,
                                           marker_here, &probe,
                                           "offset 0: bad frame", &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_STOPPED);
  g_assert_cmpuint (stop.calls, ==, 1);
  g_assert_cmpuint (stop.at_offset, ==, 1u << 20);
  g_assert_cmpuint (st_input_offset (probe.in), ==, 1u << 20);
  g_assert_cmpuint (seen_at (&log, 0)->n_bytes, ==, 1u << 20);
  g_assert_nonnull (strstr (seen_at (&log, 0)->message,
                            "to offset 1048576, where the run was stopped"));
  g_clear_error (&error);
  log_clear (&log);
  st_input_free (probe.in);
  source_close (&src);
  g_bytes_unref (bytes);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/damage/report-without-handler",
                   test_report_without_handler);
  g_test_add_func ("/damage/report-to-handler", test_report_to_handler);
  g_test_add_func ("/damage/action-names", test_action_names);
  g_test_add_func ("/damage/resync-to-next-frame", test_resync_to_next_frame);
  g_test_add_func ("/damage/resync-moves-at-least-one-step",
                   test_resync_moves_at_least_one_step);
  g_test_add_func ("/damage/resync-to-end", test_resync_to_end);
  g_test_add_func ("/damage/resync-to-limit", test_resync_to_limit);
  g_test_add_func ("/damage/resync-step-one", test_resync_step_one);
  g_test_add_func ("/damage/resync-without-handler",
                   test_resync_without_handler);
  g_test_add_func ("/damage/resync-stopped-while-stalled",
                   test_resync_stopped_while_stalled);
  g_test_add_func ("/damage/resync-stopped-in-endless-garbage",
                   test_resync_stopped_in_endless_garbage);
  return g_test_run ();
}
