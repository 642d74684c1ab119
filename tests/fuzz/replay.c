/* Runs a fuzz target's entry point over saved inputs: the files named on
   the command line, or every file in the directories named.  Built with
   the normal compiler for make check (tests/integration/fuzz-replay.sh).  */
#include "config.h"

#include <glib.h>
#include <stdio.h>

#include "fuzz-common.h"

static int
run_file (const char *path)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *error = NULL;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      fprintf (stderr, "replay: %s\n", error->message);
      g_error_free (error);
      return 1;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  g_free (data);
  return 0;
}

int
main (int argc, char **argv)
{
  int failed = 0, n = 0;

  for (int i = 1; i < argc; i++)
    {
      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          failed |= run_file (argv[i]);
          n++;
          continue;
        }
      GDir *dir = g_dir_open (argv[i], 0, NULL);
      const char *name;
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
      if (dir != NULL)
        g_dir_close (dir);
      for (guint k = 0; k < names->len; k++)
        {
          failed |= run_file (names->pdata[k]);
          n++;
        }
      g_ptr_array_unref (names);
    }
  printf ("replay: %d input(s)\n", n);
  return failed;
}
