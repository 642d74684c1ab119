/* The capture a live unwinder writes, handed to a reader that takes one
   frame per wake-up: Sysprof 48's client (its "muxer" source) reads
   whatever the pipe holds into a 64 KiB buffer each time the pipe
   becomes readable, but passes on only one frame per wake-up.  Frames
   written together pile up in that buffer, and at the stop the client
   throws the buffer away: with plain buffered writes the last 0.1-0.6 s
   of samples never reach the capture (measured with Sysprof 48.0).

   The pacer sits between the writer and the capture fd: the writer
   writes the capture stream (file header, then frames) into the pacer's
   pipe (st_capture_pacer_input_fd); a thread of the pacer copies it to
   the capture fd one frame per write, so that every frame gets a
   wake-up of its own:
   - packets (the capture fd is a pipe whose write end takes O_DIRECT,
     Linux's packet mode): each write is read by exactly one read(), so
     the reader takes one frame per wake-up and never holds any back.
     A frame is one write (the kernel cuts one over a page into packets
     of a page: the reader joins them).  No waiting, no polling.
   - polled (a pipe without packet mode): after each write the thread
     waits until the reader has taken it (FIONREAD says the pipe is
     empty), at most the wait limit; while the reader is estimated to
     hold frames it has not passed on, a frame goes out in up to
     ST_CAPTURE_PACER_MAX_PIECES pieces, each one more wake-up.  A reader
     that does not take a write within the limit is behind: what the
     pacer holds then goes out in one write, and pacing resumes once the
     pipe is seen empty.
   - unpaced (a file, a socket): copied as it comes.
   A reader that reads everything at once (a file, perf, our tests) loses
   nothing by this: it is only woken more often.  A reader must read
   whole frames at a time (Sysprof's reads 64 KiB less what it holds).

   When the capture fd's reader goes away (EPIPE), the pacer closes its
   pipe's read end, so the writer gets EPIPE as it would have.  So it
   does when the reader takes nothing more for
   ST_CAPTURE_PACER_STOP_GRACE_MS after the recorder's stop (its eventfd
   readable): Sysprof 48 drops what it has not read at the stop, and the
   unwinder must end within milliseconds of it.  At EOF
   on its pipe (the writer closed its end: st_capture_pacer_finish) the
   thread writes what is left and ends.  */
#ifndef ST_CAPTURE_PACER_H
#define ST_CAPTURE_PACER_H

#include <glib.h>
#include <stdint.h>

/* The most pieces one frame is cut into.  */
#define ST_CAPTURE_PACER_MAX_PIECES 4
/* How long a write may stay unread before the reader counts as behind.  */
#define ST_CAPTURE_PACER_WAIT_US 2000
/* After the stop, how long a reader that takes nothing is waited for.  */
#define ST_CAPTURE_PACER_STOP_GRACE_MS 50

typedef struct StCapturePacer StCapturePacer;

typedef enum
{
  ST_CAPTURE_PACER_UNPACED,
  ST_CAPTURE_PACER_PACKETS,
  ST_CAPTURE_PACER_POLLED,
} StCapturePacerMode;

typedef struct
{
  StCapturePacerMode mode;
  uint64_t frames;             /* whole frames copied */
  uint64_t writes;             /* write() calls */
  uint64_t waits_given_up;     /* writes not taken within the limit */
  uint64_t bulk_writes;        /* writes of several frames (reader behind) */
  uint64_t backlog_max;        /* frames the reader held, at most (est.) */
  uint64_t backlog_end;        /* ... at the end (est.) */
  uint64_t abandoned_bytes;    /* not taken within the stop's grace */
} StCapturePacerCounts;

/* Starts the thread.  It inherits the calling thread's timer slack
   (prctl PR_SET_TIMERSLACK), which the library never changes: its wait
   steps are tens of microseconds, so a caller that wants them kept
   creates the pacer with a slack of a microsecond or so (the live
   unwinder does).  STOP_FD: the recorder's stop eventfd (only
   polled, never read), or -1.  Takes no ownership of the fds; a pipe's
   write end is made non-blocking.  */
StCapturePacer *st_capture_pacer_new (int capture_fd, int stop_fd,
                                      GError **error);
/* The same; WAIT_US: the wait limit (0: the default); PACKETS FALSE:
   never packet mode (polled on a pipe).  */
StCapturePacer *st_capture_pacer_new_full (int capture_fd, int stop_fd,
                                           unsigned wait_us,
                                           gboolean packets, GError **error);
const char *st_capture_pacer_mode_name (StCapturePacerMode mode);
/* Changes the wait limit (microseconds; 0: the default).  */
void st_capture_pacer_set_wait (StCapturePacer *p, unsigned wait_us);
/* Where the writer writes the capture stream.  */
int st_capture_pacer_input_fd (const StCapturePacer *p);
/* Closes the input fd, waits for the thread to write what is left; the
   counts are final after it.  */
void st_capture_pacer_finish (StCapturePacer *p);
void st_capture_pacer_counts (const StCapturePacer *p,
                              StCapturePacerCounts *c);
/* Whether the capture fd's reader went away.  */
gboolean st_capture_pacer_reader_gone (const StCapturePacer *p);
void st_capture_pacer_free (StCapturePacer *p);

#endif /* ST_CAPTURE_PACER_H */
