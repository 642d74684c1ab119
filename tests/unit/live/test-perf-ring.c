/* Unit tests: reading a perf ring buffer, over a fake ring in memory (a
   control page as the kernel lays it out, a small data area): records
   written the way the kernel writes them, then data_head moved.  Checks
   the records that come out, byte for byte, records that wrap around
   the end, the tail handed back after each record, bad sizes and a torn
   head (nothing read outside the data area: ASan would say).  */
#include "config.h"

#include <glib.h>
#include <linux/perf_event.h>
#include <string.h>

#include "format/perf-types.h"
#include "live/perf-ring.h"

#define DATA_SIZE 256

typedef struct
{
  struct perf_event_mmap_page *control;
  uint8_t *data;               /* exactly DATA_SIZE bytes: ASan guards it */
  uint64_t head;               /* where the "kernel" writes next */
  StPerfRing ring;
  uint8_t buf[ST_PERF_RING_RECORD_MAX];
} Fake;

static void
fake_init (Fake *f)
{
  f->control = g_malloc0 (sizeof *f->control);
  f->data = g_malloc0 (DATA_SIZE);
  f->head = 0;
  st_perf_ring_init (&f->ring, f->control, f->data, DATA_SIZE);
}

static void
fake_clear (Fake *f)
{
  g_free (f->control);
  g_free (f->data);
}

/* Writes a record of TYPE and SIZE bytes (header included) whose body
   bytes are SEED, SEED+1, ...; the head is not published.  */
static void
fake_put (Fake *f, uint32_t type, uint16_t size, uint8_t seed)
{
  uint8_t rec[512];
  StPerfEventHeader h = { type, 0, size };

  g_assert_cmpuint (size, <=, sizeof rec);
  memcpy (rec, &h, MIN (sizeof h, (size_t) size));
  for (size_t i = sizeof h; i < size; i++)
    rec[i] = (uint8_t) (seed + i);
  for (size_t i = 0; i < size; i++)
    f->data[(f->head + i) % DATA_SIZE] = rec[i];
  f->head += size;
}

static void
fake_publish (Fake *f)
{
  __atomic_store_n (&f->control->data_head, f->head, __ATOMIC_RELEASE);
}

static void
assert_record (Fake *f, uint32_t type, uint16_t size, uint8_t seed)
{
  size_t len = st_perf_ring_next (&f->ring, f->buf);
  StPerfEventHeader h;

  g_assert_cmpuint (len, ==, size);
  memcpy (&h, f->buf, sizeof h);
  g_assert_cmpuint (h.type, ==, type);
  for (size_t i = sizeof h; i < size; i++)
    g_assert_cmpuint (f->buf[i], ==, (uint8_t) (seed + i));
  /* Handed back at once.  */
  g_assert_cmpuint (f->control->data_tail, ==, f->ring.tail);
}

static void
test_in_order (void)
{
  Fake f;

  fake_init (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 0);
  g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
  fake_put (&f, ST_PERF_RECORD_SAMPLE, 48, 1);
  fake_put (&f, ST_PERF_RECORD_MMAP2, 96, 2);
  /* Not yet published: not seen.  */
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 0);
  fake_publish (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 144);
  assert_record (&f, ST_PERF_RECORD_SAMPLE, 48, 1);
  /* A record published during the pass waits for the next one.  */
  fake_put (&f, ST_PERF_RECORD_COMM, 32, 3);
  fake_publish (&f);
  assert_record (&f, ST_PERF_RECORD_MMAP2, 96, 2);
  g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 32);
  assert_record (&f, ST_PERF_RECORD_COMM, 32, 3);
  g_assert_cmpuint (f.ring.records, ==, 3);
  g_assert_cmpuint (f.ring.problems, ==, 0);
  fake_clear (&f);
}

/* A record read in parts (peek, copies at any offset, across the end
   of the data area too, then consume): the same bytes, handed back only
   when consumed.  */
