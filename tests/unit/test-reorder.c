/* Unit tests: time order per FINISHED_ROUND window, and event copies.  */
#include "config.h"

#include <string.h>

#include "reorder.h"

typedef struct
{
  GString *processed;
  GString *emitted;
  int not_ready;        /* this pid must wait (0: none) */
  GString *forced;
  int unready;          /* with a READY function: this pid's result is
                           not ready (0: all are) */
} Log;

static void *
process (const StEvent *ev, gboolean force, void *user)
{
  Log *log = user;

  if (ev->pid == log->not_ready && !force)
    return ST_REORDER_LATER;
  if (ev->pid == log->not_ready)
    g_string_append_printf (log->forced, "%d ", ev->pid);
  g_string_append_printf (log->processed, "%d ", ev->pid);
  return GINT_TO_POINTER (ev->pid + 1000);
}

static void
emit (const StEvent *ev, void *result, void *user)
{
  Log *log = user;
  g_assert_cmpint (GPOINTER_TO_INT (result), ==, ev->pid + 1000);
  g_string_append_printf (log->emitted, "%d ", ev->pid);
}

static void
push (StReorder *r, int id, int64_t time, gboolean round_end)
{
  StEvent ev = { 0 };
  ev.pid = id;
  ev.time = time;
  ev.round_end = round_end;
  st_reorder_push (r, &ev);
}

/* Two CPU buffers written one after the other within a round, then a
   round end (watermark 40 for next time); 5 is older than the watermark
   (still sorted in), 7 ends the round that releases everything <= 40.  */
static void
push_two_rounds (StReorder *r)
{
  push (r, 1, 30, FALSE);
  push (r, 2, 40, FALSE);
  push (r, 3, 10, FALSE);
  push (r, 4, 0, TRUE);
  push (r, 5, 35, FALSE);
  push (r, 6, 50, FALSE);
  push (r, 7, 0, TRUE);
}

static Log
log_new (void)
{
  return (Log) { g_string_new (""), g_string_new (""), 0, g_string_new ("") };
}

static void
log_clear (Log *log)
{
  g_string_set_size (log->processed, 0);
  g_string_set_size (log->emitted, 0);
}

static void
log_free (Log *log)
{
  g_string_free (log->processed, TRUE);
  g_string_free (log->emitted, TRUE);
  g_string_free (log->forced, TRUE);
}

static void
run (gboolean time_order_out, const char *want_processed,
     const char *want_emitted)
{
  Log log = log_new ();
  StReorder *r = st_reorder_new (process, emit, &log, 1 << 20,
                                 time_order_out);

  /* Two CPU buffers written one after the other within a round.  */
  push (r, 1, 30, FALSE);
  push (r, 2, 40, FALSE);
  push (r, 3, 10, FALSE);
  push (r, 4, 0, TRUE);      /* round end: watermark 40 for next time */
  g_assert_cmpstr (log.processed->str, ==, "");
  push (r, 5, 35, FALSE);    /* older than the watermark: still sorted in */
  push (r, 6, 50, FALSE);
  push (r, 7, 0, TRUE);      /* releases everything <= 40 */
  push (r, 8, 45, FALSE);
  st_reorder_flush (r);
  g_assert_cmpstr (log.processed->str, ==, want_processed);
  g_assert_cmpstr (log.emitted->str, ==, want_emitted);
  st_reorder_free (r);
  log_free (&log);
}

static void
test_input_order_out (void)
{
  /* Event 4 (no time) keeps the newest time seen before it, 40.  */
  run (FALSE, "3 1 5 2 4 8 6 7 ", "1 2 3 4 5 6 7 8 ");
}

static void
test_time_order_out (void)
{
  run (TRUE, "3 1 5 2 4 8 6 7 ", "3 1 5 2 4 8 6 7 ");
}

static gboolean
ready (void *result, void *user)
{
  Log *log = user;

  return GPOINTER_TO_INT (result) != log->unready + 1000;
}

/* With a READY function, what is processed is emitted up to the first
   result not ready, the rest when it is or when forced: in input
   order, and in time order.  */
