/* What a live recorder must say about the processes that exist when it
   starts (the kernel reports only what happens later): one walk of
   /proc gives, for each process, a COMM and the MMAP2 records of its
   mappings, as perf synthesizes them, into the perf stream; and the
   mount tables Sysprof's reader resolves paths with (its own
   /proc/mounts, each process's /proc/PID/mountinfo) as capture
   FILE_CHUNK frames.  */
#ifndef ST_PROC_SCAN_H
#define ST_PROC_SCAN_H

#include <glib.h>
#include <stdint.h>

#include "format/perf-writer.h"

typedef struct
{
  guint processes;
  guint maps;
  guint mount_files;
} StProcScanCounts;

/* What tells the process the walk saw in a pid from a later one: its
   start time (another process in the same pid) and its executable's
   file (an exec in the same process).  */
typedef struct
{
  uint64_t start;
  uint64_t exe_dev, exe_ino;   /* 0 for a kernel thread */
} StProcIdentity;

/* Walks PROC_ROOT ("/proc").  Records go to PERF (sample_id trailer
   TID|TIME|IDENTIFIER with ID, time NOW); the FILE_CHUNK frames (time
   NOW) are appended to CHUNKS; the pids found are added to PIDS (may be
   NULL; key GUINT_TO_POINTER (pid), value a g_malloc'd StProcIdentity,
   or NULL when it could not be read).  Processes
   that vanish during the walk are skipped.  */
void st_proc_scan (const char *proc_root, StPerfWriter *perf, uint64_t id,
                   int64_t now, GByteArray *chunks, GHashTable *pids,
                   StProcScanCounts *counts);

typedef void (*StProcScanRecordFunc) (const uint8_t *record, size_t len,
                                      void *data);

/* The COMM and MMAP2 records of the one process PID (as st_proc_scan
   makes them, time TIME; no mount table) to FUNC: for a process the
   recording saw nothing of (it started between the walk and the events'
   enabling).  Adds to COUNTS; FALSE when the process is gone.  */
/* The start time of process PID (field 22 of /proc/PID/stat, clock
   ticks since boot): with the pid, it names one process (pids are
   reused).  FALSE when it cannot be read.  */
gboolean st_proc_scan_start_time (const char *proc_root, uint32_t pid,
                                  uint64_t *start);

/* The identity of process PID now; FALSE when it cannot be read.  */
gboolean st_proc_scan_identity (const char *proc_root, uint32_t pid,
                                StProcIdentity *ident);
gboolean st_proc_scan_identity_equal (const StProcIdentity *a,
                                      const StProcIdentity *b);

/* An EXIT record for process PID at TIME: what the walk said of a pid
   that another process has since taken.  */
void st_proc_scan_exit (uint32_t pid, StProcScanRecordFunc func, void *data,
                        uint64_t id, int64_t time);

gboolean st_proc_scan_one (const char *proc_root, uint32_t pid,
                           StProcScanRecordFunc func, void *data,
                           uint64_t id, int64_t time,
                           StProcScanCounts *counts);

/* Appends FILE_CHUNK frames for the file PATH (read from FILE) to
   CHUNKS, with frame pid PID; FALSE when it cannot be read.  */
gboolean st_proc_scan_file_chunks (GByteArray *chunks, const char *path,
                                   const char *file, int32_t pid,
                                   int64_t now);

#endif /* ST_PROC_SCAN_H */
