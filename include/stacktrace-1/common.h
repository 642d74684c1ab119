/* stacktrace-1: results, formats, the library's version and the
   mapped-file guard.  Part of <stacktrace-1/stacktrace.h>.  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_COMMON_H
#define STACKTRACE_1_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) && __GNUC__ >= 4
#define ST_PUBLIC __attribute__ ((visibility ("default")))
#else
#define ST_PUBLIC
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define STACKTRACE_1_VERSION_MAJOR 1
#define STACKTRACE_1_VERSION_MINOR 0

/* What the functions return: ST_OK or one of the negative results.  */
typedef enum
{
  ST_OK = 0,
  ST_END = 1,                /* st_records_next: no record left */
  ST_E_INVALID = -1,         /* a bad argument, or the wrong moment */
  ST_E_IO = -2,              /* reading or writing failed */
  ST_E_FORMAT = -3,          /* not a recording the library reads */
  ST_E_CANCELLED = -4,       /* st_stream_cancel was called */
  ST_E_UNSUPPORTED = -5,     /* an architecture or ABI not known */
  ST_E_NOT_FOUND = -6,       /* no such process (st_session_scan_process) */
} StResult;

/* Formats of recordings.  */
typedef enum
{
  ST_FILE_FORMAT_AUTO = 0,   /* input: from its first bytes */
  ST_FILE_FORMAT_CAPTURE = 1, /* Sysprof capture */
  ST_FILE_FORMAT_PERF = 2,   /* perf.data, file or pipe mode */
} StFileFormat;

/* How raw stacks are unwound: the fast engine (cached CFI rules,
   libdwfl as its fallback) or libdwfl for every sample (the
   reference).  Both give the same chains.  */
typedef enum
{
  ST_ENGINE_FAST_CFI = 0,
  ST_ENGINE_LIBDWFL = 1,
} StUnwindEngine;

/* "1.0.0": the library's own version.  */
ST_PUBLIC const char *st_version (void);

/* A short English name of RESULT ("invalid argument"...).  */
ST_PUBLIC const char *st_result_name (int result);

/* Installs, once for the process, a SIGBUS handler that turns a read
   of a mapped file that shrank under the library (truncated by another
   process: the input or a module file) into zeros and a mark (the
   samples concerned stop there; the input ends with a damage message)
   instead of the death of the process.  Without it such a truncation
   kills the process as it would kill any reader of a mapping.  It
   replaces any SIGBUS handler the process had, and is process-wide by
   nature: call it from the program's start, not from a plug-in.  */
ST_PUBLIC void st_install_mapped_file_guard (void);

/* Loads libdebuginfod now (it is otherwise loaded when debuginfod is
   first used): for a program about to forbid itself new executable
   mappings (a sandbox).  ST_E_UNSUPPORTED when it cannot be loaded.  */
ST_PUBLIC int st_load_debuginfod (void);

/* A name from a recording (a process, file or symbol name: whatever the
   recorded program chose) made safe to print on a terminal, on one
   line: newline, tab, CR and backslash as \n \t \r \\, other C0
   controls and DEL as \xNN, the C1 range as \uNNNN, a byte that is
   not UTF-8 as \xNN; printable UTF-8 as it is.  Free with free();
   NULL when NAME is NULL.  */
ST_PUBLIC char *st_printable_name (const char *name);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_COMMON_H */
