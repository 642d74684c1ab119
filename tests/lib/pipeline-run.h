/* Running the library's whole filter (reader, pipeline, writer) from one
   fd to another, as the command does, for the tests.  */
#ifndef ST_TEST_PIPELINE_RUN_H
#define ST_TEST_PIPELINE_RUN_H

#include "pipeline.h"

/* Reads IN_FD (format detected), writes OUT_FD in OPTS->output_format;
   asserts success.  Returns the final statistics as text, as -v prints
   them (free with g_free).  */
char *run_pipeline (int in_fd, int out_fd, const StPipelineOptions *opts);

/* Same, also copying the final counters into TOTAL and priming's figures
   into PRIMING (either may be NULL).  */
char *run_pipeline_full (int in_fd, int out_fd, const StPipelineOptions *opts,
                         StUnwindCounters *total, StPrimingStats *priming);

#endif /* ST_TEST_PIPELINE_RUN_H */
