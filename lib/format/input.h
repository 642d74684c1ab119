/* Forward-only reading of an fd (pipe, FIFO, socket or file).  Never
   seeks, so every kind of input works the same way; a regular file is
   mapped rather than copied (see input.c).  */
#ifndef ST_INPUT_H
#define ST_INPUT_H

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct StInput StInput;

/* What a pipe's buffer is grown to (st_input_new).  */
#define ST_INPUT_PIPE_BYTES (1 << 20)

/* Takes no ownership of FD.  A pipe or FIFO's buffer is grown to
   ST_INPUT_PIPE_BYTES when the system allows (fewer, larger reads).  */
StInput *st_input_new (int fd);
void st_input_free (StInput *in);

/* Reads through FUNC instead of read(2) of FD, which is then only
   polled (readable whenever FUNC would not wait): an input from another
   thread of the process (live/record-queue.h).  FUNC is as read(2):
   waits for data, 0 at the end, -1 with errno.  Before the first peek;
   not for a regular file's FD (which is mapped).  */
typedef ssize_t (*StInputReadFunc) (void *data, void *buf, size_t len);
void st_input_set_read_func (StInput *in, StInputReadFunc func, void *data);

/* Called when a read would wait for data: once as soon as none is ready,
   then every INTERVAL_MS while none comes, and after a signal interrupted
   the wait.  Lets a live filter flush its output, report progress and
   notice signals while its input stalls.  Returning FALSE abandons the
   read: st_input_peek then fails with ST_ERROR_STOPPED.  */
typedef gboolean (*StInputWaitFunc) (void *user);
void st_input_set_wait_func (StInput *in, unsigned interval_ms,
                             StInputWaitFunc func, void *user);
/* While a read waits (with a wait function), FD becoming readable calls
   the wait function at once too; FD is read (8 bytes, an eventfd) to
   clear it.  -1: none.  */
void st_input_set_wake_fd (StInput *in, int fd);

/* A mapped file that shrank while it was read (another process
   truncated it): the offset from which what was peeked is gone (it
   reads as zeros); G_MAXUINT64 while the input is whole.  A peek past
   it fails with an error naming the offset.  */
uint64_t st_input_intact_end (const StInput *in);

/* Calls the wait function now (TRUE without one): for a long stretch of
   work that never waits, such as skipping endless garbage, which must
   still notice a stop.  FALSE: the owner asked to stop.  */
gboolean st_input_check (StInput *in);

/* Makes N bytes available and returns a pointer to them, without
   consuming them.  The pointer stays valid after st_input_consume (which
   never moves the buffer) until the next peek or skip.  Returns NULL
   with *AVAILABLE set to what is left when the input ends first (*AVAILABLE 0 is a clean EOF), or NULL with ERROR set
   on a read error.  */
const uint8_t *st_input_peek (StInput *in, size_t n, size_t *available,
                              GError **error);

/* st_input_peek of a file header at offset 0: when the input ends
   first, the error says "offset 0: input ended after N bytes, inside the
   WHAT".  */
const uint8_t *st_input_peek_header (StInput *in, size_t n, const char *what,
                                     GError **error);

/* Whether LEN bytes at PTR (from a peek) stay valid until released with
   st_input_release, rather than until the next peek: true of a mapped
   file, and of what is read once the caller holds (st_input_hold).  */
gboolean st_input_stable (const StInput *in, const void *ptr, size_t len);

/* A mapped file's page tables filled ahead, and its pages given back,
   on a thread of the input's own (map-pager.h), for a caller whose
   thread is the bottleneck while others wait for it (--jobs).  FALSE
   when the input is not mapped or the thread cannot be started: the
   system calls stay on the caller's thread.  */
gboolean st_input_page_on_thread (StInput *in);

/* The caller holds what it peeks, until released (st_input_release):
   from now on the bytes read are never moved, and st_input_stable is
   true of them too.  Memory: the buffers from the oldest byte held to
   the newest read, and up to 8 MiB of spares.  */
void st_input_hold (StInput *in);
/* What was consumed so far may be held (the caller is about to read
   its next event); what is consumed from now on until the next mark
   is not, so that bytes read in one go (garbage skipped) may move.  */
void st_input_mark_held (StInput *in);

/* The caller holds nothing before input OFFSET any more: a mapped file's
   pages there can go, and so can held buffers.  */
void st_input_release (StInput *in, uint64_t offset);

/* The input is idle: spare buffers given back but one.  */
void st_input_trim (StInput *in);

/* Consumes N bytes that were peeked.  */
void st_input_consume (StInput *in, size_t n);

/* Discards N bytes (which need not have been peeked).  Returns FALSE with
   ERROR set when the input ends first or fails.  */
gboolean st_input_skip (StInput *in, uint64_t n, GError **error);

/* Bytes consumed so far: the input offset of the next byte.  */
uint64_t st_input_offset (const StInput *in);

/* The fd, e.g. for pread() of trailing sections when it is seekable.  */
int st_input_fd (const StInput *in);

#endif /* ST_INPUT_H */
