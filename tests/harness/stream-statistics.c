/* A stream run through the public header alone, its statistics printed
   as the command's stats file spells the same figures (KEY=VALUE), for
   integration/library-statistics.sh to find them in the command's file.
   Also checks what the snapshot must hold together: the counters are
   st_stream_get_counters's, the processes add up to the total, the
   unusable files are among all files, a snapshot taken from a message
   function during the run counts no more than the final one.

     stream-statistics [--symfs DIR] IN OUT  */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

static int failed;

#define CHECK(cond) \
  do { if (!(cond)) { fprintf (stderr, "stream-statistics: %s:%d: %s\n", \
                               __FILE__, __LINE__, #cond); failed = 1; } } \
  while (0)

typedef struct
{
  StStream *stream;
  uint64_t samples_during;     /* the samples a snapshot taken in a
                                  message function saw */
  int taken;
} During;

/* Messages (damage, warnings) are printed; the first one also takes a
   snapshot on the running thread.  */
static void
on_message (StMessageKind kind, const char *message, void *user_data)
{
  During *d = user_data;
  StStatistics *st = NULL;
  StCounters c;

  (void) kind;
  fprintf (stderr, "stream-statistics: %s\n", message);
  if (d->taken)
    return;
  CHECK (st_stream_get_statistics (d->stream, &st) == ST_OK);
  CHECK (st_statistics_get_counters (st, &c) == ST_OK);
  d->samples_during = c.samples;
  d->taken = 1;
  st_statistics_free (st);
}

static void
print_u64 (const char *key, uint64_t value)
{
  printf ("%s=%" PRIu64 "\n", key, value);
}

int
main (int argc, char **argv)
{
  const char *symfs = NULL;
  int arg = 1;
  During during = { 0 };

  if (argc == 5 && strcmp (argv[1], "--symfs") == 0)
    {
      symfs = argv[2];
      arg = 3;
    }
  if (arg != argc - 2)
    {
      fprintf (stderr, "usage: stream-statistics [--symfs DIR] IN OUT\n");
      return 2;
    }
  st_install_mapped_file_guard ();
  StStream *s = st_stream_new ();
  StStatistics *st = NULL;
  during.stream = s;
  CHECK (st_stream_get_statistics (s, &st) == ST_E_INVALID);   /* no run */
  st_stream_set_input_path (s, argv[arg], ST_FILE_FORMAT_AUTO);
  st_stream_set_output_path (s, argv[arg + 1], ST_FILE_FORMAT_CAPTURE);
  st_stream_set_symfs (s, symfs);
  st_stream_set_message_func (s, on_message, &during);
  st_stream_set_call_graph (s, 1);
  if (st_stream_run (s) != ST_OK)
    {
      fprintf (stderr, "stream-statistics: %s\n", st_stream_error (s));
      return 1;
    }
  if (st_stream_get_statistics (s, &st) != ST_OK)
    {
      fprintf (stderr, "stream-statistics: no statistics after the run\n");
      return 1;
    }

  StCounters c, live;
  StDamageCounters d;
  StFileCounters f;
  StPrimingCounters p;
  CHECK (st_statistics_get_counters (st, &c) == ST_OK);
  CHECK (st_stream_get_counters (s, &live) == ST_OK);
  CHECK (st_statistics_get_damage (st, &d) == ST_OK);
  CHECK (st_statistics_get_files (st, &f) == ST_OK);
  CHECK (st_statistics_get_priming (st, &p) == ST_OK);
  CHECK (live.samples == c.samples && live.complete == c.complete
         && live.records_in == c.records_in
         && live.input_bytes == c.input_bytes);
  CHECK (!during.taken || during.samples_during <= c.samples);
  CHECK (c.complete + c.truncated + c.failed == c.samples);
  CHECK (d.places == c.damaged);

  /* The processes, most samples first, add up to the total.  */
  StCounters others;
  uint64_t sum = 0, last = UINT64_MAX;
  size_t n = st_statistics_n_processes (st);
  for (size_t i = 0; i < n; i++)
    {
      StProcessCounters pc;
      CHECK (st_statistics_get_process (st, i, &pc) == ST_OK);
      CHECK (pc.counters.samples <= last);
      last = pc.counters.samples;
      sum += pc.counters.samples;
    }
  CHECK (st_statistics_get_process (st, n, &(StProcessCounters) { 0 })
         == ST_E_INVALID);
  CHECK (st_statistics_get_other_processes (st, &others) == ST_OK);
  CHECK (sum + others.samples == c.samples);

  /* Every file listed; the unusable ones are among them.  */
  size_t n_files = st_statistics_n_files (st), n_usable = 0;
  for (size_t i = 0; i < n_files; i++)
    {
      StModuleFile m;
      CHECK (st_statistics_get_file (st, i, &m) == ST_OK);
      CHECK (m.name != NULL);
      if (m.problem == NULL)
        {
          CHECK (m.source != NULL && m.verification != NULL);
          n_usable++;
        }
    }
  CHECK (n_files == f.modules - f.not_listed);
  CHECK (n_usable == f.verified_build_id + f.verified_inode + f.unverified);
  CHECK (st_statistics_n_unusable_files (st) == f.unusable);
  for (size_t i = 0; i < st_statistics_n_unusable_files (st); i++)
    {
      StModuleFile m;
      CHECK (st_statistics_get_unusable_file (st, i, &m) == ST_OK);
      CHECK (m.problem != NULL && m.advice != NULL && !m.data_file);
    }

  /* The engine and the records account for the samples.  */
  StEngineCounters e;
  StRecordCounters r;
  CHECK (st_statistics_get_engine (st, &e) == ST_OK);
  CHECK (st_statistics_get_records (st, &r) == ST_OK);
  CHECK (e.by_rules + e.handed_over <= c.samples);
  CHECK (e.by_lean_walk <= e.by_rules && e.by_fp_step == c.fp_frames);
  CHECK (r.raw_stack_samples >= c.samples);
  uint64_t not_converted = 0;
  for (size_t i = 0; i < st_statistics_n_not_converted (st); i++)
    {
      const char *name;
      uint64_t count;
      CHECK (st_statistics_get_not_converted (st, i, &name, &count) == ST_OK);
      not_converted += count;
    }
  CHECK (not_converted == r.not_converted);

  /* The call graph: every sample under its process, no child above its
     parent.  */
  StCallGraph *g = NULL;
  CHECK (st_stream_get_call_graph (s, &g) == ST_OK);
  uint64_t at_top = 0, parents[ST_MAX_FRAMES + 2] = { 0 };
  for (size_t i = 0; i < st_call_graph_n_nodes (g); i++)
    {
      StCallGraphNode node;
      CHECK (st_call_graph_get_node (g, i, &node) == ST_OK);
      if (node.depth > ST_MAX_FRAMES)
        continue;
      if (node.depth == 0)
        at_top += node.total;
      else
        CHECK (node.total <= parents[node.depth - 1]);
      CHECK (node.self <= node.total);
      parents[node.depth] = node.total;
    }
  CHECK (at_top == st_call_graph_samples (g));
  CHECK (st_call_graph_samples (g) > 0);
  st_call_graph_free (g);

  printf ("success_rate_percent=%.2f\n", st_counters_success_percent (&c, 2));
  print_u64 ("input_bytes", c.input_bytes);
  print_u64 ("events_in", c.records_in);
  print_u64 ("events_out", c.records_out);
  print_u64 ("samples", c.samples);
  print_u64 ("unwound_to_root", c.complete);
  print_u64 ("truncated", c.truncated);
  print_u64 ("failed", c.failed);
  print_u64 ("stitched", c.stitched);
  print_u64 ("sources.frame_pointer_chain", c.fp_chain);
  print_u64 ("sources.stitch_refused", c.stitch_refused);
  print_u64 ("unprimed", c.unprimed);
  print_u64 ("user_frames", c.frames);
  print_u64 ("frames_by_frame_pointer_step", c.fp_frames);
  print_u64 ("sampled_frames_by_code", c.code_frames);
  for (int i = ST_STOP_NONE + 1; i < ST_STOP_CAUSES; i++)
    if (strcmp (st_stop_cause_name (i), "?") != 0)
      {
        char key[64];
        snprintf (key, sizeof key, "cause.%s", st_stop_cause_name (i));
        for (char *k = key; *k != '\0'; k++)
          if (*k == '-')
            *k = '_';
        print_u64 (key, c.by_cause[i]);
      }
  print_u64 ("damage.total", d.places);
  print_u64 ("damage.first_offset", d.first_offset);
  print_u64 ("debuginfod.queries", c.debuginfod_queries);
  print_u64 ("priming.threads", p.threads);
  print_u64 ("files.modules", f.modules);
  print_u64 ("files.verified_build_id", f.verified_build_id);
  print_u64 ("files.verified_inode", f.verified_inode);
  print_u64 ("files.unverified", f.unverified);
  print_u64 ("files.unusable", f.unusable);
  print_u64 ("files.unusable_samples", f.unusable_samples);
  print_u64 ("sampled_processes", n);

  st_statistics_free (st);
  st_stream_free (s);
  return failed;
}
