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
#include "format/writer.h"

typedef struct
{
  guint processes;
  guint maps;
  guint mount_files;
} StProcScanCounts;

/* Walks PROC_ROOT ("/proc").  Records go to PERF (sample_id trailer
   TID|TIME|IDENTIFIER with ID, time NOW); the FILE_CHUNK frames (time
   NOW) are appended to CHUNKS.  Processes that vanish during the walk
   are skipped.  */
void st_proc_scan (const char *proc_root, StPerfWriter *perf, uint64_t id,
                   int64_t now, GByteArray *chunks, StProcScanCounts *counts);

/* Appends FILE_CHUNK frames for the file PATH (read from FILE) to
   CHUNKS, with frame pid PID; FALSE when it cannot be read.  */
gboolean st_proc_scan_file_chunks (GByteArray *chunks, const char *path,
                                   const char *file, int32_t pid,
                                   int64_t now);

/* Passes the capture frames in FRAMES (whole frames, one after another)
   to W as they are.  */
void st_proc_scan_write_frames (StWriter *w, const GByteArray *frames);

#endif /* ST_PROC_SCAN_H */