static void
emit_when_ready (gboolean time_order_out, int unready,
                 const char *want_before, const char *want_forced)
{
  Log log = log_new ();
  StReorder *r = st_reorder_new (process, emit, &log, 1 << 20,
                                 time_order_out);

  st_reorder_set_emit_when_ready (r, ready);
  log.unready = unready;
  push_two_rounds (r);
  push (r, 8, 45, FALSE);
  g_assert_cmpstr (log.processed->str, ==, "3 1 5 2 4 ");
  g_assert_cmpstr (log.emitted->str, ==, want_before);
  g_string_set_size (log.emitted, 0);
  st_reorder_emit_processed (r);
  g_assert_cmpstr (log.emitted->str, ==, want_forced);
  g_string_set_size (log.emitted, 0);
  st_reorder_flush (r);
  g_assert_cmpstr (log.emitted->str, ==, time_order_out ? "8 6 7 "
                                                        : "6 7 8 ");
  st_reorder_free (r);
  log_free (&log);
}

static void
test_emit_when_ready (void)
{
  emit_when_ready (FALSE, 2, "1 ", "2 3 4 5 ");
  emit_when_ready (TRUE, 5, "3 1 ", "5 2 4 ");
  /* All ready: as without the function.  */
  emit_when_ready (FALSE, 0, "1 2 3 4 5 ", "");
}

/* READY for the results of events up to Log.unready (a pid), so that a
   long queue of processed events waits for its results.  */
static gboolean
ready_up_to (void *result, void *user)
{
  Log *log = user;

  return GPOINTER_TO_INT (result) - 1000 <= log->unready;
}

/* Many rounds whose times interleave (each round's events released at
   the next round end, some older than the watermark), with the results
   of most events held back: every event is processed once, in the order
   of a window without READY, and emitted in the same order.  Releases
   look from the first event not yet released, past the processed ones
   that wait for their results.  */
static void
test_release_past_waiting (void)
{
  Log held = log_new (), plain = log_new ();
  StReorder *r = st_reorder_new (process, emit, &held, 1 << 24, TRUE);
  StReorder *p = st_reorder_new (process, emit, &plain, 1 << 24, TRUE);
  guint32 seed = 12345;
  int id = 1;

  st_reorder_set_emit_when_ready (r, ready_up_to);
  for (int round = 0; round < 200; round++)
    {
      for (int i = 0; i < 20; i++, id++)
        {
          seed = seed * 1103515245u + 12345u;
          /* Mostly in this round's span, some older. */
          int64_t time = 1000 * round + (int64_t) (seed >> 16) % 1500 - 400;
          push (r, id, MAX (time, 1), FALSE);
          push (p, id, MAX (time, 1), FALSE);
        }
      push (r, id, 0, TRUE);
      push (p, id, 0, TRUE);
      id++;
      /* Results come in, late: up to the events of ten rounds ago.  */
      held.unready = id - 210;
    }
  g_assert_cmpstr (held.processed->str, ==, plain.processed->str);
  held.unready = id;
  st_reorder_flush (r);
  st_reorder_flush (p);
  g_assert_cmpstr (held.processed->str, ==, plain.processed->str);
  g_assert_cmpstr (held.emitted->str, ==, plain.emitted->str);
  /* Each once.  */
  gchar **ids = g_strsplit (g_strstrip (held.processed->str), " ", -1);
  g_assert_cmpuint (g_strv_length (ids), ==, (guint) id - 1);
  g_strfreev (ids);
  st_reorder_free (r);
  st_reorder_free (p);
  log_free (&held);
  log_free (&plain);
}

static void
test_event_copy (void)
{
  uint64_t frame[16];
  uint64_t regs[3] = { 1, 2, 3 };
  StEvent ev = { 0 };

  for (int i = 0; i < 16; i++)
    frame[i] = 100 + i;
  ev.kind = ST_EVENT_STACK_USER;
  ev.raw = (const uint8_t *) frame;
  ev.raw_len = sizeof frame;
  ev.stack.callchain = &frame[2];
  ev.stack.n_callchain = 3;
  ev.stack.regs = regs;          /* outside the frame: copied apart */
  ev.stack.n_regs = 3;
  ev.stack.stack = (const uint8_t *) &frame[8];
  ev.stack.stack_size = 20;

  StEvent *c = st_event_copy (&ev);
  memset (frame, 0, sizeof frame);
  memset (regs, 0, sizeof regs);
  g_assert_cmpuint (((const uint64_t *) c->raw)[0], ==, 100);
  g_assert_true ((const uint8_t *) c->stack.callchain == c->raw + 16);
  g_assert_cmpuint (c->stack.callchain[2], ==, 104);
  g_assert_cmpuint (c->stack.regs[2], ==, 3);
  g_assert_cmpuint (((const uint64_t *) c->stack.stack)[0], ==, 108);
  g_free (c);

  StEvent map = { 0 };
  map.kind = ST_EVENT_MAP;
  map.map.filename = "/usr/lib/libx.so";
  c = st_event_copy (&map);
  g_assert_cmpstr (c->map.filename, ==, "/usr/lib/libx.so");
  g_assert_true (c->map.filename != map.map.filename);
  g_free (c);
}

