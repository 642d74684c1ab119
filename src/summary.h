/* The command's summaries on standard error, made of the library's
   statistics (StStatistics) and call graph (StCallGraph): after the
   run, and on SIGUSR1 while it runs.  */
#ifndef ST_SUMMARY_H
#define ST_SUMMARY_H

#include <glib.h>
#include <stdio.h>

#include <stacktrace-1/stacktrace.h>

/* Unusable files listed after the run; the others are summed.  */
#define ST_SUMMARY_UNUSABLE_FILES 10

/* The statistics.  VERBOSE adds a line per process, every module's
   file, and the input's records that have no counterpart in the output
   format (without it, that line comes only when samples, maps or comms
   were among them).  WITH_FILES: the run got as far as looking for
   files (before, nothing is said of them).  SO_FAR: the run goes on
   (SIGUSR1): the total line is the counters as they stand, never a
   conclusion about the input (samples not unwound yet may be waiting
   for their modules).  */
void st_summary_print (const StStatistics *stats, FILE *out,
                       gboolean verbose, gboolean with_files,
                       gboolean so_far);

/* Its part on the modules' files: with VERBOSE every one, else the
   unusable ones that cost samples.  */
void st_summary_print_files (const StStatistics *stats, FILE *out,
                             gboolean verbose);

/* The call graph's nodes holding at least MIN_PERCENT of the samples,
   as an indented tree (--summary).  */
void st_summary_print_call_graph (const StCallGraph *graph, FILE *out,
                                  double min_percent);

#endif /* ST_SUMMARY_H */
