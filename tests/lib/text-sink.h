/* Text that code under test prints to a FILE, collected in memory.  */
#ifndef ST_TEST_TEXT_SINK_H
#define ST_TEST_TEXT_SINK_H

#include <stdio.h>

typedef struct
{
  char *buf;
  size_t len;
  FILE *out;
} TextSink;

/* A FILE whose text text_sink_close returns.  */
FILE *text_sink_open (TextSink *s);
/* Everything printed (free with g_free).  */
char *text_sink_close (TextSink *s);

#endif /* ST_TEST_TEXT_SINK_H */
