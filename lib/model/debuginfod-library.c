#include "config.h"

#include <dlfcn.h>
#include <glib.h>
#include <string.h>

#include "model/debuginfod-library.h"

/* The soname Debian's libdebuginfod1 installs (elfutils 0.188).  */
#define LIBDEBUGINFOD_SONAME "libdebuginfod.so.1"

static StDebuginfodLibrary library;
static const char *load_error;

static gboolean
load (void)
{
  void *h = dlopen (LIBDEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);

  if (h == NULL)
    {
      load_error = g_intern_string (dlerror ());
      return FALSE;
    }
  /* Each pointer through a void * of its own: ISO C has no conversion
     from void * to a function pointer, POSIX guarantees this one.  */
#define GET(field, symbol)                                      \
  do                                                            \
    {                                                           \
      void *sym = dlsym (h, symbol);                            \
      if (sym == NULL)                                          \
        {                                                       \
          load_error = g_intern_string (dlerror ());            \
          dlclose (h);                                          \
          return FALSE;                                         \
        }                                                       \
      memcpy (&library.field, &sym, sizeof sym);                \
    }                                                           \
  while (0)
  GET (begin, "debuginfod_begin");
  GET (end, "debuginfod_end");
  GET (find_executable, "debuginfod_find_executable");
  GET (find_debuginfo, "debuginfod_find_debuginfo");
  GET (set_progressfn, "debuginfod_set_progressfn");
  GET (set_user_data, "debuginfod_set_user_data");
  GET (get_user_data, "debuginfod_get_user_data");
#undef GET
  /* Never closed: clients may live until exit.  */
  return TRUE;
}

const StDebuginfodLibrary *
st_debuginfod_library (const char **why)
{
  static gsize state;   /* 0: not tried; 1: loaded; 2: failed */

  if (g_once_init_enter (&state))
    g_once_init_leave (&state, load () ? 1 : 2);
  if (state == 1)
    return &library;
  if (why != NULL)
    *why = load_error;
  return NULL;
}
