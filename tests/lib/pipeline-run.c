/* The whole filter for the tests: see pipeline-run.h.  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "format/reader.h"
#include "format/writer.h"
#include "pipeline-run.h"
#include "summary-text.h"

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
  char *text;

  reader = st_reader_new (in_fd, ST_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  writer = st_writer_new (out_fd, opts->output_format, reader,
                          opts->mode == ST_MODE_UNWIND, &error);
  g_assert_no_error (error);
  p = st_pipeline_new (reader, writer, opts);
  g_assert_true (st_pipeline_run (p, &error));
  g_assert_no_error (error);
  text = summary_text (st_pipeline_stats (p), TRUE);
  if (total != NULL)
    *total = *st_stats_total (st_pipeline_stats (p));
  if (priming != NULL)
    *priming = *st_stats_priming (st_pipeline_stats (p));
  st_pipeline_free (p);
  st_writer_free (writer);
  st_reader_free (reader);
  return text;
}
