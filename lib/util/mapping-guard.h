/* Mapped files that shrink under us.  A file truncated by another
   process while it is mapped raises SIGBUS on the next read of a page
   past its new end: the input file (format/input.c maps it) or a module
   file (libelf's mapping, read by the .eh_frame reader, the rule cache,
   libdw and libdwfl).  Registered ranges are guarded: the SIGBUS handler
   puts a page of zeros in place of the missing one (mmap MAP_FIXED,
   async-signal-safe), marks the range, and the read resumes, so the
   process never dies of it.  The owner of the range checks the mark at
   a point where it can give up cleanly (the input: before handing out
   bytes; modules: after each unwind, only once some fault happened) and
   treats everything read from the range since as garbage.

   Why this and not read() into buffers or sigsetjmp around the reads:
   libdw and libdwfl read the mapping directly and cannot be unwound out
   of with longjmp; copying each module (or the input) costs memory and a
   copy per byte; a handler costs nothing until a file actually shrinks,
   and the hot path pays one relaxed atomic load per sample.

   Files that libdw and libdwfl map themselves (separate debug files, dwz
   files: our debug-file search hands them a descriptor, libelf maps it
   where we never see) are guarded by identity instead: on a SIGBUS
   outside every range the handler looks the address up in
   /proc/self/maps (open and read are async-signal-safe) and repairs it
   if the mapping is of a guarded file.

   Process-wide on purpose: a signal handler belongs to the process, so
   its table of ranges does too (the only mutable file-scope state of
   the library besides debuginfod-library.c's loaded table).  The
   library never installs the handler by itself: the program that owns
   the process calls st_mapping_guard_install (the public
   st_install_mapped_file_guard) at its start, and until it does a
   shrinking file kills the process as it would kill any reader of a
   mapping.  Ranges are registered either way (that costs nothing).

   Threads: ranges are added and removed from any thread (a lock);
   the handler reads the table without it (each slot is published with
   release stores).  A SIGBUS outside every range, or one the handler
   cannot repair, gets the default action (the process dies as before).  */
#ifndef ST_MAPPING_GUARD_H
#define ST_MAPPING_GUARD_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct StMappingGuard StMappingGuard;

/* Installs the SIGBUS handler (once; later calls do nothing),
   replacing any the process had.  Only the program's own start calls
   it, never the library.  */
void st_mapping_guard_install (void);

/* Guards [START, START + LEN).  NULL when the table is full (the range
   is then unguarded, as before).  */
StMappingGuard *st_mapping_guard_add (const void *start, size_t len);
void st_mapping_guard_remove (StMappingGuard *guard);

/* Guards every mapping of the file with device DEV and inode INO (as
   fstat gives them), wherever it is or will be mapped.  The same file
   gives the same guard, which stays (the library keeps such files
   mapped as long as it likes).  NULL when the table is full.  */
StMappingGuard *st_mapping_guard_add_file (uint64_t dev, uint64_t ino);

/* Whether a read of the range faulted (the file shrank); *FIRST gets the
   lowest faulting offset from the range's start.  */
gboolean st_mapping_guard_faulted (const StMappingGuard *guard,
                                   uint64_t *first);

/* Faults repaired so far, in every range: the cheap test before looking
   at individual guards.  */
uint64_t st_mapping_guard_faults (void);

#endif /* ST_MAPPING_GUARD_H */
