/* What perf-output.c (perf.data input, the StWriterOps) and
   perf-from-capture.c (Sysprof capture input) share.  */
#ifndef ST_PERF_OUTPUT_PRIVATE_H
#define ST_PERF_OUTPUT_PRIVATE_H

#include "format/perf-reader.h"
#include "format/perf-writer.h"
#include "model/event.h"

typedef struct
{
  StPerfWriter *writer;
  StPerfReader *perf_in;        /* perf.data input, else NULL */
  gboolean unwinding;
  gboolean features_carried;    /* the input's feature sections */

  /* perf.data input: where the AUXTRACE records went (input offset ->
     output offset), for the AUXTRACE feature's index.  */
  GHashTable *auxtrace_moves;

  /* Capture input.  */
  uint64_t sample_type;
  gboolean raw_stacks;          /* samples carry REGS_USER + STACK_USER */
  uint64_t n_records;
  GHashTable *build_ids;        /* "HEX\tfilename", file mode */

  uint64_t *chain;              /* scratch */
  size_t chain_cap;
} StPerfOutput;

/* The unwound chain of raw-stack event EV in o->chain: its kernel part,
   PERF_CONTEXT_USER, the N_USER user addresses.  Returns its length.  */
size_t st_perf_output_chain (StPerfOutput *o, const StEvent *ev,
                             const uint64_t *user, size_t n_user);

/* Capture input: the attribute (and features) before any record.  */
void st_perf_output_capture_start (StPerfOutput *o, gboolean file_mode);
/* Capture input: the record(s) for EV; FALSE when it has no
   counterpart.  */
gboolean st_perf_output_capture_event (StPerfOutput *o, const StEvent *ev);
/* Capture input: the sample for raw-stack event EV, unwound.  */
void st_perf_output_capture_unwound (StPerfOutput *o, const StEvent *ev,
                                     const uint64_t *user, uint32_t n_user);

#endif /* ST_PERF_OUTPUT_PRIVATE_H */
