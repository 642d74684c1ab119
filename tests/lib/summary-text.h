/* The command's summaries (src/summary.c) as text, made from the
   library's own objects through the public snapshot (lib/api), as the
   command makes them.  */
#ifndef ST_TEST_SUMMARY_TEXT_H
#define ST_TEST_SUMMARY_TEXT_H

#include <glib.h>

#include "model/file-report.h"
#include "report/callgraph-summary.h"
#include "stats.h"
#include "../../src/summary.h"

/* The summary of S (VERBOSE: -v's); g_free the text.  */
char *summary_text (const StStats *s, gboolean verbose);
/* The same for a run still going (SIGUSR1).  */
char *summary_text_so_far (const StStats *s, gboolean verbose);
/* Its part on the files of R.  */
char *summary_text_files (const StFileReport *r, gboolean verbose);
/* The call graph G, nodes under MIN_PERCENT left out.  */
char *summary_text_call_graph (const StCallgraph *g, double min_percent);

#endif /* ST_TEST_SUMMARY_TEXT_H */
