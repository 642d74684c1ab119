#include "config.h"

#include <inttypes.h>

#include "report/chain-dump.h"
#include "report/symbolizer.h"

char *
st_chain_dump_line (StSymbolizer *symbolizer, Dwfl *dwfl, const StEvent *ev,
                    const uint64_t *ips, uint32_t n_ips)
{
  GString *line = g_string_sized_new (256);

  g_string_append_printf (line, "%d\t%d\t%" PRId64 "\t", ev->pid, ev->tid,
                          ev->time);
  for (uint32_t i = 0; i < n_ips; i++)
    g_string_append_printf (line, "%s0x%" PRIx64, i ? "," : "", ips[i]);
  g_string_append_c (line, '\t');
  for (uint32_t i = 0; i < n_ips; i++)
    {
      if (i)
        g_string_append_c (line, ';');
      st_symbolize (symbolizer, dwfl, ips[i], line);
    }
  g_string_append_c (line, '\n');
  return g_string_free (line, FALSE);
}
