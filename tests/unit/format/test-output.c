/* StOutput (lib/format/output.c): buffered writes and zero padding to a
   pipe (3 MiB of a known pattern read back whole), no pwrite on a pipe,
   a broken pipe as its own sticky error, pwrite patches in a regular
   file with appends continuing at the end, and records built in place
   (st_output_reserve) among written ones, over more than the buffer
   holds: the same bytes in the same order.  */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "util/domain.h"
#include "format/output.h"

#include "test-io.h"

static uint8_t
pattern (uint64_t i)
{
  return (uint8_t) (i * 7 + (i >> 8) + (i >> 16));
}

static void
test_output_pipe (void)
{
  Sink sink;
  GError *error = NULL;

  sink_open (&sink, FALSE);
  StOutput *out = st_output_new (sink.fd);
  const size_t big = 3 * 1024 * 1024 + 3;
  uint8_t *data = g_malloc (big);

  for (size_t i = 0; i < big; i++)
    data[i] = pattern (i);

  g_assert_false (st_output_seekable (out));
  g_assert_cmpint (st_output_fd (out), ==, sink.fd);
  st_output_write (out, "abc", 3);
  st_output_pad (out, 5);
  g_assert_cmpuint (st_output_offset (out), ==, 8);
  st_output_write (out, data, big);
  st_output_pad (out, 100);
  st_output_write (out, "z", 1);
  g_assert_cmpuint (st_output_offset (out), ==, 8 + big + 101);

  /* No pwrite on a pipe.  */
  g_assert_false (st_output_pwrite (out, "x", 1, 0, &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_IO);
  g_clear_error (&error);

  g_assert_true (st_output_flush (out, &error));
  g_assert_no_error (error);
  st_output_free (out);

  gsize len;
  GBytes *bytes = sink_close (&sink);
  const uint8_t *all = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, ==, 8 + big + 101);
  g_assert_cmpmem (all, 3, "abc", 3);
  for (size_t i = 3; i < 8; i++)
    g_assert_cmpuint (all[i], ==, 0);
  g_assert_cmpmem (all + 8, big, data, big);
  for (size_t i = 8 + big; i < 8 + big + 100; i++)
    g_assert_cmpuint (all[i], ==, 0);
  g_assert_cmpuint (all[len - 1], ==, 'z');
  g_bytes_unref (bytes);
  g_free (data);
}

static void
test_output_epipe (void)
{
  int fds[2];
  GError *error = NULL;

  g_assert_no_errno (pipe (fds));
  close (fds[0]);

  StOutput *out = st_output_new (fds[1]);
  st_output_write (out, "hello", 5);
  g_assert_false (st_output_flush (out, &error));
  /* Its own code: the command ends cleanly with one message.  */
  g_assert_error (error, ST_ERROR, ST_ERROR_BROKEN_PIPE);
  g_assert_nonnull (strstr (error->message, "broken pipe"));
  g_clear_error (&error);

  /* Sticky: later writes are ignored, no room is given, the error
     stays.  */
  st_output_write (out, "more", 4);
  g_assert_null (st_output_reserve (out, 4));
  g_assert_false (st_output_flush (out, &error));
  g_assert_error (error, ST_ERROR, ST_ERROR_BROKEN_PIPE);
  g_clear_error (&error);

  st_output_free (out);
  close (fds[1]);
}

static void
test_output_file_pwrite (void)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("st-output-XXXXXX", &path, &error);
  char *contents = NULL;
  gsize len = 0;

  g_assert_no_error (error);
  StOutput *out = st_output_new (fd);
  g_assert_true (st_output_seekable (out));
  st_output_write (out, "0123456789", 10);
  st_output_pad (out, 6);
  g_assert_true (st_output_pwrite (out, "AB", 2, 3, &error));
  g_assert_no_error (error);
  /* Appending after a pwrite continues at the end.  */
  st_output_write (out, "end", 3);
  g_assert_true (st_output_flush (out, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (st_output_offset (out), ==, 19);
  st_output_free (out);
  close (fd);

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (contents, len, "012AB56789\0\0\0\0\0\0end", 19);
  g_free (contents);
  g_unlink (path);
  g_free (path);
}

static void
test_output_reserve (void)
{
  Sink sink;
  GError *error = NULL;
  StOutput *out;
  const size_t total = 3 * 1024 * 1024;
  uint8_t rec[251];
  size_t at = 0;
  guint built = 0, refused = 0;
  GBytes *bytes;
  gsize len;
  const uint8_t *all;

  sink_open (&sink, FALSE);
  out = st_output_new (sink.fd);
  /* No room asked, no room given.  */
  g_assert_null (st_output_reserve (out, 0));
  while (at < total)
    {
      /* Records of 1 to 251 bytes, every third one written.  */
      size_t n = 1 + at % sizeof rec;
      uint8_t *room = at % 3 == 0 ? NULL : st_output_reserve (out, n);

      for (size_t i = 0; i < n; i++)
        rec[i] = pattern (at + i);
      if (room != NULL)
        {
          memcpy (room, rec, n);
          st_output_commit (out, n);
          built++;
        }
      else
        {
          refused += at % 3 != 0;
          st_output_write (out, rec, n);
        }
      at += n;
      g_assert_cmpuint (st_output_offset (out), ==, at);
    }
  /* The buffer's end had no room for some.  */
  g_assert_cmpuint (refused, >, 0);
  g_assert_cmpuint (built, >, 1000);
  g_assert_true (st_output_flush (out, &error));
  g_assert_no_error (error);
  st_output_free (out);

  bytes = sink_close (&sink);
  all = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, ==, at);
  for (size_t i = 0; i < len; i++)
    if (all[i] != pattern (i))
      g_assert_cmpuint (all[i], ==, pattern (i));
  g_bytes_unref (bytes);
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/output/pipe", test_output_pipe);
  g_test_add_func ("/output/epipe", test_output_epipe);
  g_test_add_func ("/output/file-pwrite", test_output_file_pwrite);
  g_test_add_func ("/output/reserve", test_output_reserve);
  return g_test_run ();
}
