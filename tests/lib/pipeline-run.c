/* The whole filter for the tests: see pipeline-run.h.  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "format/reader.h"
#include "format/writer.h"
#include "pipeline-run.h"

char *
run_pipeline (int in_fd, int out_fd, const StPipelineOptions *opts)
{
  return run_pipeline_full (in_fd, out_fd, opts, NULL, NULL);
}

char *
run_pipeline_full (int in_fd, int out_fd, const StPipelineOptions *opts,
                   StUnwindCounters *total, StPrimingStats *priming)
{
  GError *error = NULL;
  StReader *reader;
  StWriter *writer;
  StPipeline *p;
  char *text = NULL, *copy;
  size_t len = 0;
  FILE *mem;

  reader = st_reader_new (in_fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  writer = st_writer_new (out_fd, opts->output_format, reader,
                          opts->mode == ST_MODE_UNWIND, &error);
  g_assert_no_error (error);
  p = st_pipeline_new (reader, writer, opts);
  g_assert_true (st_pipeline_run (p, &error));
  g_assert_no_error (error);
  mem = open_memstream (&text, &len);
  st_stats_print (st_pipeline_stats (p), mem, TRUE);
  fclose (mem);
  if (total != NULL)
    *total = *st_stats_total (st_pipeline_stats (p));
  if (priming != NULL)
    *priming = *st_stats_priming (st_pipeline_stats (p));
  st_pipeline_free (p);
  st_writer_free (writer);
  st_reader_free (reader);
  copy = g_strdup (text);
  free (text);
  return copy;
}
