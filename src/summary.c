/* The summaries' text; the figures are the library's.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <stacktrace-1/stacktrace.h>

#include "summary.h"

/* NAME, which the recorded program chose, safe for a terminal (malloc'd:
   g_free frees it too).  */
static char *
printable (const char *name)
{
  return st_printable_name (name);
}

static void
print_counters (FILE *out, const char *label, const StCounters *c)
{
  fprintf (out, "stacktrace: %s: %" PRIu64 " samples, %" PRIu64
           " unwound to the root, %" PRIu64 " truncated, %" PRIu64
           " failed (%.1f%% success)", label, c->samples, c->complete,
           c->truncated, c->failed, st_counters_success_percent (c, 1));
  if (c->stitched > 0)
    fprintf (out, "; %" PRIu64 " reached the root by stitching", c->stitched);
  fputc ('\n', out);
}

static void
print_processes (const StStatistics *stats, FILE *out)
{
  StCounters others;

  for (size_t i = 0; i < st_statistics_n_processes (stats); i++)
    {
      StProcessCounters p;
      if (st_statistics_get_process (stats, i, &p) != ST_OK)
        continue;
      g_autofree char *comm = printable (p.comm != NULL ? p.comm : "?");
      g_autofree char *label = g_strdup_printf ("pid %d (%s)", p.pid, comm);
      print_counters (out, label, &p.counters);
    }
  if (st_statistics_get_other_processes (stats, &others) == ST_OK
      && others.samples > 0)
    print_counters (out, "other processes (not counted one by one)",
                    &others);
}

/* What the fast engine did, when it ran.  */
static void
print_engine (const StStatistics *stats, FILE *out)
{
  StEngineCounters e = { 0 };

  st_statistics_get_engine (stats, &e);
  if (e.by_rules + e.handed_over == 0)
    return;
  fprintf (out, "stacktrace: fast engine: %" PRIu64 " samples by cached CFI "
           "rules (%" PRIu64 " by the lean walk), %" PRIu64 " handed to "
           "libdwfl", e.by_rules, e.by_lean_walk, e.handed_over);
  if (e.handed_over > 0)
    {
      const char *sep = " (";
      for (int i = ST_HANDOVER_NONE + 1; i < ST_HANDOVER_REASONS; i++)
        if (e.handed_over_by_reason[i])
          {
            fprintf (out, "%s%s=%" PRIu64, sep, st_handover_reason_name (i),
                     e.handed_over_by_reason[i]);
            sep = " ";
          }
      fputc (')', out);
    }
  fprintf (out, ", %" PRIu64 " frame(s) by the frame-pointer step (no CFI)"
           "\n", e.by_fp_step);
}

/* With workers only, and then with -v or when priming cost something:
   the cap held the input back, or samples went out unprimed (a wait
   for modules at the start of a live run is the normal course).  What
   the workers did, and what samples did meanwhile.  */
static void
print_priming (const StStatistics *stats, const StCounters *t, FILE *out,
               gboolean verbose)
{
  StPrimingCounters p = { 0 };

  st_statistics_get_priming (stats, &p);
  if (p.threads == 0)
    return;
  if (!verbose && p.stalls == 0 && p.forced == 0 && t->unprimed == 0)
    return;
  fprintf (out, "stacktrace: priming (%s): %" PRIu64 " module(s) prepared "
           "on %u worker thread(s)",
           p.policy == ST_PRIME_DROP ? "drop"
           : p.policy == ST_PRIME_DEFER ? "defer" : "sync",
           p.modules_prepared, p.threads);
  if (p.modules_pending > 0)
    fprintf (out, ", %u in preparation", (unsigned) p.modules_pending);
  if (p.policy == ST_PRIME_DEFER)
    fprintf (out, "; %" PRIu64 " wait(s) for modules not ready, %" PRIu64
             " sample(s) unwound late (at most %.1f MiB held); the %.0f MiB "
             "cap held the input back %" PRIu64 " time(s), %" PRIu64
             " sample(s) unwound before a download", p.waits, p.deferred,
             p.held_max_bytes / 1048576.0, p.cap_bytes / 1048576.0,
             p.stalls, p.forced);
  fprintf (out, "; %" PRIu64 " sample(s) unprimed (unwound before their "
           "modules were ready)\n", t->unprimed);
}

/* What became of the modules' files: with VERBOSE every one; the
   unusable ones that cost samples (at most ST_SUMMARY_UNUSABLE_FILES, then a
   line for the rest).  */
