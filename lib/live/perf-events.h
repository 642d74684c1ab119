/* The perf events stacktrace --record opens itself, as `perf record
   --call-graph=dwarf` would: the attribute (event, rate, the registers
   and stack copy the unwinder needs, the kernel's records), the
   perf_event_open call with the fallbacks perf makes (no build-ids in
   MMAP2 before Linux 5.12 when they are asked for, user space only
   where the kernel's part is not allowed) and an error that says what to change when it fails
   (kernel.perf_event_paranoid, CAP_PERFMON, a PMU without the event).
   Also the online CPUs and the ring size a rate needs.  The targets,
   the command and the signals are src/record.c's.

   The layout is Sysprof's (sysprof-layout.h: IDENTIFIER first, the
   sample_id trailer TID|TIME|IDENTIFIER that the walk of /proc writes
   too) with PERIOD added, and the kernel's call chain without its user
   part (exclude_callchain_user), as perf's dwarf mode asks: the
   unwinder joins it in front of the user chain.  No CPU field: it would
   change the trailer the /proc walk's records share.  The clock is
   CLOCK_MONOTONIC (use_clockid), the one ring-source.h orders by.  */
#ifndef ST_PERF_EVENTS_H
#define ST_PERF_EVENTS_H

#include <glib.h>
#include <stdint.h>

#include "format/perf-types.h"

#define ST_PERF_EVENTS_SAMPLE_TYPE                                        \
  (ST_PERF_SAMPLE_IDENTIFIER | ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID    \
   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_PERIOD | ST_PERF_SAMPLE_CALLCHAIN \
   | ST_PERF_SAMPLE_REGS_USER | ST_PERF_SAMPLE_STACK_USER)

/* perf record's defaults.  */
#define ST_PERF_EVENTS_DEFAULT_FREQ 999
#define ST_PERF_EVENTS_DEFAULT_STACK 8192

/* The attribute's bits beyond ST_PERF_ATTR_FLAG_* (perf_event_attr's
   bit field word).  */
#define ST_PERF_EVENTS_FLAG_EXCLUDE_KERNEL (1ull << 5)
#define ST_PERF_EVENTS_FLAG_EXCLUDE_HV     (1ull << 6)
#define ST_PERF_EVENTS_FLAG_FREQ           (1ull << 10)
#define ST_PERF_EVENTS_FLAG_ENABLE_ON_EXEC (1ull << 12)
#define ST_PERF_EVENTS_FLAG_USE_CLOCKID    (1ull << 25)
#define ST_PERF_EVENTS_FLAG_BUILD_ID       (1ull << 34)

typedef struct
{
  const char *event;          /* cpu-clock (NULL), task-clock, cycles,
                                 instructions */
  uint64_t freq;              /* samples per second, or 0 ... */
  uint64_t period;            /* ... events per sample */
  uint32_t stack_size;        /* bytes, a multiple of 8 */
  gboolean inherit;           /* children follow (per-CPU events) */
  gboolean enable_on_exec;    /* a command we start */
  gboolean build_id;          /* build-ids in MMAP2: see perf-events.c
                                 for why --record does not ask */
} StPerfEventsSpec;

/* The event names -e takes, for messages: "cpu-clock, task-clock, ...". */
const char *st_perf_events_names (void);

/* Fills ATTR for SPEC; FALSE with ERROR set for an unknown event.  */
gboolean st_perf_events_attr (StPerfEventAttr *attr,
                              const StPerfEventsSpec *spec, GError **error);

/* perf_event_open (ATTR, PID, CPU), close-on-exec.  Where the kernel
   refuses a part perf would drop too, ATTR is changed and the call
   retried (build_id on EINVAL; the kernel's side on EACCES/EPERM), so
   the events opened after it agree; *FALLBACKS gets the
   ST_PERF_EVENTS_FLAG_* bits given up (may be NULL).  -1 with ERROR
   set, saying why and what to change.  */
int st_perf_events_open (StPerfEventAttr *attr, int pid, int cpu,
                         uint64_t *fallbacks, GError **error);

/* The online CPUs (/sys/devices/system/cpu/online), in *N.  NULL with
   ERROR set.  */
int *st_perf_events_online_cpus (guint *n, GError **error);

/* Data pages per CPU ring (a power of two, 8 to 2048) that hold half a
   second of samples at RATE per second (0: unknown, 0 returned: the
   ring source's default), each of STACK_SIZE bytes of stack plus the
   rest of the record.  */
guint st_perf_events_ring_pages (uint64_t rate, uint32_t stack_size,
                                 long page_size);

/* The value of kernel.perf_event_paranoid, or G_MININT.  */
int st_perf_events_paranoid (void);

#endif /* ST_PERF_EVENTS_H */
