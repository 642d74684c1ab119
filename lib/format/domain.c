#include "config.h"

#include "format/domain.h"

G_DEFINE_QUARK (stacktrace-error-quark, st_error)
