/* The GError domain of the command's own errors (src/): what its parts
   report to stacktrace.c, which prints the message.  Options errors
   stay G_OPTION_ERROR (a usage error, exit status 2).  */
#ifndef ST_COMMAND_ERROR_H
#define ST_COMMAND_ERROR_H

#include <glib.h>

#define ST_COMMAND_ERROR (st_command_error_quark ())
GQuark st_command_error_quark (void);

typedef enum
{
  ST_COMMAND_ERROR_FAILED,     /* the library's message says why */
  ST_COMMAND_ERROR_IO,         /* a system call failed, or a process is
                                  gone */
} StCommandErrorCode;

#endif /* ST_COMMAND_ERROR_H */
