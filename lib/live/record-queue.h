/* Bytes waiting for a pipe that is written without blocking: the perf
   records the ring reader has copied out and the unwinder has not taken
   yet.  Chunks of 1 MiB, appended at the tail and freed from the head
   as the pipe takes them, so nothing big is ever copied or moved.  One
   thread only.  */
#ifndef ST_RECORD_QUEUE_H
#define ST_RECORD_QUEUE_H

#include <glib.h>
#include <stddef.h>

/* The largest single append (a perf record is at most 64 KiB).  */
#define ST_RECORD_QUEUE_ITEM_MAX (1u << 20)

typedef struct
{
  GQueue chunks;
  size_t bytes;                /* waiting */
} StRecordQueue;

void st_record_queue_init (StRecordQueue *q);
void st_record_queue_clear (StRecordQueue *q);

/* Appends LEN bytes (at most ST_RECORD_QUEUE_ITEM_MAX).  */
void st_record_queue_push (StRecordQueue *q, const void *data, size_t len);

/* Writes to FD what it takes now (all of it when FD blocks).  FALSE
   when a write failed (EPIPE: the reader is gone).  */
gboolean st_record_queue_send (StRecordQueue *q, int fd);

#endif /* ST_RECORD_QUEUE_H */
