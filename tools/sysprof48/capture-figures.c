/* Figures of a Sysprof capture of the sp48 workload, read with Sysprof's
   own reader (libsysprof-capture-4): the workload's SAMPLE frames, how
   many have a known leaf (sp48_leaf, sp48_c, sp48_b, sp48_a at their
   first user frame) and how many of those the whole path up to main, in
   order; the other workload samples by their first user frame (none,
   outside the path, main); the records the unwinder says it lost (LOG
   "Lost N samples", or stacktrace's "N events lost by the recorder").
   Usage: capture-figures CAPTURE WORKLOAD LIBRARY SYMBOLS
   SYMBOLS: lines "FILE NAME START SIZE" (hexadecimal, from nm -S), FILE
   the workload's or the library's basename.  Prints "key value" lines.  */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysprof-capture.h>

#define CONTEXT_USER ((SysprofCaptureAddress) -512)
#define CONTEXT_MAX ((SysprofCaptureAddress) -4095)

typedef struct
{
  char file[64];
  char name[64];
  guint64 start, size;
} Symbol;

typedef struct
{
  guint64 start, end, offset;
  char *base;
} Map;

static GArray *symbols;         /* Symbol */
static GHashTable *maps;        /* pid -> GArray of Map */

/* The path, leaf first.  */
static const char *path[] = { "sp48_leaf", "sp48_c", "sp48_b", "sp48_a",
                              "main" };

