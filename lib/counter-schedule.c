#include "config.h"

#include <string.h>

#include "counter-schedule.h"

struct StCounterSchedule
{
  StCountersWriteFunc write;
  void *user;
  int64_t period;             /* ns of sample time between sets */
  StProgressCounters counts;  /* of the samples written so far */
  int64_t newest_time;        /* of the events written */
  gboolean written;           /* a set went out */
  int64_t written_time;       /* the last set's time */
  StProgressCounters written_counts;  /* and what it said */
};

StCounterSchedule *
st_counter_schedule_new (unsigned interval_ms, StCountersWriteFunc write,
                         void *user)
{
  StCounterSchedule *s = g_new0 (StCounterSchedule, 1);

  s->write = write;
  s->user = user;
  s->period = (int64_t) (interval_ms > 0 ? interval_ms
                                         : ST_COUNTER_SCHEDULE_DEFAULT_MS)
              * 1000000;
  return s;
}

void
st_counter_schedule_free (StCounterSchedule *s)
{
  g_free (s);
}

void
st_counter_schedule_sample (StCounterSchedule *s, StUnwindStatus status,
                            gboolean stitched, gboolean unprimed)
{
  StProgressCounters *c = &s->counts;

  c->samples++;
  c->complete += status == ST_UNWIND_COMPLETE;
  c->truncated += status == ST_UNWIND_TRUNCATED;
  c->failed += status == ST_UNWIND_FAILED;
  c->stitched += stitched != FALSE;
  c->unprimed += unprimed != FALSE;
}

/* Writes the counts at TIME if they changed since the last set.  */
static void
write_if_changed (StCounterSchedule *s, int64_t time)
{
  StProgressCounters c = s->counts;

  if (s->written && memcmp (&c, &s->written_counts, sizeof c) == 0)
    return;
  if (s->write (time, &c, s->user))
    {
      s->written = TRUE;
      s->written_time = time;
      s->written_counts = c;
    }
}

void
st_counter_schedule_event (StCounterSchedule *s, int64_t time,
                           gboolean may_write)
{
  if (time > s->newest_time)
    s->newest_time = time;
  if (!may_write || s->counts.samples == 0)
    return;
  if (!s->written || s->newest_time - s->written_time >= s->period)
    write_if_changed (s, s->newest_time);
}

void
st_counter_schedule_finish (StCounterSchedule *s)
{
  if (s->counts.samples > 0)
    write_if_changed (s, s->newest_time);
}
