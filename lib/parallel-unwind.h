/* --jobs: raw-stack samples walked on worker threads, concluded in
   their order on the pipeline's thread.

   Each worker owns a replica of the model: its own process table,
   module cache and engine (StSampleUnwinder without stitching, report or
   priming), fed every event that changes the model, in the same order
   as the pipeline's own.  Nothing a walk touches is shared between
   threads, so the caches (rule tables, Dwfls, module LRU, code pages)
   need no lock, and a walk gives what it would on the pipeline's
   thread: it depends only on the model and the files.  What the
   workers' caches ask of the pipeline's to find the same files is
   behind locks of its own, outside the walk: debuginfod's answers, a
   live input's held roots, first-sight pins (pin-shelf.h).

   The pipeline's thread submits each sample after applying it to its
   own model (the model is then as of the sample's time), and takes the
   result back in any order; results are concluded (stitching,
   statistics, --chains line: st_sample_unwinder_conclude) strictly in
   the order of submission.  A sample goes to the workers as it is
   submitted (a worker asleep is woken for a batch's worth, or when a
   result is asked for), so that the pipeline's thread reads and
   submits more while the workers walk, and takes results once they are
   ready (st_parallel_unwind_ready) instead of waiting for each.  When
   it must wait, it walks samples itself (its model is the replicas').
   Before an event that changes the model, everything submitted is
   concluded (st_parallel_unwind_apply): the model is frozen while
   workers walk, for them and for the conclusions.

   Threads: every function from the pipeline's thread only.  Memory:
   at most st_parallel_unwind_in_flight walks held (StWalk, 4 KiB each) and
   as many events held by the caller until their result is ready, plus
   per worker what one single-threaded unwinder holds (its rule tables'
   budget, its Dwfls, its mapped files: mapped files are shared pages).  */
#ifndef ST_PARALLEL_UNWIND_H
#define ST_PARALLEL_UNWIND_H

#include "capture-mounts.h"
#include "model/module-cache.h"
#include "sample-unwinder.h"

/* Samples submitted and not concluded yet, at most, whatever the
   number of workers (see st_parallel_unwind_in_flight).  */
#define ST_PARALLEL_IN_FLIGHT 1024
/* ... per worker.  */
#define ST_PARALLEL_IN_FLIGHT_PER_WORKER 64

typedef struct StParallelUnwind StParallelUnwind;
typedef struct StParallelJob StParallelJob;

/* A new module cache as the pipeline's own (resolver settings, finder,
   lazy fetch), for worker WORKER (numbered from 0).  */
typedef StModuleCache *(*StModuleCacheMaker) (guint worker, void *user);

/* N_WORKERS threads; results concluded by MAIN (not owned).  NULL when
   a thread could not be started: the caller then unwinds on its own
   thread.  */
StParallelUnwind *st_parallel_unwind_new (guint n_workers,
                                          StSampleUnwinder *main,
                                          StModuleCacheMaker make_cache,
                                          void *make_cache_data,
                                          const StSampleUnwinderOptions *o);
/* Concludes nothing more: call st_parallel_unwind_settle first for the
   results to count.  */
void st_parallel_unwind_free (StParallelUnwind *pu);

/* How many samples may be submitted and not concluded yet:
   ST_PARALLEL_IN_FLIGHT_PER_WORKER per worker, up to
   ST_PARALLEL_IN_FLIGHT.  Few, so that a worker walks what the
   pipeline's thread read lately (see parallel-unwind.c).  */
guint st_parallel_unwind_in_flight (const StParallelUnwind *pu);

/* Raw-stack event EV, applied to the main model, to be walked; EV stays
   valid until st_parallel_unwind_result.  AS_IS: walked at once by MAIN
   with files being fetched not waited for (st_sample_unwinder_walk):
   defer's cap, as --jobs 1 would.  */
StParallelJob *st_parallel_unwind_submit (StParallelUnwind *pu,
                                          const StEvent *ev, gboolean as_is);
/* Whether JOB's result can be had without waiting for a walk (it may
   still wait for an earlier job's, with more than one worker).  Its
   batch is published if it was not yet.  */
gboolean st_parallel_unwind_ready (StParallelUnwind *pu, StParallelJob *job);
/* JOB's result (concluding every job submitted before it first);
   JOB is gone.  */
StUnwound *st_parallel_unwind_result (StParallelUnwind *pu,
                                      StParallelJob *job);
/* Concludes every job submitted (their results wait for
   st_parallel_unwind_result).  */
void st_parallel_unwind_settle (StParallelUnwind *pu);
/* Whether EV changes what a walk reads, so that the workers' models
   must be given it (st_parallel_unwind_apply): the process table's
   events (st_process_table_apply), a mapping's JIT names.  */
gboolean st_parallel_unwind_changes_model (const StEvent *ev);
/* EV's effect on every worker's model (after settling).  */
void st_parallel_unwind_apply (StParallelUnwind *pu, const StEvent *ev);
/* Process PID forgotten by the pipeline's process table (its bounds),
   by every worker's too (after settling).  The pipeline settles before
   anything that may make its table forget (an event that changes the
   model, a sample of a process it does not know), so that no sample
   in flight or waiting to be concluded is of a process forgotten
   since it was submitted.  */
void st_parallel_unwind_forget (StParallelUnwind *pu, int32_t pid);
/* A capture's mount table frame, to every worker's resolver (after
   settling).  */
void st_parallel_unwind_feed_mounts (StParallelUnwind *pu,
                                     const StEvent *ev);

#endif /* ST_PARALLEL_UNWIND_H */
