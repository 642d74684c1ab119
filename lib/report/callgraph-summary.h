/* A top-down call graph of the unwound samples, by function name, printed
   as an indented tree of the hottest paths.  A function calling itself
   directly is folded into one node.  */
#ifndef ST_CALLGRAPH_SUMMARY_H
#define ST_CALLGRAPH_SUMMARY_H

#include <elfutils/libdwfl.h>
#include <stdio.h>

#include "report/symbolizer.h"

typedef struct StCallgraph StCallgraph;

StCallgraph *st_callgraph_new (void);
void st_callgraph_free (StCallgraph *g);

/* Adds one sample of process COMM: IPS leaf first.  */
void st_callgraph_add (StCallgraph *g, StSymbolizer *symbolizer, Dwfl *dwfl,
                       const char *comm, const uint64_t *ips, uint32_t n_ips);

/* Prints the nodes holding at least MIN_PERCENT of the samples.  */
void st_callgraph_print (const StCallgraph *g, FILE *out, double min_percent);

#endif /* ST_CALLGRAPH_SUMMARY_H */
