/* Buffered writing to an fd.  A write error (EPIPE included) is sticky:
   later writes are ignored and st_output_flush reports it.  */
#ifndef ST_OUTPUT_H
#define ST_OUTPUT_H

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct StOutput StOutput;

/* Takes no ownership of FD.  */
StOutput *st_output_new (int fd);
/* Writes through FUNC (as write(2): bytes taken, or -1 with errno)
   instead of an fd: st_output_fd is -1, nothing is seekable.  */
typedef ssize_t (*StOutputWriteFunc) (void *data, const void *buf,
                                      size_t len);
StOutput *st_output_new_func (StOutputWriteFunc func, void *data);
void st_output_free (StOutput *out);

void st_output_write (StOutput *out, const void *data, size_t len);
/* For a record built in place: room for LEN bytes at the end of the
   buffer, or NULL when they do not fit there now (or the output has
   failed): build them elsewhere and st_output_write them then.  The
   room holds whatever it held; st_output_commit (OUT, LEN) writes what
   was put there, and nothing else may be written in between.  */
uint8_t *st_output_reserve (StOutput *out, size_t len);
void st_output_commit (StOutput *out, size_t len);
/* Writes LEN zero bytes.  */
void st_output_pad (StOutput *out, size_t len);
/* Bytes the fd accepted so far (not counting the buffer): after a
   write error, how much of the output is really there.  */
uint64_t st_output_written (const StOutput *out);
/* Bytes written so far (buffered ones included).  */
uint64_t st_output_offset (const StOutput *out);
/* Keeps everything written from now on in memory (st_output_flush does
   not write it) until st_output_release, or until MAX_BYTES are held:
   then it goes out as usual.  For a header that can still change.  */
void st_output_hold (StOutput *out, size_t max_bytes);
void st_output_release (StOutput *out);
gboolean st_output_holding (const StOutput *out);
/* Overwrites LEN bytes at absolute OFFSET if they are still in memory
   (not yet handed to the fd); FALSE otherwise.  */
gboolean st_output_patch (StOutput *out, uint64_t offset, const void *data,
                          size_t len);
/* Returns FALSE with ERROR set if any write so far failed.  */
gboolean st_output_flush (StOutput *out, GError **error);
/* Whether the fd supports pwrite at an absolute offset (a regular file).  */
gboolean st_output_seekable (const StOutput *out);
/* Flushes, then overwrites LEN bytes at absolute OFFSET (seekable only).  */
gboolean st_output_pwrite (StOutput *out, const void *data, size_t len,
                           uint64_t offset, GError **error);
int st_output_fd (const StOutput *out);
/* Whether a write has failed (e.g. EPIPE: the reader went away).  */
gboolean st_output_failed (const StOutput *out);

#endif /* ST_OUTPUT_H */
