/* stacktrace-1: raw user-stack samples (perf's REGS_USER + STACK_USER,
   Sysprof's STACK_USER frames) turned into call chains, as a library.

   Include only this header: <stacktrace-1/stacktrace.h>.  Link with
   `pkg-config --cflags --libs stacktrace-1`.  The API is C (C11 or
   C++17 callers), GLib-free: functions return ST_OK (0) or a negative
   StResult, and an object's last error message is read with its
   *_error function.  Every type is opaque but the plain records and
   counters defined below, which may grow at their end only (their
   reserved words keep the size).

   Three levels, pick the one that fits (the manual page
   stacktrace-1(3) has a complete example of each):

   1. Stream (stacktrace-1/stream.h): a recording in (fd or path, a
      perf.data file or pipe stream of any version, compressed or not,
      or a Sysprof capture), a recording out with the raw stacks
      replaced by their chains -- what the stacktrace command does;
      its statistics (StStatistics: counters, damage, priming, module
      files, processes) as the command's stats file shows them.

   2. Records (stacktrace-1/records.h): read a recording one record at
      a time (raw-stack samples with their registers and stack bytes,
      mappings with build-ids, comm, fork, exit, lost).

   3. Per sample (stacktrace-1/session.h): a module cache shared by
      threads, a session per recorded machine fed with its records,
      and st_session_unwind (sample) -> the caller's array of frames,
      with a status, the cause of a stop and how many frames came from
      stitching; names of addresses; counters.

   Live (stacktrace-1/live.h): a recording made now -- the perf ring
   buffers of events a recorder hands over or the library opens, the
   walk of /proc for the processes that exist, read as a stream's input
   (st_stream_set_input_pull); a pacer for a capture written to a
   recorder's pipe.

   Process-wide effects: none unless asked.  The library reads no
   environment variable, installs no signal handler, never exits,
   aborts or prints.  st_install_mapped_file_guard is the one call that
   changes the process (a SIGBUS handler), made by the program.

   Threads: see each sub-header; in short, an object is used by one
   thread at a time, except StCache (any number of sessions on any
   threads), st_stream_cancel and st_stream_get_counters (any thread
   while st_stream_run runs), a StStatistics once taken (read on
   any thread) and st_live_source_read (the stream's thread).  */
#ifndef STACKTRACE_1_STACKTRACE_H
#define STACKTRACE_1_STACKTRACE_H

#define STACKTRACE_1_INSIDE

#include <stacktrace-1/common.h>
#include <stacktrace-1/counters.h>
#include <stacktrace-1/stream.h>
#include <stacktrace-1/records.h>
#include <stacktrace-1/session.h>
#include <stacktrace-1/live.h>

#undef STACKTRACE_1_INSIDE

#endif /* STACKTRACE_1_STACKTRACE_H */
