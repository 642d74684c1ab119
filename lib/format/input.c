/* Forward-only input.  A regular file is mapped: peeking costs no copy
   and what was peeked stays valid (so events can be held back without
   copying them), and the pages already consumed are given back to the
   kernel as the caller releases them, so the file never stays resident
   whole.  Anything else (pipe, FIFO, socket), and whatever a file grows
   by after it was mapped, is read into a buffer with plain read() calls
   (pread from the file's offset for a grown file).  The buffer keeps each
   byte at the same alignment (mod 16) as its input offset, so 8-aligned
   frames and records can be read in place.

   A buffer's bytes move when it makes room (the unconsumed rest goes to
   its start), unless the caller holds events in it (st_input_hold):
   then a full buffer that holds bytes the caller may hold (consumed
   before its last st_input_mark_held) is retired as it is, the rest
   copied to a fresh one, and retired buffers are kept until
   st_input_release passes their end (then kept as spares for the next,
   up to SPARE_SEGMENTS).  So a pipe's events can be held back without
   copying them, as a mapped file's are, and what is read in one go
   (garbage skipped between two events) still takes one buffer.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/domain.h"
#include "format/input.h"
#include "format/map-pager.h"
#include "util/mapping-guard.h"

#define ST_INPUT_CHUNK (1u << 20)

/* A held buffer's size (larger when a record needs more), and the empty
   ones kept for the next.  */
#define SEGMENT_BYTES (2 * ST_INPUT_CHUNK)
#define SPARE_SEGMENTS 4

/* A buffer retired while the caller held events in it.  */
typedef struct Segment Segment;
struct Segment
{
  uint8_t *data;
  size_t cap;
  size_t filled;      /* bytes read into it: DATA[0, FILLED) */
  uint64_t end;       /* input offset of DATA[FILLED] */
  Segment *next;      /* newer first (retired), or the next spare */
};

struct StInput
{
  int fd;
  uint8_t *buf;
  size_t cap;
  size_t start;     /* index of the first unconsumed byte */
  size_t end;       /* index past the last buffered byte */
  uint64_t offset;  /* input offset of buf[start] */
  gboolean eof;
  StInputWaitFunc wait_func;
  void *wait_data;
  int wait_interval_ms;
  int wake_fd;              /* -1: none */
  StInputReadFunc read_func;  /* NULL: read(2) of FD */
  void *read_data;
  gboolean holds;           /* st_input_hold: BUF's bytes never move */
  uint64_t may_hold_end;    /* the caller may hold bytes below this */
  uint64_t buf_first;       /* input offset of BUF's first byte kept */
  Segment *retired;         /* newest first */
  Segment *spares;
  guint n_spares;

  /* A mapped regular file: MAP holds file offsets [0, MAP_LEN).  */
  uint8_t *map;
  size_t map_len;
  gboolean mapped;          /* reading from MAP (not the buffer) */
  uint64_t released;        /* offsets below are given back */
  uint64_t populated;       /* page tables filled up to here (with a
                               pager: asked for again from here) */
  StMapPager *pager;        /* NULL: the system calls on this thread */
  StMappingGuard *guard;    /* MAP, against a file that shrinks */
  uint64_t intact;          /* MAP is valid below this offset */
};

/* Frees LIST and its buffers.  */
static void
free_segments (Segment *list)
{
  while (list != NULL)
    {
      Segment *s = list;
      list = s->next;
      g_free (s->data);
      g_free (s);
    }
}

/* Given back in steps of this much (MADV_DONTNEED).  */
#define ST_INPUT_RELEASE_STEP (8u << 20)

/* Page tables are filled ahead of the reader in steps of this much, one
   system call instead of a page fault every few pages (Linux 5.14's
   MADV_POPULATE_READ; without it, faults do the same).  */
#define ST_INPUT_POPULATE_STEP (4u << 20)
/* Maps FD when it is a regular file, from offset 0 (page-aligned), the
   reading starting at its current offset.  */
