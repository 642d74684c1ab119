/* Unit tests: time order per FINISHED_ROUND window, and event copies.  */
#include "config.h"

#include <string.h>

#include "reorder.h"

typedef struct
{
  GString *processed;
  GString *emitted;
} Log;

static void *
process (const StEvent *ev, gboolean force, void *user)
{
  Log *log = user;
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

static void
run (gboolean time_order_out, const char *want_processed,
     const char *want_emitted)
{
  Log log = { g_string_new (""), g_string_new ("") };
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
  g_string_free (log.processed, TRUE);
  g_string_free (log.emitted, TRUE);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reorder/input-order-out", test_input_order_out);
  g_test_add_func ("/reorder/time-order-out", test_time_order_out);
  g_test_add_func ("/reorder/event-copy", test_event_copy);
  return g_test_run ();
}
