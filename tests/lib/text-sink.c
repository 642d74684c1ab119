/* Printed text collected in memory: see text-sink.h.  */
#include "config.h"

#include <glib.h>
#include <stdlib.h>

#include "text-sink.h"

FILE *
text_sink_open (TextSink *s)
{
  s->buf = NULL;
  s->len = 0;
  s->out = open_memstream (&s->buf, &s->len);
  g_assert_nonnull (s->out);
  return s->out;
}

char *
text_sink_close (TextSink *s)
{
  g_assert_cmpint (fclose (s->out), ==, 0);
  char *text = g_strdup (s->buf);
  free (s->buf);
  s->buf = NULL;
  s->out = NULL;
  return text;
}
