/* Unit tests: when the counter schedule writes a set of counters.  The
   sets go to a recording function instead of an output: each case feeds
   samples and event times and checks which sets went out, at what time,
   with what counts.  */
#include "config.h"

#include <glib.h>

#include "counter-schedule.h"

#define MS ((int64_t) 1000000)  /* ns */

typedef struct
{
  int64_t time;
  StProgressCounters counts;
} Set;

typedef struct
{
  GArray *sets;       /* of Set, as written */
  gboolean refuse;    /* a format without counters */
  guint asked;        /* calls of the write function */
} Output;

static gboolean
record_set (int64_t time, const StProgressCounters *counters, void *user)
{
  Output *out = user;
  Set set = { time, *counters };

  out->asked++;
  if (out->refuse)
    return FALSE;
  g_array_append_val (out->sets, set);
  return TRUE;
}

static Output *
output_new (void)
{
  Output *out = g_new0 (Output, 1);

  out->sets = g_array_new (FALSE, FALSE, sizeof (Set));
  return out;
}

static void
output_free (Output *out)
{
  g_array_unref (out->sets);
  g_free (out);
}

static const Set *
set_at (const Output *out, guint i)
{
  g_assert_cmpuint (i, <, out->sets->len);
  return &g_array_index (out->sets, Set, i);
}

/* A complete sample written at TIME, then the event that carried it.  */
static void
sample_at (StCounterSchedule *s, int64_t time)
{
  st_counter_schedule_sample (s, ST_UNWIND_COMPLETE, FALSE, FALSE);
  st_counter_schedule_event (s, time, TRUE);
}

/* Events without a sample write nothing, at the end neither.  */
static void
test_no_samples_no_sets (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  for (int64_t t = 0; t < 1000 * MS; t += 10 * MS)
    st_counter_schedule_event (s, t, TRUE);
  st_counter_schedule_finish (s);
  g_assert_cmpuint (out->asked, ==, 0);
  st_counter_schedule_free (s);
  output_free (out);
}

/* The first sample's event writes a set at once; later ones within the
   period write none; the first event one period after the last set
   writes the counts of then, at the newest time.  */
static void
test_once_per_period (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  st_counter_schedule_event (s, 5 * MS, TRUE);   /* no sample yet */
  g_assert_cmpuint (out->sets->len, ==, 0);
  sample_at (s, 10 * MS);
  g_assert_cmpuint (out->sets->len, ==, 1);
  g_assert_cmpint (set_at (out, 0)->time, ==, 10 * MS);
  g_assert_cmpuint (set_at (out, 0)->counts.samples, ==, 1);

  /* 9 samples in the next 90 ms: still the first set.  */
  for (int64_t t = 20 * MS; t <= 109 * MS; t += 10 * MS)
    sample_at (s, t);
  g_assert_cmpuint (out->sets->len, ==, 1);

  /* 110 ms: one period after the first set.  */
  sample_at (s, 110 * MS);
  g_assert_cmpuint (out->sets->len, ==, 2);
  g_assert_cmpint (set_at (out, 1)->time, ==, 110 * MS);
  g_assert_cmpuint (set_at (out, 1)->counts.samples, ==, 11);
  g_assert_cmpuint (set_at (out, 1)->counts.complete, ==, 11);

  /* A sample every 7 ms: a set with every 15th (105 ms), at 216, 321,
     ..., 1896 ms; never two closer than the period.  */
  for (int64_t t = 111 * MS; t < 2000 * MS; t += 7 * MS)
    sample_at (s, t);
  g_assert_cmpuint (out->sets->len, ==, 2 + 17);
  g_assert_cmpint (set_at (out, 2)->time, ==, 216 * MS);
  g_assert_cmpint (set_at (out, 18)->time, ==, 1896 * MS);
  for (guint i = 1; i < out->sets->len; i++)
    g_assert_cmpint (set_at (out, i)->time - set_at (out, i - 1)->time,
                     >=, 100 * MS);
  st_counter_schedule_free (s);
  output_free (out);
}

/* Past the period with counts unchanged: no set; the next change writes
   one at once.  */
static void
test_only_when_changed (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  sample_at (s, 0);
  g_assert_cmpuint (out->sets->len, ==, 1);
  for (int64_t t = 50 * MS; t < 1000 * MS; t += 50 * MS)
    st_counter_schedule_event (s, t, TRUE);     /* other events */
  g_assert_cmpuint (out->sets->len, ==, 1);
  sample_at (s, 1000 * MS);
  g_assert_cmpuint (out->sets->len, ==, 2);
  g_assert_cmpint (set_at (out, 1)->time, ==, 1000 * MS);
  g_assert_cmpuint (set_at (out, 1)->counts.samples, ==, 2);
  st_counter_schedule_free (s);
  output_free (out);
}

