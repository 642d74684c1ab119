/* The perf.data stream between the ring reader's thread (the producer)
   and the thread that reads it as input (the consumer), in process:
   chunks of 1 MiB that the producer fills without a lock and publishes
   once per batch (one pass over the rings), and the consumer copies out
   of, as it would read a pipe.  Replaces a kernel pipe, which cost a
   copy into the kernel, one out of it, a page allocated and charged to
   the cgroup every 4 KiB, and a wake-up per write.

   The consumer waits in poll() on a doorbell, the read end of a pipe
   that holds a byte exactly while bytes are published or the stream is
   closed (a byte is written at most once per batch, when the consumer
   had emptied the queue): so it waits as on a pipe, beside other fds,
   and its owner sees a FIFO.  Memory is the producer's to bound
   (st_record_queue_bytes): it never waits for the consumer.  */
#ifndef ST_RECORD_QUEUE_H
#define ST_RECORD_QUEUE_H

#include <glib.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct StRecordQueue StRecordQueue;

/* NULL with ERROR set when the doorbell cannot be made.  */
StRecordQueue *st_record_queue_new (GError **error);
void st_record_queue_free (StRecordQueue *q);

/* The producer's.  Appends LEN bytes, not yet seen by the consumer.  */
void st_record_queue_push (StRecordQueue *q, const void *data, size_t len);
/* Hands what was appended to the consumer (one wake-up at most).  */
void st_record_queue_publish (StRecordQueue *q);
/* Publishes and ends the stream: the consumer reads the rest, then the
   end.  */
void st_record_queue_close (StRecordQueue *q);
/* Bytes appended and not yet taken by the consumer.  */
size_t st_record_queue_bytes (StRecordQueue *q);

/* The consumer's.  The doorbell fd (owned by the queue): readable while
   st_record_queue_read would not wait.  */
int st_record_queue_fd (const StRecordQueue *q);
/* As read(2) on a pipe: copies up to LEN bytes into BUF, waiting (in
   poll on the doorbell) while none are published; 0 at the end.  DATA
   is the queue (an StInputReadFunc).  */
ssize_t st_record_queue_read (void *data, void *buf, size_t len);
/* Without waiting: copies up to LEN published bytes into BUF and leaves
   them to be read (peek), or takes up to LEN of them and throws them
   away (skip).  The bytes concerned.  */
size_t st_record_queue_peek (StRecordQueue *q, void *buf, size_t len);
size_t st_record_queue_skip (StRecordQueue *q, size_t len);
/* Whether the stream has ended: closed, and every byte taken.  */
gboolean st_record_queue_ended (StRecordQueue *q);

#endif /* ST_RECORD_QUEUE_H */
