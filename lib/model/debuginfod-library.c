#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <glib.h>
#include <string.h>

#include "model/debuginfod-library.h"

/* The soname Debian's libdebuginfod1 installs (elfutils 0.188).  */
#define LIBDEBUGINFOD_SONAME "libdebuginfod.so.1"

/* Process-wide on purpose, the one table of the kind: what dlopen loads
   is loaded into the process (and libcurl's exit handlers forbid
   closing it while it might be used), so the function pointers are the
   same for every context.  Written once under pthread_once, read-only
   after: two contexts never see each other's state through it.  */
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

static gboolean loaded;

static void
load_once (void)
{
  loaded = load ();
}

const StDebuginfodLibrary *
st_debuginfod_library (const char **why)
{
  /* pthread_once rather than g_once: ThreadSanitizer sees it.  */
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, load_once);
  if (loaded)
    return &library;
  if (why != NULL)
    *why = load_error;
  return NULL;
}
