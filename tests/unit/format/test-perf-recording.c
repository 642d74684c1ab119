/* perf's recording facts (lib/format/perf-recording.c): the recorded
   program's command from perf's CMDLINE (the arguments after "--", else
   the first one that is the program, as the kernel cuts its name to 15
   characters), and damaged or empty feature sections ignored.  */
#include "config.h"

#include <glib.h>

#include "format/perf-recording.h"
#include "format/perf-types.h"

/* perf's CMDLINE names the recorded program by the arguments after
   "--", else by the first argument that is the program (as the kernel
   cuts its name to 15 characters).  */
static void
test_recording_command (void)
{
  static const char *const dashes[] = { "perf", "record", "-o", "prog.data",
                                        "--", "./prog", "-x", NULL };
  static const char *const plain[] = { "perf", "record", "-g",
                                       "/opt/a-very-long-program-name", "1",
                                       NULL };
  StPerfRecording rec = { 0 };
  char *cmd;

  rec.argv = g_strdupv ((char **) dashes);
  cmd = st_perf_recording_command (&rec, "prog");
  g_assert_cmpstr (cmd, ==, "./prog -x");
  g_free (cmd);
  g_assert_null (st_perf_recording_command (&rec, "sh"));
  st_perf_recording_clear (&rec);

  rec.argv = g_strdupv ((char **) plain);
  cmd = st_perf_recording_command (&rec, "a-very-long-pro");
  g_assert_cmpstr (cmd, ==, "/opt/a-very-long-program-name 1");
  g_free (cmd);
  g_assert_null (st_perf_recording_command (&rec, "a-very-long"));
  st_perf_recording_clear (&rec);

  /* Damaged: a string longer than the section.  */
  static const uint8_t bad[] = { 1, 0, 0, 0, 200, 0, 0, 0, 'p', 0 };
  st_perf_recording_feature (&rec, ST_PERF_FEAT_CMDLINE, bad, sizeof bad);
  g_assert_null (rec.argv);
  /* SAMPLE_TIME of a pipe (zeros) is unknown.  */
  static const uint64_t zeros[2] = { 0, 0 };
  st_perf_recording_feature (&rec, ST_PERF_FEAT_SAMPLE_TIME,
                             (const uint8_t *) zeros, sizeof zeros);
  g_assert_cmpint (rec.first_sample, ==, 0);
  st_perf_recording_clear (&rec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/perf-recording/command", test_recording_command);
  return g_test_run ();
}