static void
test_in_parts (void)
{
  Fake f;

  fake_init (&f);
  for (int lap = 0; lap < 20; lap++)
    {
      uint8_t seed = (uint8_t) (lap * 7);
      uint64_t tail = f.ring.tail;

      fake_put (&f, ST_PERF_RECORD_SAMPLE, 112, seed);
      fake_publish (&f);
      g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 112);
      g_assert_cmpuint (st_perf_ring_peek (&f.ring), ==, 112);
      g_assert_cmpuint (f.control->data_tail, ==, tail);
      memset (f.buf, 0, 112);
      st_perf_ring_copy (&f.ring, 96, f.buf + 96, 16);
      st_perf_ring_copy (&f.ring, 0, f.buf, 40);
      st_perf_ring_copy (&f.ring, 40, f.buf + 40, 56);
      for (size_t i = sizeof (StPerfEventHeader); i < 112; i++)
        g_assert_cmpuint (f.buf[i], ==, (uint8_t) (seed + i));
      st_perf_ring_consume (&f.ring, 112);
      g_assert_cmpuint (f.control->data_tail, ==, tail + 112);
      g_assert_cmpuint (st_perf_ring_peek (&f.ring), ==, 0);
    }
  g_assert_cmpuint (f.ring.records, ==, 20);
  fake_clear (&f);
}

/* Records across the end of the data area, the header too, many laps.  */
static void
test_wrap_around (void)
{
  Fake f;

  fake_init (&f);
  for (int lap = 0; lap < 40; lap++)
    {
      uint16_t a = (uint16_t) (8 * (1 + lap % 13));
      uint16_t b = (uint16_t) (8 * (3 + lap % 7));

      fake_put (&f, ST_PERF_RECORD_SAMPLE, a, (uint8_t) lap);
      fake_put (&f, ST_PERF_RECORD_LOST, b, (uint8_t) (lap + 100));
      fake_publish (&f);
      g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, a + b);
      assert_record (&f, ST_PERF_RECORD_SAMPLE, a, (uint8_t) lap);
      assert_record (&f, ST_PERF_RECORD_LOST, b, (uint8_t) (lap + 100));
    }
  g_assert_cmpuint (f.ring.records, ==, 80);
  g_assert_cmpuint (f.ring.problems, ==, 0);
  g_assert_cmpuint (f.ring.tail, >, 4 * DATA_SIZE);

  /* A record that fills the whole ring, starting mid-way.  */
  fake_put (&f, ST_PERF_RECORD_SAMPLE, DATA_SIZE, 7);
  fake_publish (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, DATA_SIZE);
  assert_record (&f, ST_PERF_RECORD_SAMPLE, DATA_SIZE, 7);
  fake_clear (&f);
}

/* A size the kernel never writes: the rest of the pass is given up and
   the next pass starts clean.  */
static void
test_bad_sizes (void)
{
  static const uint16_t bad[] = { 0, 4, 12, 200 };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      Fake f;

      fake_init (&f);
      fake_put (&f, ST_PERF_RECORD_SAMPLE, 24, 1);
      /* A header claiming BAD[i] bytes in a 16-byte record (200: past
         the head).  */
      fake_put (&f, ST_PERF_RECORD_SAMPLE, 16, 2);
      StPerfEventHeader h = { ST_PERF_RECORD_SAMPLE, 0, bad[i] };
      for (size_t k = 0; k < sizeof h; k++)
        f.data[(24 + k) % DATA_SIZE] = ((uint8_t *) &h)[k];
      fake_put (&f, ST_PERF_RECORD_SAMPLE, 16, 3);
      fake_publish (&f);
      g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 56);
      assert_record (&f, ST_PERF_RECORD_SAMPLE, 24, 1);
      g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
      g_assert_cmpint (f.ring.last_problem, ==, ST_PERF_RING_BAD_SIZE);
      g_assert_cmpuint (f.ring.problems, ==, 1);
      g_assert_cmpuint (f.ring.dropped_bytes, ==, 32);
      g_assert_cmpuint (f.control->data_tail, ==, 56);

      fake_put (&f, ST_PERF_RECORD_COMM, 40, 4);
      fake_publish (&f);
      g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 40);
      assert_record (&f, ST_PERF_RECORD_COMM, 40, 4);
      fake_clear (&f);
    }
}

