/* Escaping of input-made names for a terminal (see printable.h).  */
#include "config.h"

#include <string.h>

#include "util/printable.h"

static gboolean
is_control (gunichar c)
{
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

gboolean
st_printable_as_is (const char *name)
{
  const char *end;

  if (!g_utf8_validate (name, -1, &end))
    return FALSE;
  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (is_control (c) || c == '\\')
        return FALSE;
    }
  return TRUE;
}

char *
st_printable (const char *name)
{
  GString *out;
  const char *p = name;

  if (st_printable_as_is (name))
    return g_strdup (name);
  out = g_string_sized_new (strlen (name) + 16);
  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8: the byte itself.  */
          g_string_append_printf (out, "\\x%02x", (unsigned char) *p);
          p++;
          continue;
        }
      const char *next = g_utf8_next_char (p);
      switch (c)
        {
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\\': g_string_append (out, "\\\\"); break;
        default:
          /* C1 as a code point: \xNN is a byte that is not UTF-8.  */
          if (is_control (c))
            g_string_append_printf (out, c < 0x80 ? "\\x%02x" : "\\u%04x",
                                    (unsigned) c);
          else
            g_string_append_len (out, p, next - p);
        }
      p = next;
    }
  return g_string_free (out, FALSE);
}
