/* Unwinding statistics: per process and in total, plus what passed
   through or had no counterpart in the output format.  */
#ifndef ST_STATS_H
#define ST_STATS_H

#include <glib.h>

#include "format/damage.h"
#include "model/event.h"
#include "model/file-report.h"
#include "unwind/unwind-result.h"

typedef struct
{
  uint64_t samples;     /* raw-stack samples received */
  uint64_t complete;    /* unwound to the outermost frame */
  uint64_t truncated;   /* some frames, stopped early */
  uint64_t failed;      /* not even the sampled frame */
  uint64_t frames;      /* user frames written */
  uint64_t stitched;    /* reached the root thanks to stitching */
  uint64_t fp_chain;    /* chains continued by the recorder's
                           frame-pointer chain (the kernel's walk) */
  uint64_t stitch_refused;  /* the joining frame was known, but the copy's
                               words there differed */
  uint64_t unprimed;    /* unwound before all their modules were ready
                           (JIT-style priming: drop, or defer's cap) */
  uint64_t by_cause[ST_CAUSE_N];
  uint64_t by_path[ST_PATH_N];          /* which engine did the work */
  uint64_t by_fallback[ST_FALLBACK_N];  /* why fast handed over */
  uint64_t fp_frames;   /* frames unwound by the frame-pointer step (no
                           CFI; fast engine) */
  uint64_t lean;        /* of ST_PATH_RULES: by the lean walk alone */
  uint64_t code_frames; /* sampled frames without CFI unwound by their
                           code: at a function's entry or exit */
} StUnwindCounters;

typedef struct
{
  int32_t pid;
  char *comm;
  StUnwindCounters counters;
  uint64_t last_active;       /* the stats' sample count at its last */
} StProcessStats;

/* JIT-style priming (priming.h), as the pipeline last reported it.  */
typedef struct
{
  const char *mode;           /* sync, drop or defer (a static string) */
  guint threads;              /* worker threads (0 with sync) */
  uint64_t modules_prepared;  /* by the workers */
  guint modules_pending;      /* queued or being prepared now */
  uint64_t waits;             /* times a sample had to wait for its
                                 modules (and everything after it) */
  uint64_t deferred;          /* samples unwound late because of that:
                                 the waiting ones and those behind */
  uint64_t stalls;            /* times the cap was reached: the input was
                                 held back for the oldest waiting sample */
  uint64_t forced;            /* of those, samples unwound before their
                                 modules were ready (being downloaded) */
  uint64_t cap;               /* bytes defer may hold while samples wait */
  uint64_t held;              /* bytes held now while a sample waits */
  uint64_t held_max;          /* the most ever held while one waited */
} StPrimingStats;

typedef struct StStats StStats;

/* Processes counted one by one.  Past it, the least recently active
   quarter of them is folded into one row, "other processes", so the
   table stays small in a live session with short-lived processes
   starting all the time, and the totals stay exact.  */
#define ST_STATS_MAX_PROCESSES 4096

StStats *st_stats_new (void);
void st_stats_free (StStats *s);

/* Counts one input event and whether it was written.  */
void st_stats_event (StStats *s, const StEvent *ev, gboolean written);
/* Counts an event of KIND that has no counterpart in the output format,
   by the name of its frame or record type (a string that outlives S).  */
void st_stats_no_counterpart (StStats *s, StEventKind kind,
                              const char *type_name);
/* Counts a kernel-only SAMPLE frame that became the kernel part of the
   raw-stack sample after it (the two are written as one).  */
void st_stats_joined (StStats *s);
/* Counts the unwinding of one raw-stack sample of process PID.  */
void st_stats_unwind (StStats *s, int32_t pid, const char *comm,
                      const StUnwindResult *result);

/* Counts one damaged spot of the input.  */
void st_stats_damage (StStats *s, const StDamage *damage);
/* Damaged spots counted, and the offset of the first in the input.  */
uint64_t st_stats_damaged (const StStats *s);
uint64_t st_stats_first_damage (const StStats *s);
/* Damaged spots that were ACTION, and their bytes.  */
uint64_t st_stats_damage_count (const StStats *s, StDamageAction action);
uint64_t st_stats_damage_bytes (const StStats *s, StDamageAction action);

/* The counters of all samples so far: a snapshot, summed over the
   processes by each call (a later sample does not change it; call
   again).  */
const StUnwindCounters *st_stats_total (const StStats *s);

/* Priming's figures: set by the pipeline whenever they change.  */
void st_stats_set_priming (StStats *s, const StPrimingStats *priming);
const StPrimingStats *st_stats_priming (const StStats *s);
/* What became of every module's file (set by the pipeline; FILES must
   outlive S's use), or NULL.  */
void st_stats_set_file_report (StStats *s, const StFileReport *files);
const StFileReport *st_stats_file_report (const StStats *s);
/* Every process's statistics (const StProcessStats*), in no order; free
   the array with g_ptr_array_unref.  */
GPtrArray *st_stats_processes (const StStats *s);
/* The input's records beyond the samples unwound.  */
typedef struct
{
  uint64_t raw_stacks_in;     /* raw-stack samples read */
  uint64_t with_chain;        /* samples read with a call chain */
  uint64_t joined;            /* kernel parts joined to their raw stack */
  uint64_t lost_records;      /* LOST records read */
  uint64_t lost_by_recorder;  /* records they say were lost */
  uint64_t no_counterpart;    /* not written: no counterpart */
  uint64_t data_left_out;     /* ... of those, samples, maps, comms */
} StStatsRecords;

void st_stats_records (const StStats *s, StStatsRecords *out);
/* The type names counted by st_stats_no_counterpart, in name order
   (strings that outlive S), and the count of one.  Free the array with
   g_ptr_array_unref.  */
GPtrArray *st_stats_no_counterpart_names (const StStats *s);
uint64_t st_stats_no_counterpart_count (const StStats *s,
                                        const char *type_name);

/* The processes folded into one row to stay within
   ST_STATS_MAX_PROCESSES (pid -1; zero counters while none was).  */
const StProcessStats *st_stats_others (const StStats *s);
uint64_t st_stats_events_in (const StStats *s);
uint64_t st_stats_events_out (const StStats *s);

/* Share of samples unwound to the root, 0..100 (100 when none).  */
double st_unwind_success_rate (const StUnwindCounters *c);
/* The same for printing with DECIMALS digits after the point: never
   rounding up to 100 while a sample was not unwound to the root (then
   99.9 with one decimal).  */
double st_unwind_success_shown (const StUnwindCounters *c,
                                unsigned decimals);
/* The same of COMPLETE out of SAMPLES.  */
double st_success_percent (uint64_t complete, uint64_t samples,
                           unsigned decimals);

#endif /* ST_STATS_H */
