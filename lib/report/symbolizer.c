#include "config.h"

#include <string.h>

#include "report/symbolizer.h"

void
st_symbolize (Dwfl *dwfl, uint64_t addr, GString *out)
{
  Dwfl_Module *mod = dwfl != NULL ? dwfl_addrmodule (dwfl, addr) : NULL;

  if (mod == NULL)
    {
      g_string_append (out, "[unknown]");
      return;
    }
  const char *name = dwfl_module_addrname (mod, addr);
  if (name != NULL)
    {
      g_string_append (out, name);
      return;
    }

  const char *modname = dwfl_module_info (mod, NULL, NULL, NULL, NULL, NULL,
                                          NULL, NULL);
  Dwarf_Addr bias = 0;
  dwfl_module_getelf (mod, &bias);
  const char *slash = modname ? strrchr (modname, '/') : NULL;
  g_string_append_printf (out, "[%s+0x%" G_GINT64_MODIFIER "x]",
                          slash ? slash + 1 : (modname ? modname : "?"),
                          (guint64) (addr - bias));
}
