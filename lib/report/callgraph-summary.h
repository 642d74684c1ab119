/* A top-down call graph of the unwound samples, by function name,
   walked in the order the command prints it (lib/api copies it for
   the public StCallGraph).  A function calling itself directly is
   folded into one node.  */
#ifndef ST_CALLGRAPH_SUMMARY_H
#define ST_CALLGRAPH_SUMMARY_H

#include <elfutils/libdwfl.h>

#include "report/symbolizer.h"

typedef struct StCallgraph StCallgraph;

StCallgraph *st_callgraph_new (void);
void st_callgraph_free (StCallgraph *g);

/* Adds one sample of process COMM: IPS leaf first.  */
void st_callgraph_add (StCallgraph *g, StSymbolizer *symbolizer, Dwfl *dwfl,
                       const char *comm, const uint64_t *ips, uint32_t n_ips);

/* The samples added.  */
uint64_t st_callgraph_samples (const StCallgraph *g);
/* Calls VISIT for every node depth first, each node's children by most
   samples, then by name; DEPTH 0: the process.  */
typedef void (*StCallgraphVisit) (const char *name, unsigned depth,
                                  uint64_t total, uint64_t self,
                                  void *data);
void st_callgraph_walk (const StCallgraph *g, StCallgraphVisit visit,
                        void *data);

#endif /* ST_CALLGRAPH_SUMMARY_H */
