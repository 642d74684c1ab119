/* Strict in what a line must be (two hexadecimal numbers, a size above
   0, a name), lenient in what surrounds it: CRLF endings, blank lines,
   several blanks between the fields.  */
#include "config.h"

#include <string.h>

#include "report/perf-map.h"
#include "util/printable.h"

/* A hexadecimal number at *P (optional 0x), at most 16 digits; moves *P
   past it.  */
static gboolean
read_hex (const char **p, const char *end, uint64_t *value)
{
  const char *s = *p;
  uint64_t v = 0;
  int digits = 0;

  if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  for (; s < end && g_ascii_isxdigit (*s); s++)
    {
      if (++digits > 16)
        return FALSE;
      v = v << 4 | (uint64_t) g_ascii_xdigit_value (*s);
    }
  if (digits == 0)
    return FALSE;
  *p = s;
  *value = v;
  return TRUE;
}

static const char *
skip_blanks (const char *s, const char *end)
{
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return s;
}

/* What is wrong with line [S, END), or NULL when it was added.  */
static const char *
parse_line (const char *s, const char *end, StJitTable *table)
{
  uint64_t start, size;

  s = skip_blanks (s, end);
  if (!read_hex (&s, end, &start))
    return "no hexadecimal start address";
  if (s == end || (*s != ' ' && *s != '\t'))
    return "the start address is not followed by a blank";
  s = skip_blanks (s, end);
  if (!read_hex (&s, end, &size))
    return "no hexadecimal size";
  if (s == end || (*s != ' ' && *s != '\t'))
    return "no name after the size";
  s = skip_blanks (s, end);
  if (s == end)
    return "no name after the size";
  if (size == 0)
    return "size 0";
  if (start + size < start)
    return "the range wraps around the address space";
  if (!st_jit_table_add (table, start, size, s, (size_t) (end - s)))
    return "the table of JIT names is full";
  return NULL;
}

size_t
st_perf_map_parse (const char *text, size_t len, gboolean at_end,
                   const char *file_name, uint64_t first_line,
                   StJitTable *table, StPerfMapCounts *counts,
                   StPerfMapReport report, void *report_data)
{
  const char *p = text, *end = text + len;
  uint64_t line = first_line;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      if (nl == NULL && !at_end)
        break;
      const char *line_end = nl != NULL ? nl : end;
      const char *next = nl != NULL ? nl + 1 : end;
      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      counts->lines++;
      if (skip_blanks (p, line_end) != line_end)
        {
          const char *why = parse_line (p, line_end, table);
          if (why == NULL)
            counts->named++;
          else if (counts->bad++ < ST_PERF_MAP_MESSAGES_MAX && report != NULL)
            {
              g_autofree char *shown = st_printable (file_name);
              g_autofree char *message
                = g_strdup_printf ("%s:%" G_GUINT64_FORMAT ": %s; line "
                                   "skipped", shown, line, why);
              report (message, report_data);
            }
        }
      line++;
      p = next;
    }
  return (size_t) (p - text);
}
