/* Names of JIT code, per process, from the files JITs write for perf:
   the perf map /tmp/perf-PID.map (perf-map.h) and the jitdump files the
   process mapped (jitdump.h; their MMAP records name them).  Files are
   read when a name is first asked for the process, and read again (what
   was appended) after every ST_JIT_NAMES_RECHECK addresses they could
   not name: a live JIT keeps writing them.

   Under a symfs directory (--symfs, the files of the recording machine)
   the perf map is looked for as SYMFS/tmp/perf-PID.map first, then in
   /tmp; a jitdump as SYMFS/RECORDED_PATH, then at its recorded path.

   Bounded: ST_JIT_NAMES_PROCESSES processes keep their names (the one
   read longest ago makes room), each at most ST_JIT_TABLE_MAX ranges;
   at most ST_JIT_NAMES_DUMPS jitdump files per process.  Main thread
   only.  */
#ifndef ST_JIT_NAMES_H
#define ST_JIT_NAMES_H

#include <glib.h>
#include <stdint.h>

#include "report/perf-map.h"

#define ST_JIT_NAMES_PROCESSES 256
#define ST_JIT_NAMES_DUMPS 16
#define ST_JIT_NAMES_RECHECK 256

typedef struct StJitNames StJitNames;

/* SYMFS may be NULL; TMP_DIR the directory of the perf maps (NULL:
   /tmp).  Problems in the files (bad lines, damaged jitdumps) go to
   REPORT (may be NULL), each with its file and line or offset.  */
StJitNames *st_jit_names_new (const char *symfs, const char *tmp_dir,
                              StPerfMapReport report, void *report_data);
void st_jit_names_free (StJitNames *j);

/* From now on the JIT's files only under SYMFS, never this machine's
   own (/tmp/perf-PID.map, the recorded jitdump path).  */
void st_jit_names_set_symfs_only (StJitNames *j);

/* Process PID mapped FILENAME: a jitdump file is noted, anything else
   ignored.  */
void st_jit_names_map (StJitNames *j, int32_t pid, const char *filename);

/* The name of JIT code ADDR of process PID, or NULL.  Valid until the
   next call.  */
const char *st_jit_names_lookup (StJitNames *j, int32_t pid, uint64_t addr);

typedef struct
{
  uint64_t perf_maps;         /* perf map files read */
  uint64_t jitdumps;          /* jitdump files read */
  uint64_t named;             /* addresses named */
} StJitNamesCounts;

void st_jit_names_counts (const StJitNames *j, StJitNamesCounts *c);

#endif /* ST_JIT_NAMES_H */
