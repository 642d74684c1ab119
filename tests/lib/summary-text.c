/* The command's summaries as text (see summary-text.h).  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "api/api-private.h"
#include "summary-text.h"

typedef struct
{
  char *buf;
  size_t len;
  FILE *out;
} Text;

static FILE *
text_open (Text *t)
{
  t->buf = NULL;
  t->len = 0;
  t->out = open_memstream (&t->buf, &t->len);
  g_assert_nonnull (t->out);
  return t->out;
}

static char *
text_close (Text *t)
{
  fclose (t->out);
  char *copy = g_strdup (t->buf);
  free (t->buf);
  return copy;
}

static char *
summary_text_of (const StStats *s, gboolean verbose, gboolean so_far)
{
  StStatistics *stats = st_api_statistics_new (s, NULL, 0);
  Text t;

  st_summary_print (stats, text_open (&t), verbose,
                    st_stats_file_report (s) != NULL, so_far);
  st_statistics_free (stats);
  return text_close (&t);
}

char *
summary_text (const StStats *s, gboolean verbose)
{
  return summary_text_of (s, verbose, FALSE);
}

char *
summary_text_so_far (const StStats *s, gboolean verbose)
{
  return summary_text_of (s, verbose, TRUE);
}

char *
summary_text_files (const StFileReport *r, gboolean verbose)
{
  StStats *s = st_stats_new ();
  Text t;

  st_stats_set_file_report (s, r);
  StStatistics *stats = st_api_statistics_new (s, NULL, 0);
  st_summary_print_files (stats, text_open (&t), verbose);
  st_statistics_free (stats);
  st_stats_free (s);
  return text_close (&t);
}

char *
summary_text_call_graph (const StCallgraph *g, double min_percent)
{
  StCallGraph *graph = st_api_call_graph_new (g);
  Text t;

  st_summary_print_call_graph (graph, text_open (&t), min_percent);
  st_call_graph_free (graph);
  return text_close (&t);
}
