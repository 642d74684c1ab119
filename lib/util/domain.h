/* The GError domain of the stacktrace library.  */
#ifndef ST_DOMAIN_H
#define ST_DOMAIN_H

#include <glib.h>

#define ST_ERROR (st_error_quark ())
GQuark st_error_quark (void);

typedef enum
{
  ST_ERROR_IO,        /* read/write failed */
  ST_ERROR_TRUNCATED, /* input ended inside a header/frame/record */
  ST_ERROR_FORMAT,    /* malformed input */
  ST_ERROR_UNSUPPORTED,
  ST_ERROR_UNWIND,
  ST_ERROR_STOPPED,     /* a read was abandoned on request (a signal) */
  ST_ERROR_BROKEN_PIPE, /* the output's reader went away (EPIPE) */
} StErrorCode;

#endif /* ST_DOMAIN_H */
