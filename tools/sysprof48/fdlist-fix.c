/* LD_PRELOAD into Sysprof 48's sysprof-cli on a machine without a
   hardware PMU.  Its sampler opens each CPU's perf event with hardware
   cycles first; that fails, leaves a GError set, and the cpu-clock retry
   succeeds without clearing it.  g_unix_fd_list_append then refuses
   every descriptor ("Out of FDs to add to FDList": an error already
   set) and the live unwinder is never started.  Clearing the stale
   error before the call lets the recording go on as on a machine with
   a PMU; nothing else changes.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gio/gunixfdlist.h>

gint
g_unix_fd_list_append (GUnixFDList *list, gint fd, GError **error)
{
  static gint (*real) (GUnixFDList *, gint, GError **);

  if (real == NULL)
    real = (gint (*) (GUnixFDList *, gint, GError **))
           dlsym (RTLD_NEXT, "g_unix_fd_list_append");
  if (error != NULL && *error != NULL)
    g_clear_error (error);
  return real (list, fd, error);
}