static void
try_map (StInput *in)
{
  struct stat st;
  off_t pos;

  if (fstat (in->fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size <= 0
      || (pos = lseek (in->fd, 0, SEEK_CUR)) < 0 || pos >= st.st_size)
    return;
  void *map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE,
                    in->fd, 0);
  if (map == MAP_FAILED)
    return;
  madvise (map, (size_t) st.st_size, MADV_SEQUENTIAL);
  in->guard = st_mapping_guard_add (map, (size_t) st.st_size);
  in->map = map;
  in->map_len = (size_t) st.st_size;
  in->intact = in->map_len;
  in->mapped = TRUE;
  in->offset = (uint64_t) pos;
  in->released = (uint64_t) pos & ~(uint64_t) 4095;
  in->populated = in->released;
}

/* The file shrank (another process truncated it): what is mapped past
   its new end reads as zeros now (see mapping-guard.h), so the mapping
   is only trusted below the lowest of that end and the first fault.  */
static void
notice_shrinking (StInput *in, uint64_t fault)
{
  struct stat st;

  if (fstat (in->fd, &st) == 0 && (uint64_t) st.st_size < in->intact)
    in->intact = (uint64_t) st.st_size;
  in->intact = MIN (in->intact, fault);
}

/* With a pager, the page tables are asked for this far ahead, and again
   half-way there.  */
#define ST_INPUT_PAGE_AHEAD (2 * ST_INPUT_POPULATE_STEP)

/* Fills the page tables ahead of OFFSET + N.  A range the kernel cannot
   fill (EFAULT: past the file's end) means the file shrank.  */
static void
populate (StInput *in, uint64_t upto)
{
  if (in->pager != NULL)
    {
      if (st_map_pager_met_end (in->pager))
        notice_shrinking (in, in->map_len);
      /* (Needed up to the next ask, here if the pager is late.)  */
      in->populated = MIN (upto + ST_INPUT_PAGE_AHEAD / 2,
                           (uint64_t) in->map_len);
      st_map_pager_populate (in->pager, in->populated,
                             ST_INPUT_PAGE_AHEAD / 2);
      return;
    }
  while (in->populated < upto && in->populated < in->map_len)
    {
      size_t len = MIN ((size_t) ST_INPUT_POPULATE_STEP,
                        in->map_len - in->populated);
      if (madvise (in->map + in->populated, len, MADV_POPULATE_READ) != 0
          && errno == EFAULT)
        notice_shrinking (in, in->map_len);
      in->populated += len;
    }
}

/* FALSE with ERROR when the N bytes at the current offset are no longer
   in the (shrunk) file.  */
static gboolean
check_intact (StInput *in, size_t n, GError **error)
{
  uint64_t fault;

  if (st_mapping_guard_faulted (in->guard, &fault))
    notice_shrinking (in, fault);
  if (in->offset + n <= in->intact)
    return TRUE;
  g_set_error (error, ST_ERROR, ST_ERROR_IO,
               "offset %" G_GUINT64_FORMAT ": the input file shrank while "
               "it was read (another process truncated it to %"
               G_GUINT64_FORMAT " bytes; it had %zu); stopped there",
               in->offset, in->intact, in->map_len);
  return FALSE;
}

/* A pipe's buffer grown to ST_INPUT_PIPE_BYTES where the system allows
   it (unprivileged, up to /proc/sys/fs/pipe-max-size: 1 MiB by
   default).  With the default 64 KiB, reading a fast writer costs a
   poll, a read and a wait on the pipe's lock every 64 KiB: a third of
   the run on a recording piped through cat.  The writer (perf record)
   blocks less too.  Never shrunk; a refusal changes nothing.  */
static void
grow_pipe (int fd)
{
  struct stat st;

  if (fstat (fd, &st) != 0 || !S_ISFIFO (st.st_mode))
    return;
  int size = fcntl (fd, F_GETPIPE_SZ);
  if (size >= 0 && size < ST_INPUT_PIPE_BYTES)
    (void) fcntl (fd, F_SETPIPE_SZ, ST_INPUT_PIPE_BYTES);
}