/* An event that must wait holds back everything released after it (in
   processing order), not what comes before it in input order; resuming
   goes on in the same order as without waiting.  */
static void
test_wait_in_time_order (void)
{
  Log log = log_new ();
  StReorder *r = st_reorder_new (process, emit, &log, 1 << 20, FALSE);

  log.not_ready = 1;
  push_two_rounds (r);      /* releases 3 1 5 2 4 */
  /* 3 is processed, 1 waits: nothing emitted (1 comes first in input
     order), and the rest of the batch waits.  */
  g_assert_cmpstr (log.processed->str, ==, "3 ");
  g_assert_cmpstr (log.emitted->str, ==, "");
  g_assert_true (st_reorder_waiting (r));
  push (r, 8, 45, FALSE);
  push (r, 9, 0, TRUE);      /* releases 8 6 7 9: they queue behind */
  g_assert_cmpstr (log.processed->str, ==, "3 ");
  g_assert_false (st_reorder_resume (r, FALSE));   /* still not ready */
  size_t held = st_reorder_bytes (r);
  g_assert_cmpuint (held, >, 0);

  /* The order of a run that never waited: the first batch (<= 40),
     then the second (<= 50).  */
  log.not_ready = 0;
  g_assert_true (st_reorder_resume (r, FALSE));
  g_assert_cmpstr (log.processed->str, ==, "3 1 5 2 4 8 6 7 9 ");
  g_assert_cmpstr (log.emitted->str, ==, "1 2 3 4 5 6 7 8 9 ");
  g_assert_cmpuint (st_reorder_bytes (r), <, held);
  push (r, 10, 55, FALSE);
  st_reorder_flush (r);
  g_assert_cmpstr (log.processed->str, ==, "3 1 5 2 4 8 6 7 9 10 ");
  g_assert_cmpstr (log.emitted->str, ==, "1 2 3 4 5 6 7 8 9 10 ");
  g_assert_cmpuint (st_reorder_bytes (r), ==, 0);
  st_reorder_free (r);
  log_free (&log);
}

/* Input already in order (a capture): each event is processed when
   pushed, unless one waits; forcing takes the waiting one as it is.  */
static void
test_wait_as_read (void)
{
  Log log = log_new ();
  StReorder *r = st_reorder_new (process, emit, &log, 1 << 20, FALSE);

  st_reorder_set_as_read (r);
  push (r, 1, 30, FALSE);
  push (r, 2, 20, FALSE);    /* no sorting by time: as read */
  g_assert_cmpstr (log.processed->str, ==, "1 2 ");
  g_assert_cmpstr (log.emitted->str, ==, "1 2 ");
  log_clear (&log);

  log.not_ready = 3;
  push (r, 3, 40, FALSE);
  push (r, 4, 10, FALSE);
  push (r, 5, 50, FALSE);
  g_assert_cmpstr (log.processed->str, ==, "");
  g_assert_true (st_reorder_waiting (r));
  /* The cap: 3 goes as it is, the others follow.  */
  g_assert_true (st_reorder_resume (r, TRUE));
  g_assert_cmpstr (log.forced->str, ==, "3 ");
  g_assert_cmpstr (log.processed->str, ==, "3 4 5 ");
  g_assert_cmpstr (log.emitted->str, ==, "3 4 5 ");

  /* Waiting at the end: flush retries once (the caller then waits).  */
  log_clear (&log);
  log.not_ready = 6;
  push (r, 6, 60, FALSE);
  push (r, 7, 70, FALSE);
  st_reorder_flush (r);
  g_assert_cmpstr (log.processed->str, ==, "");
  log.not_ready = 0;
  st_reorder_flush (r);
  g_assert_cmpstr (log.processed->str, ==, "6 7 ");
  g_assert_cmpstr (log.emitted->str, ==, "6 7 ");
  st_reorder_free (r);
  log_free (&log);
}

