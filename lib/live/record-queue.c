/* A queue of bytes for a non-blocking pipe; see record-queue.h.  */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "live/record-queue.h"

#define CHUNK_SIZE ST_RECORD_QUEUE_ITEM_MAX

typedef struct
{
  size_t start;                /* sent up to here */
  size_t end;                  /* filled up to here */
  uint8_t data[CHUNK_SIZE];
} Chunk;

void
st_record_queue_init (StRecordQueue *q)
{
  g_queue_init (&q->chunks);
  q->bytes = 0;
}

void
st_record_queue_clear (StRecordQueue *q)
{
  g_queue_clear_full (&q->chunks, g_free);
  q->bytes = 0;
}

void
st_record_queue_push (StRecordQueue *q, const void *data, size_t len)
{
  Chunk *c = g_queue_peek_tail (&q->chunks);

  if (c == NULL || CHUNK_SIZE - c->end < len)
    {
      c = g_malloc (sizeof *c);
      c->start = c->end = 0;
      g_queue_push_tail (&q->chunks, c);
    }
  memcpy (c->data + c->end, data, len);
  c->end += len;
  q->bytes += len;
}

gboolean
st_record_queue_send (StRecordQueue *q, int fd)
{
  Chunk *c;

  while ((c = g_queue_peek_head (&q->chunks)) != NULL)
    {
      ssize_t n = c->end > c->start
                  ? write (fd, c->data + c->start, c->end - c->start) : 0;

      if (n > 0)
        {
          c->start += (size_t) n;
          q->bytes -= (size_t) n;
        }
      else if (n < 0 && errno == EINTR)
        continue;
      else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      else if (n < 0)
        return FALSE;
      if (c->start == c->end)
        g_free (g_queue_pop_head (&q->chunks));
    }
  return TRUE;
}