StInput *
st_input_new (int fd)
{
  StInput *in = g_new0 (StInput, 1);
  in->fd = fd;
  in->wake_fd = -1;
  try_map (in);
  if (!in->mapped)
    grow_pipe (fd);
  in->cap = in->mapped ? 0 : 2 * ST_INPUT_CHUNK;
  in->buf = in->mapped ? NULL : g_malloc (in->cap);
  return in;
}

void
st_input_free (StInput *in)
{
  if (in == NULL)
    return;
  if (in->map != NULL)
    {
      st_map_pager_free (in->pager);
      st_mapping_guard_remove (in->guard);
      munmap (in->map, in->map_len);
    }
  free_segments (in->retired);
  free_segments (in->spares);
  g_free (in->buf);
  g_free (in);
}

void
st_input_set_wait_func (StInput *in, unsigned interval_ms,
                        StInputWaitFunc func, void *user)
{
  in->wait_func = func;
  in->wait_data = user;
  in->wait_interval_ms = (int) MIN (interval_ms, (unsigned) G_MAXINT);
}

void
st_input_set_read_func (StInput *in, StInputReadFunc func, void *data)
{
  in->read_func = func;
  in->read_data = data;
}

void
st_input_set_wake_fd (StInput *in, int fd)
{
  in->wake_fd = fd;
}

/* Waits until a read would not block, calling the wait function while
   it would.  FALSE when that function gave up.  */
static gboolean
wait_for_data (StInput *in, GError **error)
{
  struct pollfd pfd[2] = {
    { .fd = in->fd, .events = POLLIN },
    { .fd = in->wake_fd, .events = POLLIN },   /* ignored when -1 */
  };
  int timeout = 0;

  for (;;)
    {
      int n = poll (pfd, 2, timeout);
      /* Data, end of file or an error: read() tells which.  */
      if ((n > 0 && pfd[0].revents != 0) || (n < 0 && errno != EINTR))
        return TRUE;
      if (n > 0 && pfd[1].revents != 0)
        {
          uint64_t count;
          if (!(pfd[1].revents & POLLIN)
              || (read (in->wake_fd, &count, sizeof count) < 0
                  && errno != EAGAIN))
            pfd[1].fd = -1;   /* broken: stop polling it */
        }
      if (!in->wait_func (in->wait_data))
        {
          g_set_error (error, ST_ERROR, ST_ERROR_STOPPED,
                       "stopped while waiting for input at offset %"
                       G_GUINT64_FORMAT, in->offset + (in->end - in->start));
          return FALSE;
        }
      timeout = in->wait_interval_ms;
    }
}

/* BUF retired as it is, its unconsumed rest copied to the start of a
   fresh buffer with room for KEEP bytes and a chunk.  */
static void
retire_buffer (StInput *in, size_t keep, size_t shift)
{
  size_t have = in->end - in->start;
  size_t need = MAX ((size_t) SEGMENT_BYTES, shift + keep + ST_INPUT_CHUNK);
  Segment *old = g_new (Segment, 1);
  uint8_t *fresh;

  old->data = in->buf;
  old->cap = in->cap;
  old->filled = in->end;
  old->end = in->offset + have;
  old->next = in->retired;
  in->retired = old;
  if (in->spares != NULL && need <= in->spares->cap)
    {
      Segment *spare = in->spares;
      in->spares = spare->next;
      in->n_spares--;
      fresh = spare->data;
      in->cap = spare->cap;
      g_free (spare);
    }
  else
    {
      fresh = g_malloc (need);
      in->cap = need;
    }
  memcpy (fresh + shift, in->buf + in->start, have);
  in->buf = fresh;
  in->start = shift;
  in->end = shift + have;
}

