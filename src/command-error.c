/* The command's GError domain; see command-error.h.  */
#include "config.h"

#include "command-error.h"

G_DEFINE_QUARK (st-command-error-quark, st_command_error)
