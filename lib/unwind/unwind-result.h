/* What unwinding one raw-stack sample gives, whichever engine did it:
   the status, the cause of an early stop, and how the engine got there
   (for the statistics).  */
#ifndef ST_UNWIND_RESULT_H
#define ST_UNWIND_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#define ST_UNWIND_MAX_FRAMES 256

typedef enum
{
  ST_UNWIND_COMPLETE,   /* reached the outermost frame */
  ST_UNWIND_TRUNCATED,  /* some frames, then stopped early */
  ST_UNWIND_FAILED,     /* not even the sampled frame */
} StUnwindStatus;

typedef enum
{
  ST_CAUSE_NONE,
  ST_CAUSE_STACK_END,   /* needed memory beyond the stack copy */
  ST_CAUSE_MEMORY,      /* needed unreadable memory elsewhere */
  ST_CAUSE_NO_MODULE,   /* a PC in no known module */
  ST_CAUSE_NO_CFI,      /* no frame could be unwound from there */
  ST_CAUSE_NO_REGS,     /* registers missing or unsupported ABI */
  ST_CAUSE_NO_MAPS,     /* nothing known of the process's mappings */
  ST_CAUSE_ARCH,        /* unsupported architecture */
  ST_CAUSE_MAX_DEPTH,   /* ST_UNWIND_MAX_FRAMES reached */
  ST_CAUSE_LOOP,        /* the stack pointer went down, or a frame repeated */
  ST_CAUSE_FILE_SHRANK, /* a module's file shrank while in use (truncated
                           by another process): unusable from then on */
  ST_CAUSE_NOT_AFTER_CALL, /* a return address in file code that follows
                              no call instruction (return-check.h) */
  ST_CAUSE_N
} StUnwindCause;

/* How the fast engine handled a sample (ST_PATH_DWFL for the libdwfl
   engine itself).  */
typedef enum
{
  ST_PATH_DWFL,         /* unwound by libdwfl */
  ST_PATH_RULES,        /* cached CFI rules only */
  ST_PATH_FALLBACK,     /* the fast engine handed the sample to libdwfl */
  ST_PATH_N
} StUnwindPath;

/* Why the fast engine handed a sample to libdwfl.  */
typedef enum
{
  ST_FALLBACK_NONE,
  ST_FALLBACK_ARCH,       /* an architecture the fast engine does not
                             walk, or registers of another ABI */
  ST_FALLBACK_EXPRESSION, /* a CFA or register given by a DWARF expression */
  ST_FALLBACK_SIGNAL,     /* a signal frame */
  ST_FALLBACK_OTHER,      /* an unusual register or return column */
  ST_FALLBACK_N
} StFallbackReason;

typedef struct
{
  StUnwindStatus status;
  StUnwindCause cause;
  uint32_t n_ips;
  uint32_t n_stitched;  /* frames borrowed from the thread's known stack */
  uint32_t n_fp_chain;  /* frames taken from the recorder's frame-pointer
                           chain (fp-chain.h) */
  bool stitch_refused;  /* the known stack had the joining frame, but
                           the copy's words there differed */
  const char *detail;   /* the engine's message when it failed, or NULL */
  StUnwindPath path;
  StFallbackReason fallback;
  uint32_t n_fp_frames; /* frames unwound by the frame-pointer step (no
                           CFI) */
  uint32_t n_code_frames; /* sampled frames without CFI unwound by what
                             their code tells (leaf-code.h): 0 or 1 */
  bool lean;            /* by the fast engine's lean walk */
  /* Unwound while some module of the process was not ready yet (JIT-style
     priming, --priming drop): its frames stop where such a module's code
     begins.  */
  bool unprimed;
  /* ST_CAUSE_NO_MODULE: the first PC found in no usable module (0 when
     the walk could not start: then the sampled IP is that PC).  */
  uint64_t no_module_pc;
  /* A PC the walk met in a module whose file is still to be fetched
     (lazy fetching, module-cache.h), 0 if none: a frame of the chain or
     dropped from it, or where no module was usable to start a walk, the
     first such mapping.  With that file the walk would go on, or go
     otherwise.  */
  uint64_t deferred_pc;
} StUnwindResult;

const char *st_unwind_cause_name (StUnwindCause cause);
const char *st_fallback_reason_name (StFallbackReason reason);

#endif /* ST_UNWIND_RESULT_H */
