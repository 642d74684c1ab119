/* Prints the "Unwinding" counters of a capture (CTRDEF, then every
   CTRSET), one line per frame:
     TIME_NS SAMPLES UNWOUND_TO_ROOT RATE_PERCENT TRUNCATED FAILED
     STITCHED UNPRIMED
   For tests/integration/many-processes.sh.  Usage: capture-counters FILE  */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/capture-types.h"
#include "format/reader.h"

static const char *const names[] = {
  "Samples", "Unwound to root", "Success rate", "Truncated", "Failed",
  "Stitched", "Unprimed",
};
#define N_NAMES G_N_ELEMENTS (names)

static uint32_t ids[N_NAMES];
static double values[N_NAMES];
static gboolean is_double[N_NAMES];

static int
slot_of (uint32_t id)
{
  for (guint i = 0; i < N_NAMES; i++)
    if (ids[i] != 0 && ids[i] == id)
      return (int) i;
  return -1;
}

static void
set_value (int slot, const void *raw)
{
  if (is_double[slot])
    memcpy (&values[slot], raw, sizeof (double));
  else
    {
      int64_t v;
      memcpy (&v, raw, sizeof v);
      values[slot] = (double) v;
    }
}

static void
print_line (int64_t time)
{
  printf ("%" G_GINT64_FORMAT " %.0f %.0f %.2f %.0f %.0f %.0f %.0f\n", time,
          values[0], values[1], values[2], values[3], values[4], values[5],
          values[6]);
}

static void
on_define (const uint8_t *raw, size_t len, int64_t time)
{
  StCaptureCounterDefine def;
  gboolean ours = FALSE;

  memcpy (&def, raw, sizeof def);
  for (guint i = 0; i < def.n_counters
       && sizeof def + (i + 1) * sizeof (StCaptureCounter) <= len; i++)
    {
      StCaptureCounter c;

      memcpy (&c, raw + sizeof def + i * sizeof c, sizeof c);
      if (strncmp (c.category, "Unwinding", sizeof c.category) != 0)
        continue;
      for (guint k = 0; k < N_NAMES; k++)
        if (strncmp (c.name, names[k], sizeof c.name) == 0)
          {
            ids[k] = c.id_and_type & 0xffffff;
            is_double[k] = (c.id_and_type >> 24) == ST_CAPTURE_COUNTER_DOUBLE;
            set_value ((int) k, &c.value);
            ours = TRUE;
          }
    }
  if (ours)
    print_line (time);
}

static void
on_set (const uint8_t *raw, size_t len, int64_t time)
{
  StCaptureCounterSet set;
  gboolean ours = FALSE;

  memcpy (&set, raw, sizeof set);
  for (guint g = 0; g < set.n_values
       && sizeof set + (g + 1) * sizeof (StCaptureCounterValues) <= len; g++)
    {
      StCaptureCounterValues v;

      memcpy (&v, raw + sizeof set + g * sizeof v, sizeof v);
      for (guint i = 0; i < 8; i++)
        {
          int slot = slot_of (v.ids[i]);
          if (slot >= 0)
            {
              set_value (slot, &v.values[i]);
              ours = TRUE;
            }
        }
    }
  if (ours)
    print_line (time);
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  StEvent ev;
  int rc;

  if (argc != 2)
    {
      fprintf (stderr, "usage: capture-counters FILE\n");
      return 2;
    }
  int fd = open (argv[1], O_RDONLY);
  if (fd < 0)
    {
      perror (argv[1]);
      return 1;
    }
  StReader *r = st_reader_new (fd, ST_FORMAT_SYSPROF, &error);
  if (r == NULL)
    {
      fprintf (stderr, "capture-counters: %s\n", error->message);
      return 1;
    }
  while ((rc = st_reader_next (r, &ev, &error)) > 0)
    {
      if (ev.kind != ST_EVENT_OTHER || ev.raw_len < sizeof (StCaptureFrame))
        continue;
      const StCaptureFrame *f = (const StCaptureFrame *) ev.raw;
      if (f->type == ST_CAPTURE_CTRDEF
          && ev.raw_len >= sizeof (StCaptureCounterDefine))
        on_define (ev.raw, ev.raw_len, ev.time);
      else if (f->type == ST_CAPTURE_CTRSET
               && ev.raw_len >= sizeof (StCaptureCounterSet))
        on_set (ev.raw, ev.raw_len, ev.time);
    }
  if (rc < 0)
    fprintf (stderr, "capture-counters: %s\n", error->message);
  st_reader_free (r);
  close (fd);
  return rc < 0;
}