/* Emitted in time order: the waiting event stops emission too.  */
static void
test_wait_time_order_out (void)
{
  Log log = log_new ();
  StReorder *r = st_reorder_new (process, emit, &log, 1 << 20, TRUE);

  log.not_ready = 5;
  push_two_rounds (r);
  g_assert_cmpstr (log.processed->str, ==, "3 1 ");
  g_assert_cmpstr (log.emitted->str, ==, "3 1 ");
  log.not_ready = 0;
  st_reorder_flush (r);
  g_assert_cmpstr (log.processed->str, ==, "3 1 5 2 4 6 7 ");
  g_assert_cmpstr (log.emitted->str, ==, "3 1 5 2 4 6 7 ");
  st_reorder_free (r);
  log_free (&log);
}

static void
emit_count (const StEvent *ev, void *result, void *user)
{
  (*(guint *) user)++;
}

static void *
process_any (const StEvent *ev, gboolean force, void *user)
{
  return NULL;
}

/* A sample record of 8.5 KiB from a pipe (copied into the window) at
   TIME, a round end when ROUND_END.  */
static void
push_copied (StReorder *r, uint64_t *record, int64_t time,
             gboolean round_end)
{
  StEvent ev = { 0 };
  ev.kind = ST_EVENT_OTHER;
  ev.raw = (const uint8_t *) record;
  ev.raw_len = 8704;
  ev.time = time;
  ev.round_end = round_end;
  st_reorder_push (r, &ev);
}

/* The window's memory follows what it holds: a burst of 4,000 records
   held (34 MiB: one round that never ends, as while priming waits)
   takes chunks; once they are out, only the chunks of what is held and
   8 spares stay, and one spare once the input is idle (st_reorder_trim);
   records are not rounded up to a power of two (4,000 of 8.5 KiB fit
   in 34 chunks of 1 MiB, not 63).  */
static void
test_chunks_given_back (void)
{
  guint emitted = 0;
  StReorder *r = st_reorder_new (process_any, emit_count, &emitted,
                                 (size_t) 1 << 30, FALSE);
  uint64_t *record = g_new0 (uint64_t, 8704 / 8);

  for (int i = 0; i < 4000; i++)
    push_copied (r, record, 1000 + i, FALSE);
  g_assert_cmpuint (emitted, ==, 0);
  size_t burst = st_reorder_mapped_bytes (r);
  g_assert_cmpuint (burst, >=, (size_t) 4000 * 8704);
  g_assert_cmpuint (burst, <=, (size_t) 36 << 20);

  /* Rounds of 20 records from now on: two rounds held at most.  */
  for (int i = 0; i < 4000; i++)
    push_copied (r, record, 10000 + i, i % 20 == 19);
  g_assert_cmpuint (emitted, >=, 4000 + 4000 - 40);
  /* The chunk cut from, one with the oldest records held, and at most
     8 spares (of the burst's).  */
  g_assert_cmpuint (st_reorder_mapped_bytes (r), <=, (size_t) 10 << 20);
  st_reorder_flush (r);
  g_assert_cmpuint (emitted, ==, 8000);
  g_assert_cmpuint (st_reorder_mapped_bytes (r), <=, (size_t) 9 << 20);
  /* Idle: the spares but one go too.  */
  st_reorder_trim (r);
  g_assert_cmpuint (st_reorder_mapped_bytes (r), <=, (size_t) 2 << 20);
  st_reorder_free (r);
  g_free (record);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reorder/input-order-out", test_input_order_out);
  g_test_add_func ("/reorder/time-order-out", test_time_order_out);
  g_test_add_func ("/reorder/event-copy", test_event_copy);
  g_test_add_func ("/reorder/emit-when-ready", test_emit_when_ready);
  g_test_add_func ("/reorder/release-past-waiting",
                   test_release_past_waiting);
  g_test_add_func ("/reorder/chunks-given-back", test_chunks_given_back);
  g_test_add_func ("/reorder/wait-in-time-order", test_wait_in_time_order);
  g_test_add_func ("/reorder/wait-as-read", test_wait_as_read);
  g_test_add_func ("/reorder/wait-time-order-out", test_wait_time_order_out);
  return g_test_run ();
}
