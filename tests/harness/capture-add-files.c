/* Copies a capture, with FILE_CHUNK frames of files the recorder would
   have copied inserted after its header (Sysprof writes a process's
   /proc/PID/mountinfo and its own /proc/mounts that way), for
   tests/integration/file-resolver.sh.
   Usage: capture-add-files IN OUT PID:NAME=FILE...
   Each FILE goes as NAME, in frames of pid PID of at most 4 KiB of data
   (the last one flagged).  */
#include "config.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-bytes.h"

#define CHUNK_DATA 4096

static gboolean
write_chunks (FILE *out, int32_t pid, const char *name, const char *data,
              size_t len)
{
  GByteArray *b = g_byte_array_new ();
  size_t at = 0;

  do
    {
      size_t n = MIN (len - at, (size_t) CHUNK_DATA);

      capture_put_file_chunk (b, -1, pid, 0, at + n == len, name, data + at,
                              n);
      at += n;
    }
  while (at < len);
  gboolean ok = fwrite (b->data, 1, b->len, out) == b->len;
  g_byte_array_unref (b);
  return ok;
}

int
main (int argc, char **argv)
{
  g_autofree char *in = NULL;
  size_t in_len;

  if (argc < 4)
    {
      fprintf (stderr, "usage: capture-add-files IN OUT PID:NAME=FILE...\n");
      return 2;
    }
  if (!g_file_get_contents (argv[1], &in, &in_len, NULL)
      || in_len < CAPTURE_HEADER_BYTES)
    {
      fprintf (stderr, "capture-add-files: cannot read %s\n", argv[1]);
      return 1;
    }
  FILE *out = fopen (argv[2], "wb");
  if (out == NULL
      || fwrite (in, 1, CAPTURE_HEADER_BYTES, out)
         != CAPTURE_HEADER_BYTES)
    {
      fprintf (stderr, "capture-add-files: cannot write %s\n", argv[2]);
      return 1;
    }
  for (int i = 3; i < argc; i++)
    {
      char *colon = strchr (argv[i], ':');
      char *eq = colon != NULL ? strchr (colon, '=') : NULL;
      g_autofree char *text = NULL;
      size_t len;

      if (eq == NULL)
        {
          fprintf (stderr, "capture-add-files: bad argument %s\n", argv[i]);
          return 2;
        }
      *colon = *eq = '\0';
      if (!g_file_get_contents (eq + 1, &text, &len, NULL)
          || !write_chunks (out, (int32_t) atoi (argv[i]), colon + 1, text,
                            len))
        {
          fprintf (stderr, "capture-add-files: cannot add %s\n", eq + 1);
          return 1;
        }
    }
  size_t rest = in_len - CAPTURE_HEADER_BYTES;
  if (fwrite (in + CAPTURE_HEADER_BYTES, 1, rest, out) != rest
      || fclose (out) != 0)
    {
      fprintf (stderr, "capture-add-files: cannot write %s\n", argv[2]);
      return 1;
    }
  return 0;
}
