/* The perf map of a JIT: the text file /tmp/perf-PID.map that V8
   (node --perf-basic-prof), the JVM's perf-map-agent, .NET, LuaJIT,
   Julia, Python 3.12 (-X perf) and others write, one line per piece of
   generated code: `START SIZE NAME`, START and SIZE in hexadecimal (with
   or without 0x), NAME the rest of the line (spaces allowed).  This is
   perf's own reading of the file (its Documentation/jit-interface.txt).  */
#ifndef ST_PERF_MAP_H
#define ST_PERF_MAP_H

#include <glib.h>
#include <stddef.h>

#include "report/jit-table.h"

/* Bad lines reported one by one per file; the others only counted.  */
#define ST_PERF_MAP_MESSAGES_MAX 5

typedef void (*StPerfMapReport) (const char *message, void *user);

typedef struct
{
  uint64_t lines;             /* lines read (the last one may lack its
                                 newline) */
  uint64_t named;             /* ranges added */
  uint64_t bad;               /* lines that are not START SIZE NAME */
} StPerfMapCounts;

/* Adds the ranges of TEXT (LEN bytes, lines FIRST_LINE on, of the file
   FILE_NAME) to TABLE.  A bad line is reported (FILE_NAME:LINE: what is
   wrong) through REPORT (may be NULL) and skipped; the rest is still
   read.  Returns the bytes consumed: whole lines only, unless AT_END
   (then all of TEXT), so that a line the JIT is still writing is read
   again later.  */
size_t st_perf_map_parse (const char *text, size_t len, gboolean at_end,
                          const char *file_name, uint64_t first_line,
                          StJitTable *table, StPerfMapCounts *counts,
                          StPerfMapReport report, void *report_data);

#endif /* ST_PERF_MAP_H */
