/* The in-process stream between two threads; see record-queue.h.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "live/record-queue.h"
#include "util/domain.h"

#define CHUNK_SIZE (1u << 20)
/* Emptied chunks kept for the producer rather than freed: a steady run
   allocates nothing.  */
#define SPARES_MAX 4

typedef struct
{
  size_t start;                /* the consumer has taken up to here */
  size_t end;                  /* published up to here (under the lock) */
  size_t fill;                 /* the producer has written up to here */
  uint8_t data[CHUNK_SIZE];
} Chunk;

struct StRecordQueue
{
  pthread_mutex_t lock;          /* (pthread: ThreadSanitizer sees it) */
  GQueue chunks;               /* Chunk *, oldest first */
  GSList *spares;
  guint n_spares;
  Chunk *writing;              /* the producer's, the last of CHUNKS */
  size_t bytes;                /* published, not taken */
  size_t pending;              /* appended, not published (producer's) */
  gboolean closed;
  gboolean rung;               /* the doorbell holds its byte */
  int bell[2];
};

StRecordQueue *
st_record_queue_new (GError **error)
{
  StRecordQueue *q = g_new0 (StRecordQueue, 1);

  if (pipe2 (q->bell, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      g_set_error (error, ST_ERROR, ST_ERROR_IO, "cannot make a pipe: %s",
                   g_strerror (errno));
      g_free (q);
      return NULL;
    }
  pthread_mutex_init (&q->lock, NULL);
  g_queue_init (&q->chunks);
  return q;
}

void
st_record_queue_free (StRecordQueue *q)
{
  if (q == NULL)
    return;
  g_queue_clear_full (&q->chunks, g_free);
  g_slist_free_full (q->spares, g_free);
  pthread_mutex_destroy (&q->lock);
  close (q->bell[0]);
  close (q->bell[1]);
  g_free (q);
}

int
st_record_queue_fd (const StRecordQueue *q)
{
  return q->bell[0];
}

/* Under the lock: what the producer wrote into chunk C is published.  */
static void
publish_chunk (StRecordQueue *q, Chunk *c)
{
  q->bytes += c->fill - c->end;
  c->end = c->fill;
}

/* A chunk for the producer, the old one published (not rung: the batch
   is).  */
static Chunk *
next_chunk (StRecordQueue *q)
{
  Chunk *c = NULL;

  pthread_mutex_lock (&q->lock);
  if (q->writing != NULL)
    publish_chunk (q, q->writing);
  if (q->spares != NULL)
    {
      c = q->spares->data;
      q->spares = g_slist_delete_link (q->spares, q->spares);
      q->n_spares--;
    }
  pthread_mutex_unlock (&q->lock);
  if (c == NULL)
    c = g_malloc (sizeof *c);
  c->start = c->end = c->fill = 0;
  pthread_mutex_lock (&q->lock);
  g_queue_push_tail (&q->chunks, c);
  q->writing = c;
  pthread_mutex_unlock (&q->lock);
  return c;
}

void
st_record_queue_push (StRecordQueue *q, const void *data, size_t len)
{
  const uint8_t *p = data;

  /* The consumer reads a byte stream: a record may span two chunks.  */
  while (len > 0)
    {
      Chunk *c = q->writing;
      size_t n;

      if (c == NULL || c->fill == CHUNK_SIZE)
        c = next_chunk (q);
      n = MIN (len, CHUNK_SIZE - c->fill);
      memcpy (c->data + c->fill, p, n);
      c->fill += n;
      q->pending += n;
      p += n;
      len -= n;
    }
}

/* Under the lock: the doorbell rung when there is something to read
   and the consumer may not know.  */
static void
ring (StRecordQueue *q)
{
  if (!q->rung && (q->bytes > 0 || q->closed))
    {
      /* (An empty pipe: the byte fits.)  */
      if (write (q->bell[1], "", 1) == 1)
        q->rung = TRUE;
    }
}

void
st_record_queue_publish (StRecordQueue *q)
{
  pthread_mutex_lock (&q->lock);
  if (q->writing != NULL)
    publish_chunk (q, q->writing);
  q->pending = 0;
  ring (q);
  pthread_mutex_unlock (&q->lock);
}

void
st_record_queue_close (StRecordQueue *q)
{
  pthread_mutex_lock (&q->lock);
  if (q->writing != NULL)
    publish_chunk (q, q->writing);
  q->pending = 0;
  q->closed = TRUE;
  ring (q);
  pthread_mutex_unlock (&q->lock);
}

size_t
st_record_queue_bytes (StRecordQueue *q)
{
  size_t bytes;

  pthread_mutex_lock (&q->lock);
  bytes = q->bytes;
  pthread_mutex_unlock (&q->lock);
  return bytes + q->pending;
}

/* Under the lock: copies out up to LEN published bytes (BUF NULL:
   throws them away).  */
static size_t
take (StRecordQueue *q, uint8_t *buf, size_t len)
{
  size_t done = 0;
  Chunk *c;

  while (done < len && (c = g_queue_peek_head (&q->chunks)) != NULL)
    {
      size_t n = MIN (len - done, c->end - c->start);

      if (buf != NULL)
        memcpy (buf + done, c->data + c->start, n);
      c->start += n;
      done += n;
      if (c->start < c->end || c == q->writing)
        break;
      g_queue_pop_head (&q->chunks);
      if (q->n_spares < SPARES_MAX)
        {
          q->spares = g_slist_prepend (q->spares, c);
          q->n_spares++;
        }
      else
        g_free (c);
    }
  q->bytes -= done;
  if (q->rung && q->bytes == 0 && !q->closed)
    {
      char byte;

      if (read (q->bell[0], &byte, 1) == 1)
        q->rung = FALSE;
    }
  return done;
}

ssize_t
st_record_queue_read (void *data, void *buf, size_t len)
{
  StRecordQueue *q = data;

  for (;;)
    {
      struct pollfd pfd = { .fd = q->bell[0], .events = POLLIN };
      size_t n;
      gboolean closed;

      pthread_mutex_lock (&q->lock);
      n = take (q, buf, len);
      closed = q->closed && q->bytes == 0;
      pthread_mutex_unlock (&q->lock);
      if (n > 0 || closed || len == 0)
        return (ssize_t) n;
      if (poll (&pfd, 1, -1) < 0 && errno == EINTR)
        {
          errno = EINTR;
          return -1;
        }
    }
}

size_t
st_record_queue_peek (StRecordQueue *q, void *buf, size_t len)
{
  uint8_t *out = buf;
  size_t done = 0;

  pthread_mutex_lock (&q->lock);
  for (GList *l = q->chunks.head; l != NULL && done < len; l = l->next)
    {
      const Chunk *c = l->data;
      size_t n = MIN (len - done, c->end - c->start);

      memcpy (out + done, c->data + c->start, n);
      done += n;
      if (c->end < c->fill || c == q->writing)
        break;
    }
  pthread_mutex_unlock (&q->lock);
  return done;
}

size_t
st_record_queue_skip (StRecordQueue *q, size_t len)
{
  size_t n;

  pthread_mutex_lock (&q->lock);
  n = take (q, NULL, len);
  pthread_mutex_unlock (&q->lock);
  return n;
}

gboolean
st_record_queue_ended (StRecordQueue *q)
{
  gboolean ended;

  pthread_mutex_lock (&q->lock);
  ended = q->closed && q->bytes == 0;
  pthread_mutex_unlock (&q->lock);
  return ended;
}