static const char *
symbol_of (int pid, SysprofCaptureAddress addr)
{
  GArray *list = g_hash_table_lookup (maps, GINT_TO_POINTER (pid));

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const Map *m = &g_array_index (list, Map, list->len - 1 - i);
      if (addr < m->start || addr >= m->end)
        continue;
      /* GNU ld's DSOs and PIEs: file offset = virtual address.  */
      guint64 vaddr = addr - m->start + m->offset;
      for (guint j = 0; j < symbols->len; j++)
        {
          const Symbol *s = &g_array_index (symbols, Symbol, j);
          if (strcmp (s->file, m->base) == 0 && vaddr >= s->start
              && vaddr < s->start + s->size)
            return s->name;
        }
      return NULL;
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: capture-figures CAPTURE WORKLOAD LIBRARY SYMBOLS\n");
      return 2;
    }
  const char *workload = argv[2], *library = argv[3];
  FILE *f = fopen (argv[4], "r");
  char line[512];

  symbols = g_array_new (FALSE, TRUE, sizeof (Symbol));
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      Symbol s = { 0 };
      if (sscanf (line, "%63s %63s %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x",
                  s.file, s.name, &s.start, &s.size) == 4)
        g_array_append_val (symbols, s);
    }
  if (f != NULL)
    fclose (f);
  maps = g_hash_table_new (g_direct_hash, g_direct_equal);

  SysprofCaptureReader *reader = sysprof_capture_reader_new (argv[1]);
  if (reader == NULL)
    {
      fprintf (stderr, "%s: cannot read\n", argv[1]);
      return 1;
    }
  GHashTable *workload_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  GHashTable *named_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint64 samples = 0, workload_samples = 0, known = 0, whole = 0, lost = 0;
  guint64 lost_logs = 0, frames = 0, no_user = 0, elsewhere = 0, in_main = 0;
  guint64 kernel_only = 0;
  gint64 first_sample = 0, last_sample = 0;
  SysprofCaptureFrameType type;

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      frames++;
      if (type == SYSPROF_CAPTURE_FRAME_MAP)
        {
          const SysprofCaptureMap *m = sysprof_capture_reader_read_map (reader);
          if (m == NULL)
            break;
          g_autofree char *base = g_path_get_basename (m->filename);
          if (strcmp (base, workload) != 0 && strcmp (base, library) != 0)
            continue;
          if (strcmp (base, workload) == 0)
            g_hash_table_add (workload_pids, GINT_TO_POINTER (m->frame.pid));
          GArray *list = g_hash_table_lookup (maps, GINT_TO_POINTER (m->frame.pid));
          if (list == NULL)
            {
              list = g_array_new (FALSE, TRUE, sizeof (Map));
              g_hash_table_insert (maps, GINT_TO_POINTER (m->frame.pid), list);
            }
          Map map = { m->start, m->end, m->offset, g_steal_pointer (&base) };
          g_array_append_val (list, map);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_PROCESS)
        {
          /* The workload is the process of that name that maps it (a
             process reading the file maps it too: an unwinder, ...).  */
          const SysprofCaptureProcess *p
            = sysprof_capture_reader_read_process (reader);
          if (p == NULL)
            break;
          /* The command line's first word (an exec's PROCESS frame holds
             the arguments too), or the name alone.  */
          g_autofree char *first = g_strndup (p->cmdline,
                                              strcspn (p->cmdline, " "));
          g_autofree char *base = g_path_get_basename (first);
          if (g_str_has_prefix (base, workload))
            g_hash_table_add (named_pids, GINT_TO_POINTER (p->frame.pid));
          else
            g_hash_table_remove (named_pids, GINT_TO_POINTER (p->frame.pid));
        }
      else if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (reader);
          if (s == NULL)
            break;
          samples++;
          if (!g_hash_table_contains (workload_pids, GINT_TO_POINTER (s->frame.pid))
              || !g_hash_table_contains (named_pids, GINT_TO_POINTER (s->frame.pid)))
            continue;
          workload_samples++;
          if (first_sample == 0)
            first_sample = s->frame.time;
          last_sample = s->frame.time;
          /* The user part: after PERF_CONTEXT_USER, else all of it.  */
          guint first = 0;
          for (guint i = 0; i < s->n_addrs; i++)
            if (s->addrs[i] == CONTEXT_USER)
              first = i + 1;
          const char *names[256];
          guint n = 0;
          for (guint i = first; i < s->n_addrs && n < G_N_ELEMENTS (names); i++)
            if (s->addrs[i] < CONTEXT_MAX)
              names[n++] = symbol_of (s->frame.pid, s->addrs[i]);
          if (n == 0)
            {
              /* Nothing of user space: a kernel-only chain (or none).  */
              no_user++;
              kernel_only += first > 0 || s->n_addrs > 0;
              continue;
            }
          if (names[0] == NULL)
            {
              elsewhere++;    /* ld.so, libc, the PLT... */
              continue;
            }
          guint at = 0;
          while (at < 4 && strcmp (names[0], path[at]) != 0)
            at++;
          if (at == 4)
            {
              in_main++;
              continue;
            }
          known++;
          /* The rest of the path follows, frame by frame.  */
          gboolean ok = TRUE;
          for (guint k = at, i = 0; k < G_N_ELEMENTS (path); k++, i++)
            if (i >= n || names[i] == NULL || strcmp (names[i], path[k]) != 0)
              {
                ok = FALSE;
                break;
              }
          whole += ok;
        }
      else if (type == SYSPROF_CAPTURE_FRAME_LOG)
        {
          const SysprofCaptureLog *l = sysprof_capture_reader_read_log (reader);
          unsigned long long n;
          if (l == NULL)
            break;
          /* The real unwinder's "Lost N samples", stacktrace's "N events
             lost by the recorder".  */
          if (sscanf (l->message, "Lost %llu", &n) == 1
              || (sscanf (l->message, "%llu events lost", &n) == 1
                  && strstr (l->message, "events lost") != NULL))
            {
              lost += n;
              lost_logs++;
            }
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }
  printf ("frames %" G_GUINT64_FORMAT "\n", frames);
  printf ("samples %" G_GUINT64_FORMAT "\n", samples);
  printf ("workload_pids %u\n", g_hash_table_size (named_pids));
  printf ("workload_samples %" G_GUINT64_FORMAT "\n", workload_samples);
  printf ("no_user_frames %" G_GUINT64_FORMAT "\n", no_user);
  printf ("kernel_frames_only %" G_GUINT64_FORMAT "\n", kernel_only);
  printf ("leaf_outside_path %" G_GUINT64_FORMAT "\n", elsewhere);
  printf ("leaf_in_main %" G_GUINT64_FORMAT "\n", in_main);
  printf ("known_leaf %" G_GUINT64_FORMAT "\n", known);
  printf ("whole_path %" G_GUINT64_FORMAT "\n", whole);
  printf ("whole_path_percent %.2f\n", known ? 100.0 * whole / known : 0.0);
  printf ("lost_records %" G_GUINT64_FORMAT "\n", lost);
  printf ("lost_logs %" G_GUINT64_FORMAT "\n", lost_logs);
  printf ("sample_span_s %.3f\n", (last_sample - first_sample) / 1e9);
  sysprof_capture_reader_unref (reader);
  return 0;
}
