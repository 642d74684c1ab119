/* Feeding bytes to code under test through a pipe (in odd-sized chunks)
   or a regular file, and collecting what it writes to a pipe or a
   regular file.  SIGPIPE must be ignored by the test.  */
#ifndef ST_TEST_IO_H
#define ST_TEST_IO_H

#include <glib.h>

typedef struct
{
  int fd;
  GThread *thread;
} Source;

/* S->fd reads BYTES: a pipe fed by a thread, or an unlinked file.  */
void source_open (Source *s, GBytes *bytes, gboolean via_pipe);
/* Closes S->fd and joins the feeder.  */
void source_close (Source *s);

typedef struct
{
  int fd;
  char *path;
  GThread *drain;
} Sink;

/* S->fd writes to a regular file (TO_FILE) or to a pipe drained by a
   thread.  */
void sink_open (Sink *s, gboolean to_file);
/* Closes S->fd; everything written.  */
GBytes *sink_close (Sink *s);

#endif /* ST_TEST_IO_H */
