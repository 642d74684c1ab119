#include "config.h"

#include "util/domain.h"

G_DEFINE_QUARK (stacktrace-error-quark, st_error)