/* The final set: the counts at the end, at the newest time, unless the
   last set has them already.  */
static void
test_final_set (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  sample_at (s, 0);
  st_counter_schedule_sample (s, ST_UNWIND_TRUNCATED, TRUE, FALSE);
  st_counter_schedule_event (s, 30 * MS, TRUE);
  st_counter_schedule_sample (s, ST_UNWIND_FAILED, FALSE, TRUE);
  st_counter_schedule_event (s, 40 * MS, TRUE);
  st_counter_schedule_event (s, 60 * MS, TRUE);
  g_assert_cmpuint (out->sets->len, ==, 1);
  st_counter_schedule_finish (s);
  g_assert_cmpuint (out->sets->len, ==, 2);
  const Set *last = set_at (out, 1);
  g_assert_cmpint (last->time, ==, 60 * MS);
  g_assert_cmpuint (last->counts.samples, ==, 3);
  g_assert_cmpuint (last->counts.complete, ==, 1);
  g_assert_cmpuint (last->counts.truncated, ==, 1);
  g_assert_cmpuint (last->counts.failed, ==, 1);
  g_assert_cmpuint (last->counts.stitched, ==, 1);
  g_assert_cmpuint (last->counts.unprimed, ==, 1);
  st_counter_schedule_free (s);
  output_free (out);

  /* The last set has the final counts: none more.  */
  out = output_new ();
  s = st_counter_schedule_new (100, record_set, out);
  sample_at (s, 0);
  st_counter_schedule_event (s, 500 * MS, TRUE);
  st_counter_schedule_finish (s);
  g_assert_cmpuint (out->sets->len, ==, 1);
  st_counter_schedule_free (s);
  output_free (out);
}

/* Inside a sample (a held kernel part) nothing goes out; the next event
   between samples writes what was due.  */
static void
test_not_inside_a_sample (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  st_counter_schedule_sample (s, ST_UNWIND_COMPLETE, FALSE, FALSE);
  st_counter_schedule_event (s, 10 * MS, FALSE);
  st_counter_schedule_event (s, 20 * MS, FALSE);
  g_assert_cmpuint (out->sets->len, ==, 0);
  st_counter_schedule_event (s, 15 * MS, TRUE);
  g_assert_cmpuint (out->sets->len, ==, 1);
  /* The newest time written, not the event's (times may go back).  */
  g_assert_cmpint (set_at (out, 0)->time, ==, 20 * MS);
  st_counter_schedule_free (s);
  output_free (out);
}

/* A format without counters refuses: asked again at every event after
   the first sample, nothing recorded as written.  */
static void
test_refused (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (100, record_set, out);

  out->refuse = TRUE;
  sample_at (s, 0);
  st_counter_schedule_event (s, 1 * MS, TRUE);
  st_counter_schedule_event (s, 2 * MS, TRUE);
  g_assert_cmpuint (out->asked, ==, 3);
  out->refuse = FALSE;
  st_counter_schedule_event (s, 3 * MS, TRUE);
  g_assert_cmpuint (out->sets->len, ==, 1);
  g_assert_cmpint (set_at (out, 0)->time, ==, 3 * MS);
  st_counter_schedule_free (s);
  output_free (out);
}

/* Interval 0: one set per second of sample time.  */
static void
test_default_period (void)
{
  Output *out = output_new ();
  StCounterSchedule *s = st_counter_schedule_new (0, record_set, out);

  for (int64_t t = 0; t <= 3000 * MS; t += 100 * MS)
    sample_at (s, t);
  g_assert_cmpuint (out->sets->len, ==, 4);
  for (guint i = 0; i < out->sets->len; i++)
    g_assert_cmpint (set_at (out, i)->time, ==,
                     (int64_t) i * ST_COUNTER_SCHEDULE_DEFAULT_MS * MS);
  st_counter_schedule_free (s);
  output_free (out);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/counter-schedule/no-samples-no-sets",
                   test_no_samples_no_sets);
  g_test_add_func ("/counter-schedule/once-per-period", test_once_per_period);
  g_test_add_func ("/counter-schedule/only-when-changed",
                   test_only_when_changed);
  g_test_add_func ("/counter-schedule/final-set", test_final_set);
  g_test_add_func ("/counter-schedule/not-inside-a-sample",
                   test_not_inside_a_sample);
  g_test_add_func ("/counter-schedule/refused", test_refused);
  g_test_add_func ("/counter-schedule/default-period", test_default_period);
  return g_test_run ();
}
