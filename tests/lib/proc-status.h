/* A field of this process's /proc/self/status in KiB (RssAnon, RssFile,
   VmRSS...), for the tests of what stays resident.  */
#ifndef ST_PROC_STATUS_H
#define ST_PROC_STATUS_H

#include <stdio.h>
#include <string.h>

#include <glib.h>

/* FIELD's value in KiB; -1 when /proc or the field is missing.  */
static inline long
proc_status_kib (const char *field)
{
  char line[256];
  long kib = -1;
  size_t len = strlen (field);
  FILE *f = fopen ("/proc/self/status", "r");

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, field, len) == 0 && line[len] == ':'
        && sscanf (line + len + 1, "%ld kB", &kib) == 1)
      break;
  fclose (f);
  return kib;
}

/* This process's resident pages of mapped files, in KiB (the test
   fails without /proc).  */
static inline guint64
proc_status_rss_file_kib (void)
{
  long kib = proc_status_kib ("RssFile");

  g_assert_cmpint (kib, >=, 0);
  return (guint64) kib;
}

#endif /* ST_PROC_STATUS_H */
