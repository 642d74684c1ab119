/* One perf ring buffer (an mmap of a perf event fd: a control page, then
   a data area of 2^n pages), read as the kernel's ABI asks: data_head
   loaded with acquire semantics, each record copied out, data_tail
   stored with release semantics as soon as it is, so the kernel can
   reuse the room at once.  A record that wraps around the end of the
   data area is reassembled in the copy.

   Nothing outside the data area is ever read, whatever the control page
   says: a head that ran more than the data area ahead of the tail, or
   behind it (torn or corrupt), and a record whose size is not a
   multiple of 8, below the header or beyond the head, make the reader
   give up the rest of the pass (the tail jumps to the head) and count
   the bytes dropped.  Works on memory that is not a perf mapping (the
   unit tests use a fake ring).  Not thread-safe: one reader per ring.  */
#ifndef ST_PERF_RING_H
#define ST_PERF_RING_H

#include <glib.h>
#include <stdint.h>

/* A record is at most 64 KiB (u16 size).  */
#define ST_PERF_RING_RECORD_MAX 65536

/* Why a pass was abandoned.  */
typedef enum
{
  ST_PERF_RING_OK = 0,
  ST_PERF_RING_HEAD_TORN,     /* head behind the tail or a full ring ahead */
  ST_PERF_RING_BAD_SIZE,      /* a record size that cannot be */
} StPerfRingProblem;

typedef struct
{
  void *control;              /* struct perf_event_mmap_page */
  const uint8_t *data;
  uint64_t size;              /* power of two */
  uint64_t head;              /* snapshot of this pass */
  uint64_t tail;

  uint64_t records;           /* copied out */
  uint64_t bytes;
  uint64_t dropped_bytes;     /* given up after a problem */
  uint64_t problems;
  StPerfRingProblem last_problem;
} StPerfRing;

/* CONTROL is the first page (struct perf_event_mmap_page), DATA the data
   area of SIZE bytes (a power of two).  The tail starts where the
   control page has it.  */
void st_perf_ring_init (StPerfRing *ring, void *control, const void *data,
                        uint64_t size);

/* Starts a pass: takes a snapshot of data_head.  Returns the bytes
   between the tail and it (0 after a torn head, which is dropped).  */
uint64_t st_perf_ring_begin (StPerfRing *ring);

/* Copies the next record of the pass into BUF (ST_PERF_RING_RECORD_MAX
   bytes) and hands its room back to the kernel.  Returns its length, or
   0 when the pass is over (or was given up: see last_problem).  */
size_t st_perf_ring_next (StPerfRing *ring, uint8_t *buf);

/* The same in steps, for a reader that copies only part of a record:
   the size of the next record of the pass, checked as above (0 when the
   pass is over or was given up); the record stays in the ring.  */
size_t st_perf_ring_peek (StPerfRing *ring);
/* Copies LEN bytes from offset AT of the record st_perf_ring_peek
   found (AT + LEN at most its size).  */
void st_perf_ring_copy (const StPerfRing *ring, size_t at, void *dst,
                        size_t len);
/* Done with that record (of SIZE bytes): its room goes back to the
   kernel.  */
void st_perf_ring_consume (StPerfRing *ring, size_t size);

/* A description of PROBLEM.  */
const char *st_perf_ring_problem_name (StPerfRingProblem problem);

#endif /* ST_PERF_RING_H */
