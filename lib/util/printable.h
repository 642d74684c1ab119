/* Names that come from the input (process names, file and symbol
   names) made safe to print on a terminal: a name is whatever the
   recorded program chose, and a newline or an escape sequence in it
   would forge lines or drive the terminal.  */
#ifndef ST_PRINTABLE_H
#define ST_PRINTABLE_H

#include <glib.h>

/* A copy of NAME with control characters, invalid UTF-8 bytes and
   backslashes escaped: \n, \t, \r, \\; other C0 controls and DEL as
   \xNN, the C1 range (U+0080..U+009F) as \uNNNN, and a byte that is not
   UTF-8 as \xNN (so the two cannot be mistaken).  Printable UTF-8 stays
   as it is.  */
char *st_printable (const char *name);

/* Whether NAME needs st_printable at all (the common case is not).  */
gboolean st_printable_as_is (const char *name);

#endif /* ST_PRINTABLE_H */