/* Fewer than 8 bytes left before the head: no header to read.  */
static void
test_head_mid_record (void)
{
  Fake f;

  fake_init (&f);
  fake_put (&f, ST_PERF_RECORD_SAMPLE, 16, 1);
  f.control->data_head = 20;
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 20);
  assert_record (&f, ST_PERF_RECORD_SAMPLE, 16, 1);
  g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
  g_assert_cmpint (f.ring.last_problem, ==, ST_PERF_RING_BAD_SIZE);
  g_assert_cmpuint (f.control->data_tail, ==, 20);
  fake_clear (&f);
}

/* A head behind the tail, or more than a ring ahead: nothing is read,
   the tail jumps to the head, and reading goes on from there.  */
static void
test_torn_head (void)
{
  Fake f;

  fake_init (&f);
  fake_put (&f, ST_PERF_RECORD_SAMPLE, 64, 1);
  fake_publish (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 64);
  assert_record (&f, ST_PERF_RECORD_SAMPLE, 64, 1);

  f.control->data_head = 32;                    /* behind */
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 0);
  g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
  g_assert_cmpint (f.ring.last_problem, ==, ST_PERF_RING_HEAD_TORN);
  g_assert_cmpuint (f.control->data_tail, ==, 32);

  f.control->data_head = 32 + DATA_SIZE + 8;    /* beyond a ring */
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 0);
  g_assert_cmpuint (st_perf_ring_next (&f.ring, f.buf), ==, 0);
  g_assert_cmpuint (f.ring.problems, ==, 2);
  g_assert_cmpuint (f.control->data_tail, ==, 32 + DATA_SIZE + 8);

  f.head = 32 + DATA_SIZE + 8;
  fake_put (&f, ST_PERF_RECORD_EXIT, 56, 9);
  fake_publish (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 56);
  assert_record (&f, ST_PERF_RECORD_EXIT, 56, 9);
  g_assert_cmpstr (st_perf_ring_problem_name (ST_PERF_RING_HEAD_TORN), !=,
                   st_perf_ring_problem_name (ST_PERF_RING_BAD_SIZE));
  fake_clear (&f);
}

/* The tail starts where the control page has it (a ring read before).  */
static void
test_resume_tail (void)
{
  Fake f;

  f.control = g_malloc0 (sizeof *f.control);
  f.data = g_malloc0 (DATA_SIZE);
  f.control->data_tail = 1000;
  f.control->data_head = 1000;
  f.head = 1000;
  st_perf_ring_init (&f.ring, f.control, f.data, DATA_SIZE);
  fake_put (&f, ST_PERF_RECORD_SAMPLE, 40, 5);
  fake_publish (&f);
  g_assert_cmpuint (st_perf_ring_begin (&f.ring), ==, 40);
  assert_record (&f, ST_PERF_RECORD_SAMPLE, 40, 5);
  g_assert_cmpuint (f.control->data_tail, ==, 1040);
  fake_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-ring/in-order", test_in_order);
  g_test_add_func ("/perf-ring/wrap-around", test_wrap_around);
  g_test_add_func ("/perf-ring/in-parts", test_in_parts);
  g_test_add_func ("/perf-ring/bad-sizes", test_bad_sizes);
  g_test_add_func ("/perf-ring/head-mid-record", test_head_mid_record);
  g_test_add_func ("/perf-ring/torn-head", test_torn_head);
  g_test_add_func ("/perf-ring/resume-tail", test_resume_tail);
  return g_test_run ();
}
