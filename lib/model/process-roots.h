/* The root directories of the processes of a live stream, held open
   from the moment a process is seen alive, so that the files it mapped
   are still found after it ended: a short-lived process in a container
   or chroot is usually gone by the time its samples are unwound.

   A process is seen (st_process_roots_see) when a record about it is
   read (MMAP2, COMM, FORK), before time order holds it: its root is
   opened through /proc/PID/root, once, and again at an exec (the exec
   may follow a chroot).  A child inherits its parent's root at FORK
   (what fork does), unless it can be opened itself, so the children of a process in a container are
   found even if they ended before being read.  Roots are told apart by
   device and inode: one descriptor per distinct root, shared by all its
   processes.

   Bounds: at most MAX_ROOTS distinct roots are held open; a new one
   closes the least recently seen root and forgets every process that
   had it.  At most MAX_PIDS processes are remembered; a new one forgets
   the least recently seen process (its root stays held while another
   process has it or until it is the least recently seen root).

   Thread safety: every function takes the table's lock (workers open
   files while the main thread sees processes).  */
#ifndef ST_PROCESS_ROOTS_H
#define ST_PROCESS_ROOTS_H

#include <glib.h>
#include <stdint.h>

/* The bounds of st_process_roots_new_default.  */
#define ST_PROCESS_ROOTS_MAX_ROOTS 64
#define ST_PROCESS_ROOTS_MAX_PIDS 16384

typedef struct StProcessRoots StProcessRoots;

StProcessRoots *st_process_roots_new (guint max_roots, guint max_pids);
void st_process_roots_free (StProcessRoots *t);

/* PID is mentioned by a record just read.  Opens /proc/PID/root when
   PID has no root yet or EXEC (a new image, maybe in another root);
   nothing when the process is gone (what it had stays).  */
void st_process_roots_see (StProcessRoots *t, int32_t pid, gboolean exec);

/* Takes DIR_FD (a directory, O_PATH is enough) as the root of PID:
   closed here if it is a root already held.  What st_process_roots_see
   does once it opened the root; for tests, any directory.  */
void st_process_roots_set (StProcessRoots *t, int32_t pid, int dir_fd);

/* CHILD starts in PARENT's root, when known; what CHILD's pid had
   before is forgotten (a pid reused).  */
void st_process_roots_fork (StProcessRoots *t, int32_t parent,
                            int32_t child);

/* Whether PID's own root was opened (it was seen alive), not only
   inherited from its parent.  */
gboolean st_process_roots_seen_alive (StProcessRoots *t, int32_t pid);

/* Opens absolute PATH inside the root held for PID (symbolic links
   resolved inside it): a new read-only descriptor, or -1.  *INHERITED
   (set when a root is held): the root is its parent's, and PID may have
   changed it (chroot) before it ended.  */
int st_process_roots_open (StProcessRoots *t, int32_t pid, const char *path,
                           gboolean *inherited);

/* Calls FUNC with a new descriptor of PATH opened in every held root
   other than PID's (most recently seen first) where PATH exists, until
   FUNC returns TRUE; FUNC owns the descriptor.  ROOT_NUMBER: the root's,
   in the order roots were held, from 0 (its place in the list changes
   with every sighting; its number does not).  Holding the lock: FUNC
   must not call back.  */
typedef gboolean (*StRootFileFunc) (int fd, guint root_number, void *user);
void st_process_roots_foreach_other (StProcessRoots *t, int32_t pid,
                                     const char *path, StRootFileFunc func,
                                     void *user);

/* Distinct roots held, and processes remembered.  */
guint st_process_roots_n_roots (StProcessRoots *t);
guint st_process_roots_n_pids (StProcessRoots *t);

#endif /* ST_PROCESS_ROOTS_H */
