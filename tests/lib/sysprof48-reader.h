/* Sysprof 48.0's client reading a live unwinder's capture pipe, for the
   tests (from the facts of sysprof 48.0's muxer source): each time the
   pipe is readable it reads what the pipe holds into a 64 KiB buffer,
   skips the 256-byte file header, and hands on ONE whole frame; what the
   buffer still holds at the stop is dropped.  */
#ifndef ST_TESTS_SYSPROF48_READER_H
#define ST_TESTS_SYSPROF48_READER_H

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

#define SYSPROF48_READER_BUFFER 65536

typedef struct
{
  uint8_t buf[SYSPROF48_READER_BUFFER];
  size_t begin, end, to_skip;
} Sysprof48Reader;

typedef void (*Sysprof48BytesFunc) (const uint8_t *data, size_t len,
                                    void *user);

void sysprof48_reader_init (Sysprof48Reader *r);
/* One wake-up of the client: one read() of FD (what the buffer has room
   for), ON_READ told the bytes read, ON_FRAME the frame handed on, if a
   whole one is there.  Returns what read() returned (EINTR retried).  */
ssize_t sysprof48_reader_wake (Sysprof48Reader *r, int fd,
                               Sysprof48BytesFunc on_read,
                               Sysprof48BytesFunc on_frame, void *user);
/* Whole frames the buffer holds: what the stop drops.  */
guint sysprof48_reader_held_frames (const Sysprof48Reader *r);

#endif
