/* Which local file holds the contents of a mapping, and whether it is
   really the file that was mapped.  Used by the module cache for every
   module (so by both engines, by priming and before debuginfod).

   Candidates, in order (the first that opens and passes verification
   is used):
     1. --symfs DIR: DIR/PATH, then DIR/BASENAME;
     2. the process's own files, while it lives (the process may run in
        a chroot or container where PATH names another file than on the
        host): /proc/PID/root/PATH, then /proc/PID/map_files/START-END
        (also a file deleted or replaced since it was mapped); in a live
        stream, once it ended, PATH in the root held for it since it
        was seen alive (process-roots.h);
     3. PATH translated through what a Sysprof capture tells of the
        process's mount namespace: its /proc/PID/mountinfo (with the
        recorder's /proc/mounts), its overlay layers (OVERLAY frames,
        Podman), its /.flatpak-info (app-path, runtime-path);
     3b. in a live stream, PATH in the other roots held (a process of
        a container that ended before it was seen, in the root of
        another process of that container): only the very file that
        was mapped, by build-id or by device and inode;
     4. perf's build-id cache by build-id: --buildid-dir DIR, the
        --symfs DIR when it holds a .build-id directory, then
        $PERF_BUILDID_DIR or ~/.debug (DIR/.build-id/NN/REST[/elf or
        /vdso], as perf record and an unpacked perf archive leave them);
     5. the recorded PATH itself;
     6. debuginfod by build-id (the module cache's finder), only when a
        build-id is known and nothing local passed.

   Verification, strongest first: the build-id when the stream recorded
   one (perf.data BUILD_ID feature and HEADER_BUILD_ID, MMAP2 of perf
   record --buildid-mmap, Sysprof's "PATH\0@BUILDID" MAP names); else,
   for the files of this machine (candidates 2 and 5) when the stream
   recorded the device and inode (MMAP2) and the file lies on that very
   device, the inode: the same device number means the same mounted
   filesystem of the machine that recorded, so another inode means
   another file (rebuilt or replaced); else the file is used and counted
   as unverified.  A file that fails verification is never used.

   The process's own files are opened on the main thread when a mapping
   is first seen (st_file_pins_open), while the process still exists:
   the descriptors keep the files readable after it exited, until the
   module is prepared.  A live stream also holds the roots of its
   processes from the moment a record about them is read
   (st_file_resolver_hold_roots).  */
#ifndef ST_FILE_RESOLVER_H
#define ST_FILE_RESOLVER_H

#include <glib.h>
#include <stdint.h>
#include <sys/stat.h>

#include "model/address-space.h"
#include "model/process-roots.h"

typedef enum
{
  ST_FILE_SOURCE_NONE,
  ST_FILE_SOURCE_SYMFS,
  ST_FILE_SOURCE_PROC_ROOT,     /* /proc/PID/root/PATH */
  ST_FILE_SOURCE_MAP_FILES,     /* /proc/PID/map_files/START-END */
  ST_FILE_SOURCE_MOUNTS,        /* the capture's mount table */
  ST_FILE_SOURCE_BUILDID_DIR,   /* perf's build-id cache */
  ST_FILE_SOURCE_RECORDED,      /* the recorded path */
  ST_FILE_SOURCE_DEBUGINFOD,
  ST_FILE_SOURCE_VDSO,          /* our own [vdso] */
  ST_FILE_SOURCE_OTHER_ROOT,    /* another held root (process-roots.h) */
  ST_FILE_SOURCE_N
} StFileSource;

typedef enum
{
  ST_FILE_UNVERIFIED,
  ST_FILE_VERIFIED_BUILD_ID,
  ST_FILE_VERIFIED_INODE,
} StFileVerification;

/* Why no file could be used, least telling first: the one kept for a
   module is the most telling of its candidates'.  */
typedef enum
{
  ST_FILE_OK,
  ST_FILE_MISSING,
  ST_FILE_NOT_REGULAR,
  ST_FILE_NOT_ELF,
  ST_FILE_NO_UNWIND_DATA,
  ST_FILE_DEBUG_WITHOUT_CFI,    /* a debug file, no .debug_frame in it */
  ST_FILE_REPLACED,             /* same device, another inode */
  ST_FILE_BUILD_ID_MISMATCH,
  ST_FILE_PROCESS_GONE,         /* same device, another inode, and the
                                   process ended before its files were
                                   found (live stream): its root was
                                   another (a container, a chroot) */
  ST_FILE_PROBLEM_N
} StFileProblem;

const char *st_file_source_name (StFileSource source);
const char *st_file_verification_name (StFileVerification how);
/* A short word for PROBLEM ("missing", "build-id mismatch"...).  */
const char *st_file_problem_name (StFileProblem problem);
/* One line of advice for a file of PATH with PROBLEM; HAS_BUILD_ID: the
   stream recorded its build-id.  */
const char *st_file_problem_advice (StFileProblem problem,
                                    gboolean has_build_id);

typedef struct StFileResolver StFileResolver;

/* SYMFS and BUILDID_DIR may be NULL.  PERF_CACHE_DIR, perf's own
   build-id cache of the user ($PERF_BUILDID_DIR, else ~/.debug: the
   caller reads the environment, the library never does), is searched
   after BUILDID_DIR; NULL: none.  */
