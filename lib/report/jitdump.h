/* jitdump files (perf's tools/perf/Documentation/jitdump-specification.txt):
   what a JIT writes about its code for perf (the JVM's perf agent
   libperf-jvmti.so, V8's --perf-prof, .NET with DOTNET_PerfMapEnabled,
   ...).  The JIT maps the file executable so that the recorder records
   it (an MMAP of "jit-PID.dump"); stacktrace reads the names from it.

   Layout (host-endian; a byte-swapped magic is another host's file):
     header  u32 magic 0x4A695444 ("JiTD"), u32 version, u32 total_size
             (the header's), u32 elf_mach, u32 pad, u32 pid,
             u64 timestamp, u64 flags
     record  u32 id, u32 total_size (the record's, header included),
             u64 timestamp, then by id:
       0 CODE_LOAD   u32 pid, u32 tid, u64 vma, u64 code_addr,
                     u64 code_size, u64 code_index, char name[] (NUL-
                     terminated), then the code bytes
       1 CODE_MOVE   u32 pid, u32 tid, u64 vma, u64 old_code_addr,
                     u64 new_code_addr, u64 code_size, u64 code_index
       2 DEBUG_INFO, 3 CLOSE, 4 UNWINDING_INFO: skipped here.
   Every length is checked against the bytes there are: a record that
   does not fit ends the reading, with a message naming its offset.  */
#ifndef ST_JITDUMP_H
#define ST_JITDUMP_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "report/jit-table.h"

#define ST_JITDUMP_MAGIC 0x4A695444u
#define ST_JITDUMP_HEADER_MIN 40
#define ST_JITDUMP_RECORD_HEADER 16

typedef struct
{
  uint64_t loads;             /* CODE_LOAD records named */
  uint64_t moves;             /* CODE_MOVE records named */
  uint64_t skipped;           /* records of other kinds */
} StJitdumpCounts;

/* Adds the code of the jitdump image DATA (LEN bytes of the file
   FILE_NAME, from its offset DATA_START on) to TABLE, from *OFFSET (0:
   the header first; a later call goes on where the last one stopped,
   with what the file gained since: a move then no longer finds the name
   of a load read before).  FALSE,
   with ERROR naming the file and the offset, when the header is not a
   jitdump's or a record does not fit (what came before it is kept); a
   record cut by the end of the data is not an error when TRUNCATED_OK
   (a file still being written).  *OFFSET is left at the first record
   not read (a file offset; DATA_START must not be past it).  */
gboolean st_jitdump_read (const uint8_t *data, size_t len,
                          size_t data_start, const char *file_name,
                          gboolean truncated_ok,
                          size_t *offset, StJitTable *table,
                          StJitdumpCounts *counts, GError **error);

#endif /* ST_JITDUMP_H */
