/* stacktrace-1: why a walk stopped, and the counters of a stream or a
   session (what the command's stats file holds).  Part of
   <stacktrace-1/stacktrace.h>.  */
#if !defined(STACKTRACE_1_INSIDE) && !defined(STACKTRACE_1_COMPILATION)
#error "Only <stacktrace-1/stacktrace.h> can be included directly."
#endif

#ifndef STACKTRACE_1_COUNTERS_H
#define STACKTRACE_1_COUNTERS_H

#include <stacktrace-1/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How far a chain got.  */
typedef enum
{
  ST_CHAIN_COMPLETE = 0,     /* to the outermost frame */
  ST_CHAIN_TRUNCATED = 1,    /* some frames, then a stop (see the cause) */
  ST_CHAIN_FAILED = 2,       /* not even the sampled frame */
} StChainStatus;

/* Why a walk stopped before the outermost frame.  */
typedef enum
{
  ST_STOP_NONE = 0,
  ST_STOP_STACK_END = 1,     /* needed memory beyond the stack copy */
  ST_STOP_MEMORY = 2,        /* needed unreadable memory elsewhere */
  ST_STOP_NO_MODULE = 3,     /* a PC in no usable module (JIT code...) */
  ST_STOP_NO_CFI = 4,        /* no frame could be unwound from there */
  ST_STOP_NO_REGS = 5,       /* registers missing or an unknown ABI */
  ST_STOP_NO_MAPS = 6,       /* nothing known of the process's mappings */
  ST_STOP_ARCH = 7,          /* an architecture the library lacks */
  ST_STOP_MAX_DEPTH = 8,     /* ST_MAX_FRAMES reached */
  ST_STOP_LOOP = 9,          /* the stack pointer went down, or a frame
                                repeated */
  ST_STOP_FILE_SHRANK = 10,  /* a module's file shrank while in use */
  ST_STOP_NOT_AFTER_CALL = 11, /* a return address after no call */
  ST_STOP_CAUSES = 16        /* room in StCounters.by_cause */
} StStopCause;

/* The most frames a chain has.  */
#define ST_MAX_FRAMES 256

/* A short name of CAUSE ("stack-end", "no-module"...), as the command's
   statistics spell it.  */
ST_PUBLIC const char *st_stop_cause_name (int cause);

/* Counts so far.  New fields come at the end, out of RESERVED.  */
typedef struct
{
  uint64_t records_in;       /* records or frames read (stream) or given
                                (session) */
  uint64_t records_out;      /* written (stream) */
  uint64_t samples;          /* raw-stack samples unwound */
  uint64_t complete;         /* ... to the outermost frame */
  uint64_t truncated;
  uint64_t failed;
  uint64_t frames;           /* user frames in all chains */
  uint64_t stitched;         /* chains completed by stitching */
  uint64_t unprimed;         /* unwound before their modules were ready */
  uint64_t damaged;          /* places of damaged input (stream) */
  uint64_t by_cause[ST_STOP_CAUSES];  /* truncated and failed chains */
  uint64_t fp_chain;         /* complete chains continued by the
                                recorder's frame-pointer chain (the
                                kernel's walk) */
  uint64_t stitch_refused;   /* stitching refused: the copy's words at
                                the joining frame differed */
  uint64_t fp_frames;        /* frames unwound by the frame-pointer step
                                (no CFI) */
  uint64_t code_frames;      /* sampled frames without CFI unwound by
                                their code (a function's entry or exit) */
  uint64_t input_bytes;      /* input read so far (stream) */
  uint64_t debuginfod_queries;  /* files asked of debuginfod (stream) */
  uint64_t debuginfod_found;    /* ... and received */
  uint64_t reserved[9];
} StCounters;

/* The share of C's samples unwound to the root, in percent, to be shown
   with DECIMALS digits after the point: never rounded up to 100 while a
   sample was not unwound to the root (99.9 with one decimal), 100 when
   there were no samples.  */
ST_PUBLIC double st_counters_success_percent (const StCounters *c,
                                              unsigned decimals);

#ifdef __cplusplus
}
#endif

#endif /* STACKTRACE_1_COUNTERS_H */
