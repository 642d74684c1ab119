/* Reading one perf ring buffer; the contract is in perf-ring.h.  */
#include "config.h"

#include <linux/perf_event.h>
#include <string.h>

#include "format/perf-types.h"
#include "live/perf-ring.h"

void
st_perf_ring_init (StPerfRing *ring, void *control, const void *data,
                   uint64_t size)
{
  struct perf_event_mmap_page *pc = control;

  memset (ring, 0, sizeof *ring);
  ring->control = control;
  ring->data = data;
  ring->size = size;
  ring->tail = __atomic_load_n (&pc->data_tail, __ATOMIC_RELAXED);
  ring->head = ring->tail;
}

/* Gives up what is left of the pass: the kernel gets the room back.  */
static void
give_up (StPerfRing *ring, StPerfRingProblem problem)
{
  struct perf_event_mmap_page *pc = ring->control;

  ring->dropped_bytes += ring->head - ring->tail;
  ring->problems++;
  ring->last_problem = problem;
  ring->tail = ring->head;
  __atomic_store_n (&pc->data_tail, ring->tail, __ATOMIC_RELEASE);
}

uint64_t
st_perf_ring_begin (StPerfRing *ring)
{
  struct perf_event_mmap_page *pc = ring->control;
  /* Pairs with the kernel's store of data_head after the records: what
     lies before the head is complete once the head is seen.  */
  uint64_t head = __atomic_load_n (&pc->data_head, __ATOMIC_ACQUIRE);

  ring->head = head;
  if (head - ring->tail > ring->size)
    {
      /* Behind the tail (the difference wrapped) or beyond a whole
         ring: nothing there can be trusted.  The kernel never writes
         past the tail, so the loss it counts is not here.  */
      ring->dropped_bytes += head > ring->tail ? ring->size : 0;
      ring->problems++;
      ring->last_problem = ST_PERF_RING_HEAD_TORN;
      ring->tail = head;
      __atomic_store_n (&pc->data_tail, head, __ATOMIC_RELEASE);
      return 0;
    }
  return head - ring->tail;
}

/* Copies LEN bytes from ring offset POS, wrapping at the end.  */
static void
copy_out (const StPerfRing *ring, uint64_t pos, uint8_t *dst, size_t len)
{
  uint64_t at = pos & (ring->size - 1);
  uint64_t first = MIN ((uint64_t) len, ring->size - at);

  memcpy (dst, ring->data + at, first);
  if (first < len)
    memcpy (dst + first, ring->data, len - first);
}

size_t
st_perf_ring_peek (StPerfRing *ring)
{
  uint64_t avail = ring->head - ring->tail;
  StPerfEventHeader header;

  if (avail == 0)
    return 0;
  if (avail < sizeof header)
    {
      give_up (ring, ST_PERF_RING_BAD_SIZE);
      return 0;
    }
  copy_out (ring, ring->tail, (uint8_t *) &header, sizeof header);
  if (header.size < sizeof header || header.size % 8 != 0
      || header.size > avail)
    {
      give_up (ring, ST_PERF_RING_BAD_SIZE);
      return 0;
    }
  return header.size;
}

void
st_perf_ring_copy (const StPerfRing *ring, size_t at, void *dst, size_t len)
{
  copy_out (ring, ring->tail + at, dst, len);
}

void
st_perf_ring_consume (StPerfRing *ring, size_t size)
{
  struct perf_event_mmap_page *pc = ring->control;

  ring->tail += size;
  ring->records++;
  ring->bytes += size;
  /* The copy is done: the kernel may write there again.  */
  __atomic_store_n (&pc->data_tail, ring->tail, __ATOMIC_RELEASE);
}

size_t
st_perf_ring_next (StPerfRing *ring, uint8_t *buf)
{
  size_t size = st_perf_ring_peek (ring);

  if (size > 0)
    {
      st_perf_ring_copy (ring, 0, buf, size);
      st_perf_ring_consume (ring, size);
    }
  return size;
}

const char *
st_perf_ring_problem_name (StPerfRingProblem problem)
{
  switch (problem)
    {
    case ST_PERF_RING_OK:
      return "no problem";
    case ST_PERF_RING_HEAD_TORN:
      return "data_head behind data_tail or more than the ring ahead";
    case ST_PERF_RING_BAD_SIZE:
      return "a record size below 8, not a multiple of 8 or past data_head";
    }
  return "unknown problem";
}
