/* The fields of a PERF_RECORD_SAMPLE, located with the sample's event
   attribute: the values stacktrace uses, and the byte ranges a writer
   needs to re-serialize the record with another CALLCHAIN and without
   REGS_USER and STACK_USER.  */
#ifndef ST_PERF_SAMPLE_H
#define ST_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf-types.h"

typedef struct
{
  /* Values; 0 for fields the sample_type lacks.  */
  uint64_t ip;
  uint32_t pid;
  uint32_t tid;
  uint64_t time;
  uint32_t cpu;
  uint64_t nr;                  /* CALLCHAIN entries at IPS */
  const uint8_t *ips;
  uint64_t abi;                 /* REGS_USER; N_REGS registers at REGS */
  const uint8_t *regs;
  uint32_t n_regs;
  uint64_t stack_size;          /* STACK_USER: bytes copied at STACK, */
  const uint8_t *stack;
  uint64_t dyn_size;            /* of which the first DYN_SIZE are valid */

  /* Byte offsets in the record.  A field the sample_type lacks has an
     empty range where it would be.  */
  size_t callchain_at;          /* CALLCHAIN */
  size_t callchain_end;
  size_t regs_user_at;          /* REGS_USER then STACK_USER */
  size_t stack_user_end;
} StPerfSample;

/* Locates the fields of the SIZE-byte sample record REC of attribute A.
   Returns NULL, or why the record is malformed (free it with g_free).  */
char *st_perf_sample_parse (const StPerfAttr *a, const uint8_t *rec,
                            size_t size, StPerfSample *s);

/* The byte offsets of StPerfSample alone: what a writer that replaces
   CALLCHAIN, REGS_USER and STACK_USER needs.  */
typedef struct
{
  size_t callchain_at;
  size_t callchain_end;
  size_t regs_user_at;
  size_t stack_user_end;
} StPerfSampleSpans;

/* Those offsets alone, as st_perf_sample_parse finds them, in fewer
   steps when the fields before REGS_USER have fixed sizes but for
   CALLCHAIN (no READ, RAW or BRANCH_STACK): a writer locates again every
   sample the reader parsed.  Returns NULL, or why the record is
   malformed (free it with g_free).  */
char *st_perf_sample_locate (const StPerfAttr *a, const uint8_t *rec,
                             size_t size, StPerfSampleSpans *spans);

#endif /* ST_PERF_SAMPLE_H */