void
st_summary_print_files (const StStatistics *stats, FILE *out,
                        gboolean verbose)
{
  StFileCounters t = { 0 };
  size_t n_bad = st_statistics_n_unusable_files (stats);

  st_statistics_get_files (stats, &t);
  if (verbose)
    {
      fprintf (out, "stacktrace: files: %" PRIu64 " module(s): %" PRIu64
               " verified by build-id, %" PRIu64 " by inode, %" PRIu64
               " unverified, %" PRIu64 " unusable, %" PRIu64 " mapped data "
               "(not ELF, never sampled)\n", t.modules,
               t.verified_build_id, t.verified_inode, t.unverified,
               t.unusable, t.data_files);
      for (size_t i = 0; i < st_statistics_n_files (stats); i++)
        {
          StModuleFile f;
          if (st_statistics_get_file (stats, i, &f) != ST_OK)
            continue;
          g_autofree char *name = printable (f.name);
          if (f.problem == NULL)
            {
              g_autofree char *path = printable (f.path != NULL ? f.path
                                                                : "(null)");
              fprintf (out, "stacktrace:   %s: %s (%s, %s)\n", name, path,
                       f.source, f.verification);
            }
          else if (f.data_file)
            fprintf (out, "stacktrace:   %s: mapped data (not ELF, never "
                     "sampled)\n", name);
          else
            fprintf (out, "stacktrace:   %s: unusable (%s)\n", name,
                     f.problem);
        }
    }
  size_t shown = 0;
  uint64_t rest_samples = 0;
  for (size_t i = 0; i < n_bad; i++)
    {
      StModuleFile f;
      if (st_statistics_get_unusable_file (stats, i, &f) != ST_OK)
        continue;
      /* Unsampled files cost nothing: listed with -v only.  */
      if (shown >= ST_SUMMARY_UNUSABLE_FILES || (f.samples == 0 && !verbose))
        {
          rest_samples += f.samples;
          continue;
        }
      if (shown++ == 0)
        fprintf (out, "stacktrace: files that could not be used, by samples "
                 "lost:\n");
      g_autofree char *name = printable (f.name);
      fprintf (out, "stacktrace:   %s: %s, %" PRIu64 " sample(s)\n",
               name, f.problem, f.samples);
      if (f.detail != NULL)
        {
          g_autofree char *detail = printable (f.detail);
          fprintf (out, "stacktrace:     %s\n", detail);
        }
      fprintf (out, "stacktrace:     advice: %s\n", f.advice);
    }
  if (n_bad > shown && (shown > 0 || rest_samples > 0 || verbose))
    fprintf (out, "stacktrace: %zu more unusable file(s), %" PRIu64
             " sample(s) lost in them\n", n_bad - shown, rest_samples);
}

/* One line: how many, then the count of each type, by name.  */
static void
print_not_converted (const StStatistics *stats, const StRecordCounters *r,
                     FILE *out)
{
  fprintf (out, "stacktrace: %" PRIu64 " event(s) have no counterpart in the "
           "output format and were not written:", r->not_converted);
  for (size_t i = 0; i < st_statistics_n_not_converted (stats); i++)
    {
      const char *name;
      uint64_t count;
      if (st_statistics_get_not_converted (stats, i, &name, &count) == ST_OK)
        fprintf (out, "%s %s=%" PRIu64, i > 0 ? "," : "", name, count);
    }
  fputc ('\n', out);
}

static void
print_damage (const StStatistics *stats, FILE *out)
{
  static const char *const names[] = {
    [ST_DAMAGE_OUTCOME_PASSED] = "passed on unchanged",
    [ST_DAMAGE_OUTCOME_DROPPED] = "dropped",
    [ST_DAMAGE_OUTCOME_SKIPPED] = "skipped",
    [ST_DAMAGE_OUTCOME_CUT_OFF] = "cut off",
  };
  StDamageCounters d = { 0 };
  const char *sep = "";

  st_statistics_get_damage (stats, &d);
  if (d.places == 0)
    return;
  fprintf (out, "stacktrace: damaged input (first at offset %" PRIu64 "):",
           d.first_offset);
  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    if (d.count[i] > 0)
      {
        fprintf (out, "%s %" PRIu64 " %s (%" PRIu64 " bytes)", sep,
                 d.count[i], names[i], d.bytes[i]);
        sep = ",";
      }
  fputc ('\n', out);
}

/* The last line: how unwinding went, or why nothing was unwound.  SO_FAR
   (a run still going): the counters as they stand, even all zero, since
   nothing can be said yet of the input as a whole (its samples may be
   waiting for their modules, and are counted once unwound).  */
