#include "config.h"

#include "report/chain-dump.h"
#include "report/sample-report.h"
#include "report/symbolizer.h"

struct StSampleReport
{
  gboolean chains;
  StCallgraph *callgraph;     /* NULL when not collected */
  StSymbolizer *symbolizer;   /* shared: a file's symbols indexed once */
};

StSampleReport *
st_sample_report_new (gboolean chains, gboolean callgraph, gboolean demangle,
                      StJitNames *jit)
{
  StSampleReport *r = g_new0 (StSampleReport, 1);

  r->chains = chains;
  if (callgraph)
    r->callgraph = st_callgraph_new ();
  r->symbolizer = st_symbolizer_new ();
  st_symbolizer_set_demangle (r->symbolizer, demangle);
  st_symbolizer_set_jit_names (r->symbolizer, jit);
  return r;
}

void
st_sample_report_free (StSampleReport *r)
{
  if (r == NULL)
    return;
  st_callgraph_free (r->callgraph);
  st_symbolizer_free (r->symbolizer);
  g_free (r);
}

char *
st_sample_report_add (StSampleReport *r, Dwfl *dwfl,
                      const StAddressSpace *maps, const StEvent *ev,
                      const char *comm, const uint64_t *ips, uint32_t n_ips)
{
  char *line = NULL;

  st_symbolizer_set_process (r->symbolizer, ev->pid, maps);
  if (r->chains)
    line = st_chain_dump_line (r->symbolizer, dwfl, ev, ips, n_ips);
  if (r->callgraph != NULL)
    st_callgraph_add (r->callgraph, r->symbolizer, dwfl, comm, ips, n_ips);
  return line;
}

const StCallgraph *
st_sample_report_callgraph (const StSampleReport *r)
{
  return r->callgraph;
}
