/* Byte sources and sinks for the tests: see test-io.h.  */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "test-io.h"

typedef struct
{
  int fd;
  GBytes *bytes;
} FeedJob;

/* Writes the bytes in odd-sized chunks; stops quietly if the reader
   closed its end early (SIGPIPE is ignored).  */
static gpointer
feed_bytes (gpointer data)
{
  static const size_t chunks[] = { 5, 1, 250, 13, 4099, 7, 65537 };
  FeedJob *job = data;
  gsize len;
  const uint8_t *p = g_bytes_get_data (job->bytes, &len);
  size_t done = 0;
  unsigned k = 0;

  while (done < len)
    {
      /* Not inside MIN: it is a macro, which would step K twice.  */
      size_t chunk = chunks[k++ % G_N_ELEMENTS (chunks)];
      size_t n = MIN (chunk, len - done);
      ssize_t w = write (job->fd, p + done, n);
      if (w <= 0)
        break;
      done += w;
    }
  close (job->fd);
  g_bytes_unref (job->bytes);
  g_free (job);
  return NULL;
}

/* BYTES through a pipe fed by a thread, or through a regular file.  */
void
source_open (Source *s, GBytes *bytes, gboolean via_pipe)
{
  memset (s, 0, sizeof *s);
  if (via_pipe)
    {
      int fds[2];
      FeedJob *job = g_new0 (FeedJob, 1);

      g_assert_no_errno (pipe (fds));
      job->fd = fds[1];
      job->bytes = g_bytes_ref (bytes);
      s->fd = fds[0];
      s->thread = g_thread_new ("feed", feed_bytes, job);
    }
  else
    {
      GError *error = NULL;
      char *path = NULL;
      int fd = g_file_open_tmp ("st-capture-in-XXXXXX", &path, &error);
      gsize len;
      const uint8_t *p = g_bytes_get_data (bytes, &len);

      g_assert_no_error (error);
      g_assert_cmpint (write (fd, p, len), ==, (ssize_t) len);
      close (fd);
      s->fd = open (path, O_RDONLY);
      g_assert_cmpint (s->fd, >=, 0);
      g_unlink (path);
      g_free (path);
    }
}

void
source_close (Source *s)
{
  close (s->fd);
  if (s->thread != NULL)
    g_thread_join (s->thread);
}

static gpointer
drain_pipe (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  GByteArray *all = g_byte_array_new ();
  uint8_t buf[8192];
  ssize_t n;

  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_byte_array_append (all, buf, n);
  close (fd);
  return all;
}

void
sink_open (Sink *s, gboolean to_file)
{
  memset (s, 0, sizeof *s);
  if (to_file)
    {
      GError *error = NULL;
      s->fd = g_file_open_tmp ("st-capture-out-XXXXXX", &s->path, &error);
      g_assert_no_error (error);
    }
  else
    {
      int fds[2];
      g_assert_no_errno (pipe (fds));
      s->fd = fds[1];
      s->drain = g_thread_new ("drain", drain_pipe, GINT_TO_POINTER (fds[0]));
    }
}

GBytes *
sink_close (Sink *s)
{
  close (s->fd);
  if (s->drain != NULL)
    return g_byte_array_free_to_bytes (g_thread_join (s->drain));

  GError *error = NULL;
  char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (s->path, &contents, &len, &error));
  g_assert_no_error (error);
  g_unlink (s->path);
  g_free (s->path);
  return g_bytes_new_take (contents, len);
}