/* Makes room for N unconsumed bytes plus a chunk to read into.  */
static void
make_room (StInput *in, size_t n)
{
  size_t have = in->end - in->start;
  size_t keep = MAX (n, have);
  size_t shift = in->offset % 16;

  if (in->start + keep + ST_INPUT_CHUNK <= in->cap)
    return;
  if (in->holds && in->buf != NULL && in->buf_first < in->may_hold_end)
    {
      retire_buffer (in, keep, shift);
      in->buf_first = in->offset;
      return;
    }
  /* (Nothing in BUF can be held: it may move.)  */
  in->buf_first = in->offset;
  if (in->start != shift)
    {
      memmove (in->buf + shift, in->buf + in->start, have);
      in->start = shift;
      in->end = shift + have;
    }
  if (in->buf == NULL || shift + keep + ST_INPUT_CHUNK > in->cap)
    {
      in->cap = MAX (shift + keep + ST_INPUT_CHUNK, in->cap * 2);
      in->buf = g_realloc (in->buf, in->cap);
    }
}

/* Past the end of the mapping: the file grew since, or it ends here.  */
static void
leave_map (StInput *in)
{
  in->mapped = FALSE;
  in->start = in->end = in->offset % 16;
}

/* st_input_peek but for its usual case.  */
G_GNUC_NO_INLINE static const uint8_t *
peek (StInput *in, size_t n, size_t *available, GError **error)
{
  if (in->mapped)
    {
      size_t have = in->map_len - in->offset;
      if (have >= n)
        {
          if (in->offset + n > in->populated)
            populate (in, in->offset + n);
          if (G_UNLIKELY (in->offset + n > in->intact
                          || st_mapping_guard_faults () != 0)
              && !check_intact (in, n, error))
            {
              if (available)
                *available = 0;
              return NULL;
            }
          if (available)
            *available = have;
          return in->map + in->offset;
        }
      /* A record that runs past the mapping is read into the buffer.  */
      leave_map (in);
    }
  while (in->end - in->start < n && !in->eof)
    {
      make_room (in, n);
      if (in->map == NULL && in->wait_func != NULL
          && !wait_for_data (in, error))
        {
          if (available)
            *available = in->end - in->start;
          return NULL;
        }
      ssize_t got = in->map != NULL
        ? pread (in->fd, in->buf + in->end, in->cap - in->end,
                 (off_t) (in->offset + (in->end - in->start)))
        : in->read_func != NULL
        ? in->read_func (in->read_data, in->buf + in->end, in->cap - in->end)
        : read (in->fd, in->buf + in->end, in->cap - in->end);
      if (got < 0)
        {
          if (errno == EINTR)
            continue;
          g_set_error (error, ST_ERROR, ST_ERROR_IO,
                       "read failed at offset %" G_GUINT64_FORMAT ": %s",
                       in->offset + (in->end - in->start), g_strerror (errno));
          if (available)
            *available = in->end - in->start;
          return NULL;
        }
      if (got == 0)
        in->eof = TRUE;
      in->end += got;
    }
  if (available)
    *available = in->end - in->start;
  if (in->end - in->start < n)
    return NULL;
  return in->buf + in->start;
}

const uint8_t *
st_input_peek (StInput *in, size_t n, size_t *available, GError **error)
{
  /* Twice per record: the N bytes mapped, populated and intact, in few
     steps; anything else as peek does it.  */
  if (in->mapped && in->map_len - in->offset >= n
      && in->offset + n <= in->populated && in->offset + n <= in->intact
      && st_mapping_guard_faults () == 0)
    {
      if (available)
        *available = in->map_len - in->offset;
      return in->map + in->offset;
    }
  return peek (in, n, available, error);
}

const uint8_t *
st_input_peek_header (StInput *in, size_t n, const char *what,
                      GError **error)
{
  size_t avail = 0;
  GError *local = NULL;
  const uint8_t *p = st_input_peek (in, n, &avail, &local);

  if (p == NULL)
    {
      if (local != NULL)
        g_propagate_error (error, local);
      else
        g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                     "offset 0: input ended after %zu bytes, inside the %s",
                     avail, what);
    }
  return p;
}

void
st_input_consume (StInput *in, size_t n)
{
  if (in->mapped)
    {
      g_assert (n <= in->map_len - in->offset);
      in->offset += n;
      return;
    }
  g_assert (n <= in->end - in->start);
  in->start += n;
  in->offset += n;
}

