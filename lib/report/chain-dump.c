#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "report/chain-dump.h"
#include "report/symbolizer.h"
#include "util/printable.h"

/* Appends NAME to LINE so that it cannot split the line, its fields or
   its symbols: escaped as for a terminal (st_printable: \t, \n, \\,
   \xNN), and ';' as \x3b.  Names come from the input, and JIT names
   hold ';' often (a JVM's "Ljava/lang/String;hashCode()I").  */
static void
append_name (GString *line, const char *name)
{
  if (st_printable_as_is (name) && strchr (name, ';') == NULL)
    {
      g_string_append (line, name);
      return;
    }
  g_autofree char *printable = st_printable (name);
  for (const char *c = printable; *c != '\0'; c++)
    if (*c == ';')
      g_string_append (line, "\\x3b");
    else
      g_string_append_c (line, *c);
}

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
  GString *name = g_string_sized_new (64);
  for (uint32_t i = 0; i < n_ips; i++)
    {
      if (i)
        g_string_append_c (line, ';');
      g_string_truncate (name, 0);
      st_symbolize (symbolizer, dwfl, ips[i], name);
      append_name (line, name->str);
    }
  g_string_free (name, TRUE);
  g_string_append_c (line, '\n');
  return g_string_free (line, FALSE);
}
