/* stacktrace-1, level 3: one sample at a time.  Part of
   <stacktrace-1/stacktrace.h>.

   A StCache holds what is learnt of module files (the files, their CFI
   indexes and rule tables, bounded); a StSession is one recorded
   machine (its processes, their mappings, the threads' stacks kept
   for stitching), fed in time order with the recording's records
   (maps, comm, fork, exit: st_session_add) and asked for the chains of
   its raw-stack samples (st_session_unwind).  Once warm, unwinding
   allocates nothing per sample.

       StCache *cache = st_cache_new ();
       StSession *session = st_session_new (cache, ST_SESSION_STITCH);
       uint64_t frames[ST_MAX_FRAMES];
       StChainInfo info;
       ... for each record REC, in time order:
       if (rec->kind == ST_RECORD_STACK_SAMPLE)
         st_session_unwind (session, rec, frames, ST_MAX_FRAMES, &info);
       else
         st_session_add (session, rec);
       ...
       st_session_free (session);
       st_cache_free (cache);

   Threads: a session is used by one thread at a time.  One cache may
   serve any number of sessions on any threads at once: the sessions
   share the modules it prepared, and their calls that touch it are
   serialized by its lock (they do not unwind in parallel; they give
   exactly the chains each would give alone).  Settings of a cache are
   made before its first session.  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_SESSION_H
#define STACKTRACE_1_SESSION_H

#include <stacktrace-1/common.h>
#include <stacktrace-1/counters.h>
#include <stacktrace-1/records.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StCache StCache;
typedef struct StSession StSession;

ST_PUBLIC StCache *st_cache_new (void);
/* After every session of CACHE is freed.  */
ST_PUBLIC void st_cache_free (StCache *cache);
/* As st_stream_set_symfs, _buildid_dirs, _debuginfod.  */
ST_PUBLIC int st_cache_set_symfs (StCache *cache, const char *dir);
ST_PUBLIC int st_cache_set_buildid_dirs (StCache *cache,
                                         const char *archive_dir,
                                         const char *perf_cache_dir);
ST_PUBLIC int st_cache_set_debuginfod (StCache *cache, const char *urls);
/* The engine of every session of CACHE (the modules are prepared for
   it): the fast engine by default.  */
ST_PUBLIC int st_cache_set_engine (StCache *cache, StUnwindEngine engine);
/* At most MAX_MODULES files and MAX_BYTES of their tables kept (0: the
   default, 2048 modules and 1 GiB).  */
ST_PUBLIC int st_cache_set_limits (StCache *cache, unsigned max_modules,
                                   size_t max_bytes);
ST_PUBLIC const char *st_cache_error (const StCache *cache);

typedef enum
{
  ST_SESSION_STITCH = 1 << 0,    /* complete stacks cut by the copy's end
                                    from what the thread's stack held */
} StSessionFlags;

/* FLAGS: StSessionFlags.  */
ST_PUBLIC StSession *st_session_new (StCache *cache, unsigned flags);
ST_PUBLIC void st_session_free (StSession *session);

/* A record's effect on the model of the machine: mappings, names,
   forks (a child's copy of its parent's mappings), exits.  Other kinds
   are ignored.  In time order, before the samples that follow.  */
ST_PUBLIC int st_session_add (StSession *session, const StRecord *record);

/* Process PID as /proc shows it now, its name and its mappings (as
   COMM and MMAP records would give them), for a process the recording
   tells nothing of: one that existed before a live recording began, or
   whose records were lost.  For live use on the machine that runs the
   samples: its files are opened through /proc/PID/root while it lives
   (containers).  ST_E_NOT_FOUND when there is no such process (or its
   /proc entry cannot be read).  */
ST_PUBLIC int st_session_scan_process (StSession *session, int32_t pid);

/* What st_session_unwind found.  */
typedef struct
{
  StChainStatus status;
  StStopCause cause;         /* ST_STOP_NONE when complete */
  uint32_t n_frames;         /* written into FRAMES */
  uint32_t n_stitched;       /* of those, from stitching */
  int32_t unprimed;          /* unwound before all modules were ready */
  uint32_t reserved[7];
} StChainInfo;

/* Unwinds SAMPLE (an ST_RECORD_STACK_SAMPLE) into FRAMES: the sampled
   IP first, then each caller's return address - 1 (the call
   instruction's last byte, as perf reports them), at most MAX_FRAMES.
   ST_OK whatever the chain's status (INFO says); ST_E_INVALID for
   another kind of record.  */
ST_PUBLIC int st_session_unwind (StSession *session, const StRecord *sample,
                                 uint64_t *frames, uint32_t max_frames,
                                 StChainInfo *info);

/* The name of ADDR in process PID, as the command's --chains names it:
   the function (demangled), "[MODULE+0xOFFSET]" without a symbol, a
   JIT's name from its perf map or jitdump, "[JIT]" or "[unknown]".
   Written into BUF (SIZE bytes, always terminated); returns the length
   of the whole name (more than SIZE - 1: cut), or a negative result.  */
ST_PUBLIC int st_session_symbolize (StSession *session, int32_t pid,
                                    uint64_t addr, char *buf, size_t size);

ST_PUBLIC int st_session_get_counters (StSession *session, StCounters *out);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_SESSION_H */