gboolean
st_input_skip (StInput *in, uint64_t n, GError **error)
{
  while (n > 0)
    {
      size_t want = (size_t) MIN (n, (uint64_t) ST_INPUT_CHUNK);
      size_t avail = 0;
      GError *local = NULL;

      if (st_input_peek (in, want, &avail, &local) == NULL)
        {
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          st_input_consume (in, avail);
          g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                       "input ended at offset %" G_GUINT64_FORMAT
                       " while skipping %" G_GUINT64_FORMAT " more bytes",
                       in->offset, n - avail);
          return FALSE;
        }
      st_input_consume (in, want);
      n -= want;
    }
  return TRUE;
}

uint64_t
st_input_intact_end (const StInput *in)
{
  /* Not the file's size while it is whole: records decompressed from
     perf's COMPRESSED records carry the offset of the compressed record
     they came from, and may reach past its end.  */
  return in->map != NULL && in->intact < in->map_len ? in->intact
                                                     : G_MAXUINT64;
}

gboolean
st_input_check (StInput *in)
{
  return in->wait_func == NULL || in->wait_func (in->wait_data);
}

uint64_t
st_input_offset (const StInput *in)
{
  return in->offset;
}

int
st_input_fd (const StInput *in)
{
  return in->fd;
}

/* Whether LEN bytes at P lie in DATA[0, FILLED).  */
static inline gboolean
within (const uint8_t *p, size_t len, const uint8_t *data, size_t filled)
{
  return p >= data && p <= data + filled && (size_t) (data + filled - p) >= len;
}

gboolean
st_input_stable (const StInput *in, const void *ptr, size_t len)
{
  const uint8_t *p = ptr;

  if (in->map != NULL && within (p, len, in->map, in->map_len))
    return TRUE;
  if (!in->holds || in->buf == NULL)
    return FALSE;
  /* Mostly the buffer being read; else a recent one.  */
  if (within (p, len, in->buf, in->end))
    return TRUE;
  for (const Segment *s = in->retired; s != NULL; s = s->next)
    if (within (p, len, s->data, s->filled))
      return TRUE;
  return FALSE;
}

void
st_input_hold (StInput *in)
{
  in->holds = TRUE;
}

void
st_input_mark_held (StInput *in)
{
  in->may_hold_end = in->offset;
}

/* The retired buffers whose every byte lies before OFFSET: spares, or
   freed past SPARE_SEGMENTS.  */
static void
release_retired (StInput *in, uint64_t offset)
{
  Segment **link = &in->retired;

  /* Newest first: once one ends before OFFSET, all older ones do.  */
  while (*link != NULL && (*link)->end > offset)
    link = &(*link)->next;
  while (*link != NULL)
    {
      Segment *s = *link;
      *link = s->next;
      if (in->n_spares < SPARE_SEGMENTS && s->cap == SEGMENT_BYTES)
        {
          s->next = in->spares;
          in->spares = s;
          in->n_spares++;
        }
      else
        {
          s->next = NULL;
          free_segments (s);
        }
    }
}

void
st_input_trim (StInput *in)
{
  if (in->spares == NULL)
    return;
  free_segments (in->spares->next);
  in->spares->next = NULL;
  in->n_spares = 1;
}

void
st_input_release (StInput *in, uint64_t offset)
{
  if (in->retired != NULL)
    release_retired (in, MIN (offset, in->offset));
  if (in->map == NULL)
    return;
  /* Never past what was read: "nothing held" (G_MAXUINT64 from an empty
     reorder window) must not give back the pages still to come, which
     would then stay resident.  */
  offset = MIN (MIN (offset, in->offset), (uint64_t) in->map_len)
           & ~(uint64_t) 4095;
  if (offset < in->released + ST_INPUT_RELEASE_STEP)
    return;
  if (in->pager != NULL)
    st_map_pager_release (in->pager, offset);
  else
    madvise (in->map + in->released, offset - in->released, MADV_DONTNEED);
  in->released = offset;
}

gboolean
st_input_page_on_thread (StInput *in)
{
  if (in->map != NULL && in->pager == NULL)
    in->pager = st_map_pager_new (in->map, in->map_len, in->populated,
                                  in->released);
  return in->pager != NULL;
}