StFileResolver *st_file_resolver_new_full (const char *symfs,
                                           const char *buildid_dir,
                                           const char *perf_cache_dir);
/* The same without a perf cache.  */
StFileResolver *st_file_resolver_new (const char *symfs,
                                      const char *buildid_dir);
void st_file_resolver_free (StFileResolver *r);

const char *st_file_resolver_symfs (const StFileResolver *r);

/* Live stream: hold the roots of the processes from now on (the table
   is the resolver's; bounds in process-roots.h).  Before modules open.  */
void st_file_resolver_hold_roots (StFileResolver *r);
/* Live stream, --jobs: ROOTS, another resolver's (not owned, outliving
   R), instead: a worker's resolver finds files in the roots held for
   the pipeline's thread.  Before modules open.  */
void st_file_resolver_share_roots (StFileResolver *r, StProcessRoots *roots);

/* From now on only the files the user gave: --symfs DIR and the build-id
   directories given (--buildid-dir, DIR/.build-id), never this machine's
   (the recorded paths, /proc, perf's ~/.debug or $PERF_BUILDID_DIR).
   Call before the module cache is made: it also leaves out our own
   [vdso].  */
void st_file_resolver_set_given_only (StFileResolver *r);
gboolean st_file_resolver_given_only (const StFileResolver *r);
/* The held roots, or NULL when not live.  */
StProcessRoots *st_file_resolver_roots (const StFileResolver *r);

/* Mount tables kept at most (one per process).  */
#define ST_FILE_RESOLVER_MAX_TABLES 4096

/* Takes in the text of a /proc/PID/mountinfo a capture carries (PID 0:
   the mount table of the machine that recorded, /proc/mounts).  Any
   thread; a module of PID opened before it came does not use it.  */
void st_file_resolver_add_mountinfo (StFileResolver *r, int32_t pid,
                                     const char *text, size_t len);

/* A directory HOST of the recorder seen at INSIDE in process PID (an
   overlay layer, a Flatpak's /app and /usr): tried for a path under
   INSIDE, lowest ORDER first.  At most ST_FILE_RESOLVER_MAX_PREFIXES per
   process.  Any thread.  */
#define ST_FILE_RESOLVER_MAX_PREFIXES 64
void st_file_resolver_add_prefix (StFileResolver *r, int32_t pid,
                                  const char *inside, const char *host,
                                  guint order);

/* The process's own files, opened at a mapping's first sight.  */
typedef struct
{
  int root_fd;      /* /proc/PID/root/PATH, or -1 */
  int map_fd;       /* /proc/PID/map_files/START-END, or -1 */
} StFilePins;

#define ST_FILE_PINS_NONE ((StFilePins) { -1, -1 })

/* Opens MAP's files through its process, if it is alive (a few system
   calls; nothing when MAP names no process or no absolute path).  */
void st_file_pins_open (StFilePins *pins, const StMap *map);
void st_file_pins_close (StFilePins *pins);
static inline gboolean
st_file_pins_any (const StFilePins *pins)
{
  return pins->root_fd >= 0 || pins->map_fd >= 0;
}

typedef struct
{
  StFileSource source;
  char *path;       /* for messages and later reading by name */
  int fd;           /* a descriptor, or -1: open PATH */
  gboolean owns_fd; /* FD is closed by st_file_candidates_free (else
                       borrowed: a pin) */
  gboolean process_unseen;  /* the process was never seen alive (its
                               root at most inherited): the path may name
                               another file than in its root */
} StFileCandidate;

/* MAP's candidates in perf's build-id caches alone (none without a
   recorded build-id): where a kernel's [vdso] recorded elsewhere is
   found.  Free with st_file_candidates_free.  */
GArray *st_file_resolver_buildid_candidates (const StFileResolver *r,
                                             const StMap *map);

/* The copies of a [vdso] in the build-id caches the user gave
   (--buildid-dir, --symfs with a .build-id), DIR/[vdso]/BUILD-ID/vdso:
   where a [vdso] recorded without its build-id may be found.  Free with
   st_file_candidates_free.  */
GArray *st_file_resolver_given_vdsos (const StFileResolver *r);

/* The local candidates for MAP's file recorded as PATH (without
   " (deleted)"), in order, ending with the recorded path.  Safe on any
   thread.  Free with st_file_candidates_free.  */
GArray *st_file_resolver_candidates (const StFileResolver *r,
                                     const StMap *map, const char *path,
                                     const StFilePins *pins);
void st_file_candidates_free (GArray *candidates);

/* Checks the identity of a candidate file from SOURCE with status ST
   against what MAP recorded, before its contents are read: ST_FILE_OK
   and *HOW, or ST_FILE_REPLACED.  The build-id is checked later, by the
   caller, once the ELF file is read.  */
StFileProblem st_file_check_inode (const StMap *map, StFileSource source,
                                   const struct stat *st,
                                   StFileVerification *how);

/* "a1b2..." (newly allocated).  */
char *st_build_id_hex (const uint8_t *id, guint len);

#endif /* ST_FILE_RESOLVER_H */
