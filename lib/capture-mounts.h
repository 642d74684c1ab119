/* What a Sysprof capture tells of each process's mount namespace, fed to
   the file resolver, so that a path in a process's namespace (a
   Flatpak, Toolbox or Podman container) can be found on the host:
   FILE_CHUNK frames (a file in several frames, the last one flagged) of
   its /proc/PID/mountinfo, of the recorder's /proc/mounts and of a
   Flatpak's /proc/PID/root/.flatpak-info, and OVERLAY frames (Podman's
   overlay layers).  */
#ifndef ST_CAPTURE_MOUNTS_H
#define ST_CAPTURE_MOUNTS_H

#include "model/event.h"
#include "model/file-resolver.h"

/* Bytes of one file gathered at most; a longer one is dropped.  */
#define ST_CAPTURE_MOUNTS_MAX_FILE ((size_t) 1 << 20)

typedef struct StCaptureMounts StCaptureMounts;

/* RESOLVER is borrowed; it must outlive the result.  */
StCaptureMounts *st_capture_mounts_new (StFileResolver *resolver);
void st_capture_mounts_free (StCaptureMounts *m);

/* Takes in EV if it is one of those frames.  */
void st_capture_mounts_feed (StCaptureMounts *m, const StEvent *ev);

#endif /* ST_CAPTURE_MOUNTS_H */
