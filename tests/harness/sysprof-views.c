/* What Sysprof's views of a capture are built from, computed with
   Sysprof's own libraries (libsysprof-capture-4 and libsysprof-4), for
   tests/integration/sysprof-views.sh:

     sysprof-views CAPTURE [PID]

   prints, one fact a line:
     start T            the header's start time (Sysprof's timeline origin)
     end T              the reader's end time after every frame was read
                        (the header's end_time or the latest frame)
     samples N FIRST LAST   SAMPLE frames and their first and last time
     process PID NAME   the first PROCESS frame of each pid (Sysprof keeps
                        that one: its process list and callgraph name)
     process-frames PID N   how many PROCESS frames each pid has
     chain PID F1 F2 ...    with PID: each sample of PID, its user frames
                        leaf first as Sysprof's ELF symbol resolver names
                        them (the callgraph view's function names)
   Exit status 1 when the capture cannot be opened.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sysprof.h>

/* Sysprof's callgraph: perf context markers switch between kernel and
   user addresses; only the user part is named here.  */
static void
print_chain (SysprofSymbolResolver *resolver, const SysprofCaptureSample *s)
{
  SysprofAddressContext context = SYSPROF_ADDRESS_CONTEXT_NONE;

  printf ("chain %d", s->frame.pid);
  for (guint i = 0; i < s->n_addrs; i++)
    {
      SysprofAddressContext marker;
      GQuark tag = 0;

      if (sysprof_address_is_context_switch (s->addrs[i], &marker))
        {
          context = marker;
          continue;
        }
      if (context != SYSPROF_ADDRESS_CONTEXT_USER)
        continue;
      g_autofree char *name
        = sysprof_symbol_resolver_resolve_with_context (resolver,
                                                        s->frame.time,
                                                        s->frame.pid, context,
                                                        s->addrs[i], &tag);
      printf (" %s", name != NULL ? name : "?");
    }
  putchar ('\n');
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  SysprofCaptureReader *reader;
  SysprofCaptureFrameType type;
  GHashTable *names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GHashTable *frames = g_hash_table_new (NULL, NULL);
  SysprofSymbolResolver *resolver = NULL;
  gint64 n_samples = 0, first = 0, last = 0;
  int chain_pid = argc > 2 ? atoi (argv[2]) : 0;

  if (argc < 2)
    {
      fprintf (stderr, "usage: sysprof-views CAPTURE [PID]\n");
      return 2;
    }
  reader = sysprof_capture_reader_new (argv[1]);
  if (reader == NULL)
    {
      fprintf (stderr, "sysprof-views: cannot open %s\n", argv[1]);
      return 1;
    }
  if (chain_pid > 0)
    {
      /* As the callgraph does: the resolver first reads the maps.  */
      resolver = sysprof_elf_symbol_resolver_new ();
      sysprof_symbol_resolver_load (resolver, reader);
      sysprof_capture_reader_reset (reader);
    }

  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      if (type == SYSPROF_CAPTURE_FRAME_SAMPLE)
        {
          const SysprofCaptureSample *s
            = sysprof_capture_reader_read_sample (reader);

          if (s == NULL)
            break;
          if (n_samples++ == 0 || s->frame.time < first)
            first = s->frame.time;
          last = MAX (last, s->frame.time);
          if (resolver != NULL && s->frame.pid == chain_pid)
            print_chain (resolver, s);
        }
      else if (type == SYSPROF_CAPTURE_FRAME_PROCESS)
        {
          const SysprofCaptureProcess *p
            = sysprof_capture_reader_read_process (reader);
          gpointer key;

          if (p == NULL)
            break;
          key = GINT_TO_POINTER (p->frame.pid);
          if (!g_hash_table_contains (names, key))
            g_hash_table_insert (names, key, g_strdup (p->cmdline));
          g_hash_table_insert (frames, key,
                               GINT_TO_POINTER (GPOINTER_TO_INT (
                                 g_hash_table_lookup (frames, key)) + 1));
        }
      else if (!sysprof_capture_reader_skip (reader))
        break;
    }

  printf ("start %" G_GINT64_FORMAT "\n",
          sysprof_capture_reader_get_start_time (reader));
  printf ("end %" G_GINT64_FORMAT "\n",
          sysprof_capture_reader_get_end_time (reader));
  printf ("samples %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %"
          G_GINT64_FORMAT "\n", n_samples, first, last);

  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, names);
  while (g_hash_table_iter_next (&it, &key, &value))
    printf ("process %d %s\n", GPOINTER_TO_INT (key), (const char *) value);
  g_hash_table_iter_init (&it, frames);
  while (g_hash_table_iter_next (&it, &key, &value))
    printf ("process-frames %d %d\n", GPOINTER_TO_INT (key),
            GPOINTER_TO_INT (value));

  g_clear_object (&resolver);
  g_hash_table_unref (names);
  g_hash_table_unref (frames);
  sysprof_capture_reader_unref (reader);
  return 0;
}