static void
print_total (const StCounters *t, const StRecordCounters *r, FILE *out,
             gboolean so_far)
{
  if (so_far)
    print_counters (out, "total", t);
  else if (r->raw_stack_samples == 0 && t->samples == 0
      && r->callchain_samples > 0)
    fprintf (out, "stacktrace: no raw-stack samples in this input: its %"
             PRIu64 " sample(s) with a call chain are already unwound, and "
             "were passed through\n", r->callchain_samples);
  else if (r->raw_stack_samples == 0 && t->samples == 0)
    fprintf (out, "stacktrace: no raw-stack samples in this input: record "
             "with --call-graph=dwarf\n");
  else if (t->samples == 0 && t->records_out == 0)
    fprintf (out, "stacktrace: %" PRIu64 " raw-stack samples read; none "
             "unwound, nothing written (-m none)\n", r->raw_stack_samples);
  else if (t->samples == 0)
    fprintf (out, "stacktrace: %" PRIu64 " raw-stack samples passed through "
             "(not unwound)\n", r->raw_stack_samples);
  else
    print_counters (out, "total", t);
}

/* Where the complete chains came from: DWARF alone, stitched from the
   thread's known stack, continued by the recorder's frame-pointer chain.  */
static void
print_sources (const StCounters *c, FILE *out)
{
  if (c->stitched + c->fp_chain + c->stitch_refused == 0)
    return;
  fprintf (out, "stacktrace: sources of complete chains: %" PRIu64
           " by DWARF alone, %" PRIu64 " stitched from the thread's known "
           "stack, %" PRIu64 " continued by the recorder's frame-pointer "
           "chain",
           c->complete - c->stitched - c->fp_chain, c->stitched, c->fp_chain);
  if (c->stitch_refused > 0)
    fprintf (out, " (%" PRIu64 " not stitched: the stack differed from "
             "what was known)", c->stitch_refused);
  fputc ('\n', out);
}

void
st_summary_print (const StStatistics *stats, FILE *out, gboolean verbose,
                  gboolean with_files, gboolean so_far)
{
  StCounters t = { 0 };
  StRecordCounters r = { 0 };

  st_statistics_get_counters (stats, &t);
  st_statistics_get_records (stats, &r);
  if (verbose)
    print_processes (stats, out);
  if (t.samples > t.complete)
    {
      fprintf (out, "stacktrace: not unwound to the root, by cause:");
      for (int i = ST_STOP_NONE + 1; i < ST_STOP_CAUSES; i++)
        if (t.by_cause[i])
          fprintf (out, " %s=%" PRIu64, st_stop_cause_name (i),
                   t.by_cause[i]);
      fputc ('\n', out);
    }
  print_engine (stats, out);
  if (t.code_frames > 0)
    fprintf (out, "stacktrace: %" PRIu64 " sampled frame(s) without CFI "
             "unwound by their code (at a function's entry or exit)\n",
             t.code_frames);
  print_priming (stats, &t, out, verbose);
  if (with_files)
    st_summary_print_files (stats, out, verbose);
  if (t.samples > 0)
    fprintf (out, "stacktrace: %" PRIu64 " user frames in the unwound "
             "samples (%.1f per sample)\n", t.frames,
             (double) t.frames / (double) t.samples);
  /* Bookkeeping records of the input format are no loss: only -v lists
     them, unless data went with them.  */
  if (r.not_converted > 0 && (verbose || r.not_converted_data > 0))
    print_not_converted (stats, &r, out);
  if (r.lost_by_recorder > 0)
    fprintf (out, "stacktrace: the recorder lost %" PRIu64 " record(s) "
             "(reported in %" PRIu64 " LOST record(s))\n", r.lost_by_recorder,
             r.lost_records);
  print_damage (stats, out);
  fprintf (out, "stacktrace: %" PRIu64 " events read, %" PRIu64
           " written", t.records_in, t.records_out);
  if (r.joined > 0)
    fprintf (out, " (%" PRIu64 " kernel part(s) written with their raw "
             "stack as one sample)", r.joined);
  fputc ('\n', out);
  print_total (&t, &r, out, so_far);
  print_sources (&t, out);
}


void
st_summary_print_call_graph (const StCallGraph *graph, FILE *out,
                             double min_percent)
{
  uint64_t all = st_call_graph_samples (graph);

  fprintf (out, "Call graph of %" PRIu64 " unwound samples (top-down; "
           "total%%, self%%; paths under %.1f%% omitted):\n",
           all, min_percent);
  if (all == 0)
    return;
  for (size_t i = 0; i < st_call_graph_n_nodes (graph); i++)
    {
      StCallGraphNode n;
      if (st_call_graph_get_node (graph, i, &n) != ST_OK)
        continue;
      /* A child has no more samples than its parent, the next sibling
         no more than this one: what is under the limit is all that
         lies under it or after it among its siblings.  */
      double pct = 100.0 * (double) n.total / (double) all;
      if (pct < min_percent)
        continue;
      g_autofree char *name = printable (n.name);
      /* Deep recursion would push names off the screen: cap the
         indent.  */
      fprintf (out, "%6.1f%% %6.1f%%  %*s%s\n", pct,
               100.0 * (double) n.self / (double) all,
               2 * (int) MIN (n.depth, 30), "", name);
    }
}
