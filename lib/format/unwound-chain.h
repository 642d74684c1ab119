/* The callchain a perf.data writer gives an unwound raw-stack sample:
   the sample's kernel part, PERF_CONTEXT_USER, then the user addresses
   the unwinder found.  Shared by both perf.data writers (perf-output.c,
   perf-from-capture.c).  */
#ifndef ST_UNWOUND_CHAIN_H
#define ST_UNWOUND_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"

/* A scratch buffer, reused from sample to sample; zero-initialized is
   empty.  */
typedef struct
{
  uint64_t *ips;
  size_t cap;
} StUnwoundChain;

/* The unwound chain of raw-stack event EV in C->ips: its kernel part,
   PERF_CONTEXT_USER, the N_USER addresses of USER.  Returns its
   length.  */
size_t st_unwound_chain_build (StUnwoundChain *c, const StEvent *ev,
                               const uint64_t *user, size_t n_user);

/* Frees the buffer; C is empty again.  */
void st_unwound_chain_clear (StUnwoundChain *c);

#endif /* ST_UNWOUND_CHAIN_H */
