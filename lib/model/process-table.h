/* What the stream has told us about each process: name, mappings, and a
   slot for the unwinder's per-process state.

   Threads: one at a time per table, no lock (a lookup moves the process
   in LRU lists, a walk fills its state slots): --jobs gives each worker
   a table of its own, fed the same events (parallel-unwind.h).  */
#ifndef ST_PROCESS_TABLE_H
#define ST_PROCESS_TABLE_H

#include <glib.h>
#include <stdint.h>

#include "model/address-space.h"
#include "model/event.h"

typedef struct StProcess StProcess;

/* Unwinder state slots of a process: generic, the unwind layer assigns
   them (unwind/process-modules.h, StUnwindSlot).  */
#define ST_PROCESS_UNWIND_SLOTS 2

struct StProcess
{
  int32_t pid;
  char *comm;                 /* may be NULL */
  StAddressSpace *maps;
  gboolean maps_seen;         /* the stream described mappings */
  gboolean proc_tried;        /* /proc/PID/maps was tried */
  gboolean exited;
  uint32_t exec_count;        /* images this pid has run (exec count) */

  /* Owned by the unwinders, one slot each as the unwind layer assigns
     them; freed with UNWIND_STATE_FREE.  */
  void *unwind_state[ST_PROCESS_UNWIND_SLOTS];
  GDestroyNotify unwind_state_free[ST_PROCESS_UNWIND_SLOTS];
  /* (The table's own links follow, in process-table.c.)  */
};

/* Default bounds: processes remembered (a few KiB each, mostly their
   mappings), and processes with unwinder state (a Dwfl with its modules,
   the expensive part).  */
#define ST_PROCESS_TABLE_MAX_PROCESSES 4096
#define ST_PROCESS_TABLE_MAX_UNWIND_STATES 256
/* Exited processes kept: their samples come before their EXIT in time
   order, so they are seldom needed again (a late record of a thread).  */
#define ST_PROCESS_TABLE_MAX_EXITED 256
/* Bytes of all processes' mappings (about 100 bytes a mapping, a few
   KiB a process): processes whose EXIT the recorder lost look alive, and
   4096 of them kept some 20 MB (12.8 MB after 4 minutes of a live
   soak, 65 processes forgotten a second).  Past it, the least recently
   active processes are forgotten (exited ones first).  */
#define ST_PROCESS_TABLE_MAX_MAP_BYTES ((size_t) 8 << 20)

typedef struct StProcessTable StProcessTable;

StProcessTable *st_process_table_new (void);
void st_process_table_free (StProcessTable *t);

/* At most MAX_PROCESSES processes are kept (the least recently used is
   forgotten, exited ones first), and at most MAX_UNWIND_STATES of them
   keep their unwinder state.  */
void st_process_table_set_limits (StProcessTable *t, guint max_processes,
                                  guint max_unwind_states);
/* The bound of the mappings' bytes, instead of
   ST_PROCESS_TABLE_MAX_MAP_BYTES (0: none).  */
void st_process_table_set_max_map_bytes (StProcessTable *t, size_t max_bytes);
/* The bytes of the mappings of the processes kept.  */
size_t st_process_table_map_bytes (StProcessTable *t);

/* At most MAX_EXITED exited processes are kept: past it, the one that
   exited longest ago is forgotten.  */
void st_process_table_set_max_exited (StProcessTable *t, guint max_exited);

/* The process PID, created empty when unknown; now the most recently
   used.  Creating one may forget the least recently used process: a
   pointer to another process is valid only until the next call that
   creates one (_get, _apply).  */
StProcess *st_process_table_get (StProcessTable *t, int32_t pid);
StProcess *st_process_table_lookup (StProcessTable *t, int32_t pid);

/* Call before the unwinder uses (or creates) P's unwinder state: P's
   becomes the most recently used, and the states of the least recently
   used processes beyond the bound are dropped (rebuilt when needed).  */
void st_process_table_use_unwind_state (StProcessTable *t, StProcess *p);

/* Applies a MAP/PROCESS/FORK/EXIT event.  Other kinds are ignored.  */
void st_process_table_apply (StProcessTable *t, const StEvent *ev);

/* When the stream described no mappings of P, reads /proc/PID/maps
   (once): the process may still be running here.  */
void st_process_load_maps_once (StProcess *p);

/* Drops the unwinder's state of P (e.g. after EXIT).  */
void st_process_drop_unwind_state (StProcess *p);

guint st_process_table_size (StProcessTable *t);
guint st_process_table_n_unwind_states (StProcessTable *t);
/* Processes forgotten to keep within the bound.  */
uint64_t st_process_table_forgotten (StProcessTable *t);

/* Called with the pid of every process the table forgets (before it is
   gone), to keep a copy of the model in step (parallel-unwind.h).  */
typedef void (*StProcessForgetFunc) (int32_t pid, void *data);
void st_process_table_set_forget_func (StProcessTable *t,
                                       StProcessForgetFunc func, void *data);
/* Forgets process PID, if known, as the bounds would.  */
void st_process_table_forget (StProcessTable *t, int32_t pid);
/* No bound on processes, exited ones or mappings' bytes: a copy of
   another table that forgets only what that one forgets.  */
void st_process_table_set_unbounded (StProcessTable *t);

#endif /* ST_PROCESS_TABLE_H */
