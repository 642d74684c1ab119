/* Statistics and their text summary.  */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "util/glib-compat.h"
#include "util/printable.h"
#include "stats.h"

struct StStats
{
  /* The sum of the processes' counters (each sample is counted once, in
     its process or in OTHERS), added up when asked for (total_of).  */
  StUnwindCounters total;
  GHashTable *by_pid;          /* pid -> StProcessStats* */
  uint64_t events_in;
  uint64_t events_out;
  uint64_t by_kind_in[ST_EVENT_LOST + 1];
  GHashTable *no_counterpart;  /* type name -> count (in the pointer) */
  uint64_t n_no_counterpart;
  uint64_t data_left_out;      /* of those: samples, maps, comms */
  uint64_t lost_by_recorder;   /* records the recorder said it lost */
  uint64_t with_chain;         /* samples that have a call chain */
  uint64_t joined;             /* kernel parts joined to their raw stack */
  uint64_t damage[ST_DAMAGE_N];        /* damaged spots, per action */
  uint64_t damage_bytes[ST_DAMAGE_N];
  uint64_t first_damage;               /* the lowest offset of them */
  StProcessStats others;       /* processes folded to stay within
                                  ST_STATS_MAX_PROCESSES */
  uint64_t activity;           /* samples counted (StProcessStats's
                                  last_active) */
  StProcessStats *last;        /* of the last st_stats_unwind (in BY_PID) */
  StPrimingStats priming;
  const StFileReport *files;  /* NULL: none */
};

static void
process_stats_free (gpointer data)
{
  StProcessStats *p = data;
  g_free (p->comm);
  g_free (p);
}

StStats *
st_stats_new (void)
{
  StStats *s = g_new0 (StStats, 1);
  s->by_pid = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     process_stats_free);
  s->no_counterpart = g_hash_table_new (g_str_hash, g_str_equal);
  s->priming.mode = "sync";
  return s;
}

void
st_stats_free (StStats *s)
{
  if (s == NULL)
    return;
  g_hash_table_destroy (s->by_pid);
  g_hash_table_destroy (s->no_counterpart);
  g_free (s->others.comm);
  g_free (s);
}

void
st_stats_event (StStats *s, const StEvent *ev, gboolean written)
{
  s->events_in++;
  if (ev->kind <= ST_EVENT_LOST)
    s->by_kind_in[ev->kind]++;
  if (ev->kind == ST_EVENT_LOST)
    s->lost_by_recorder += ev->lost.count;
  /* A chain beyond the sampled address: unwound already (by the
     kernel's frame-pointer walk, or by a live unwinder).  */
  if (ev->kind == ST_EVENT_SAMPLE && ev->sample.n_ips > 1)
    s->with_chain++;
  if (written)
    s->events_out++;
}

void
st_stats_joined (StStats *s)
{
  s->joined++;
}

/* Whether an event of KIND carries data a profile is made of (the
   others are the format's bookkeeping: rounds, ids, features).  */
static gboolean
carries_data (StEventKind kind)
{
  return kind == ST_EVENT_SAMPLE || kind == ST_EVENT_STACK_USER
         || kind == ST_EVENT_MAP || kind == ST_EVENT_PROCESS;
}

void
st_stats_no_counterpart (StStats *s, StEventKind kind, const char *type_name)
{
  gpointer n = g_hash_table_lookup (s->no_counterpart, type_name);

  g_hash_table_insert (s->no_counterpart, (gpointer) type_name,
                       GSIZE_TO_POINTER (GPOINTER_TO_SIZE (n) + 1));
  s->n_no_counterpart++;
  s->data_left_out += carries_data (kind);
}

static void
count (StUnwindCounters *c, const StUnwindResult *r)
{
  c->samples++;
  c->frames += r->n_ips;
  if (r->n_stitched > 0)
    c->stitched++;
  if (r->n_fp_chain > 0)
    c->fp_chain++;
  c->stitch_refused += r->stitch_refused;
  if (r->unprimed)
    c->unprimed++;
  switch (r->status)
    {
    case ST_UNWIND_COMPLETE: c->complete++; break;
    case ST_UNWIND_TRUNCATED: c->truncated++; break;
    case ST_UNWIND_FAILED: c->failed++; break;
    }
  if (r->cause < ST_CAUSE_N)
    c->by_cause[r->cause]++;
  if (r->path < ST_PATH_N)
    c->by_path[r->path]++;
  if (r->fallback < ST_FALLBACK_N)
    c->by_fallback[r->fallback]++;
  c->fp_frames += r->n_fp_frames;
  c->lean += r->lean;
  c->code_frames += r->n_code_frames;
}

/* What the fast engine did, when it ran.  */
static void
print_engine (FILE *out, const StUnwindCounters *c)
{
  uint64_t rules = c->by_path[ST_PATH_RULES];
  uint64_t handed = c->by_path[ST_PATH_FALLBACK];

  if (rules + handed == 0)
    return;
  fprintf (out, "stacktrace: fast engine: %" PRIu64 " samples by cached CFI "
           "rules (%" PRIu64 " by the lean walk), %" PRIu64 " handed to "
           "libdwfl", rules, c->lean, handed);
  if (handed > 0)
    {
      const char *sep = " (";
      for (int i = 1; i < ST_FALLBACK_N; i++)
        if (c->by_fallback[i])
          {
            fprintf (out, "%s%s=%" PRIu64, sep, st_fallback_reason_name (i),
                     c->by_fallback[i]);
            sep = " ";
          }
      fputc (')', out);
    }
  fprintf (out, ", %" PRIu64 " frame(s) by the frame-pointer step (no CFI)"
           "\n", c->fp_frames);
}

static void add_counters (StUnwindCounters *sum, const StUnwindCounters *c);

static gint
by_last_active (gconstpointer a, gconstpointer b)
{
  const StProcessStats *x = *(const StProcessStats *const *) a;
  const StProcessStats *y = *(const StProcessStats *const *) b;
  return x->last_active < y->last_active ? -1 : x->last_active > y->last_active;
}

/* Millions of short-lived processes must not grow the table: the least
   recently active quarter is summed into OTHERS (a quarter, so that the
   sort is paid once per thousand new processes, not for each).  */
static void
fold_least_active (StStats *s)
{
  GPtrArray *all = st_stats_processes (s);
  guint n = MAX (all->len / 4, 1);

  g_ptr_array_sort (all, by_last_active);
  s->others.pid = -1;
  if (s->others.comm == NULL)
    s->others.comm = g_strdup ("other processes");
  for (guint i = 0; i < n && i < all->len; i++)
    {
      StProcessStats *p = all->pdata[i];
      add_counters (&s->others.counters, &p->counters);
      g_hash_table_remove (s->by_pid, GINT_TO_POINTER (p->pid));
    }
  s->last = NULL;
  g_ptr_array_unref (all);
}

void
st_stats_unwind (StStats *s, int32_t pid, const char *comm,
                 const StUnwindResult *result)
{
  StProcessStats *p = s->last != NULL && s->last->pid == pid
                      ? s->last
                      : g_hash_table_lookup (s->by_pid, GINT_TO_POINTER (pid));

  if (p == NULL && g_hash_table_size (s->by_pid) >= ST_STATS_MAX_PROCESSES)
    fold_least_active (s);
  if (p == NULL)
    {
      p = g_new0 (StProcessStats, 1);
      p->pid = pid;
      g_hash_table_insert (s->by_pid, GINT_TO_POINTER (pid), p);
    }
  s->last = p;
  p->last_active = ++s->activity;
  if (comm != NULL && (p->comm == NULL || strcmp (p->comm, comm) != 0))
    {
      g_free (p->comm);
      p->comm = g_strdup (comm);
    }
  count (&p->counters, result);
}

static void
add_counters (StUnwindCounters *sum, const StUnwindCounters *c)
{
  /* Every field is a uint64_t count (12 of them, then the arrays): a
     field of another kind breaks the build here.  */
  G_STATIC_ASSERT (sizeof (StUnwindCounters)
                   == (12 + ST_CAUSE_N + ST_PATH_N + ST_FALLBACK_N)
                      * sizeof (uint64_t));
  uint64_t *to = (uint64_t *) sum;
  const uint64_t *from = (const uint64_t *) c;

  for (size_t i = 0; i < sizeof *sum / sizeof (uint64_t); i++)
    to[i] += from[i];
}

/* The counters of all samples: summed now rather than counted twice
   per sample (S's cache; its figures do not change).  */
static const StUnwindCounters *
total_of (const StStats *s)
{
  StUnwindCounters *total = &((StStats *) s)->total;
  GHashTableIter it;
  gpointer value;

  memset (total, 0, sizeof *total);
  g_hash_table_iter_init (&it, s->by_pid);
  while (g_hash_table_iter_next (&it, NULL, &value))
    add_counters (total, &((const StProcessStats *) value)->counters);
  add_counters (total, &s->others.counters);
  return total;
}

void
st_stats_damage (StStats *s, const StDamage *d)
{
  if (d->action >= ST_DAMAGE_N)
    return;
  if (st_stats_damaged (s) == 0 || d->offset < s->first_damage)
    s->first_damage = d->offset;
  s->damage[d->action]++;
  s->damage_bytes[d->action] += d->n_bytes;
}

uint64_t
st_stats_damaged (const StStats *s)
{
  uint64_t n = 0;

  for (int i = 0; i < ST_DAMAGE_N; i++)
    n += s->damage[i];
  return n;
}

uint64_t
st_stats_damage_count (const StStats *s, StDamageAction action)
{
  return action < ST_DAMAGE_N ? s->damage[action] : 0;
}

uint64_t
st_stats_damage_bytes (const StStats *s, StDamageAction action)
{
  return action < ST_DAMAGE_N ? s->damage_bytes[action] : 0;
}

uint64_t
st_stats_first_damage (const StStats *s)
{
  return s->first_damage;
}

const StUnwindCounters *
st_stats_total (const StStats *s)
{
  return total_of (s);
}

void
st_stats_set_priming (StStats *s, const StPrimingStats *priming)
{
  s->priming = *priming;
}

void
st_stats_set_file_report (StStats *s, const StFileReport *files)
{
  s->files = files;
}

const StFileReport *
st_stats_file_report (const StStats *s)
{
  return s->files;
}

const StPrimingStats *
st_stats_priming (const StStats *s)
{
  return &s->priming;
}

GPtrArray *
st_stats_processes (const StStats *s)
{
  return st_hash_table_values (s->by_pid);
}

const StProcessStats *
st_stats_others (const StStats *s)
{
  return &s->others;
}

uint64_t
st_stats_events_in (const StStats *s)
{
  return s->events_in;
}

uint64_t
st_stats_events_out (const StStats *s)
{
  return s->events_out;
}

double
st_unwind_success_rate (const StUnwindCounters *c)
{
  return c->samples ? 100.0 * (double) c->complete / (double) c->samples : 100.0;
}

double
st_unwind_success_shown (const StUnwindCounters *c, unsigned decimals)
{
  double rate = st_unwind_success_rate (c);
  double unit = 1.0;

  for (unsigned i = 0; i < decimals; i++)
    unit /= 10.0;
  /* Printed with DECIMALS digits, 99.96 % would read 100.0 % while a
     sample was lost: the figure below 100 is shown instead.  */
  if (c->complete < c->samples && rate >= 100.0 - unit / 2.0)
    return 100.0 - unit;
  return rate;
}

static void
print_counters (FILE *out, const char *label, const StUnwindCounters *c)
{
  fprintf (out, "stacktrace: %s: %" PRIu64 " samples, %" PRIu64
           " unwound to the root, %" PRIu64 " truncated, %" PRIu64
           " failed (%.1f%% success)", label, c->samples, c->complete,
           c->truncated, c->failed, st_unwind_success_shown (c, 1));
  if (c->stitched > 0)
    fprintf (out, "; %" PRIu64 " reached the root by stitching", c->stitched);
  fputc ('\n', out);
}

/* Where the complete chains came from: DWARF alone, stitched from the
   thread's known stack, continued by the recorder's frame-pointer chain.  */
static void
print_sources (FILE *out, const StUnwindCounters *c)
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

/* With workers only, and then with -v or when priming cost something:
   the cap held the input back, or samples went out unprimed (a wait
   for modules at the start of a live run is the normal course).  What
   the workers did, and what samples did meanwhile.  */
static void
print_priming (FILE *out, const StPrimingStats *p, const StUnwindCounters *t,
               gboolean verbose)
{
  if (p->threads == 0)
    return;
  if (!verbose && p->stalls == 0 && p->forced == 0 && t->unprimed == 0)
    return;
  fprintf (out, "stacktrace: priming (%s): %" PRIu64 " module(s) prepared "
           "on %u worker thread(s)", p->mode, p->modules_prepared,
           p->threads);
  if (p->modules_pending > 0)
    fprintf (out, ", %u in preparation", p->modules_pending);
  if (g_strcmp0 (p->mode, "defer") == 0)
    fprintf (out, "; %" PRIu64 " wait(s) for modules not ready, %" PRIu64
             " sample(s) unwound late (at most %.1f MiB held); the %.0f MiB "
             "cap held the input back %" PRIu64 " time(s), %" PRIu64
             " sample(s) unwound before a download", p->waits, p->deferred,
             p->held_max / 1048576.0, p->cap / 1048576.0, p->stalls,
             p->forced);
  fprintf (out, "; %" PRIu64 " sample(s) unprimed (unwound before their "
           "modules were ready)\n", t->unprimed);
}

static gint
by_samples_desc (gconstpointer a, gconstpointer b)
{
  const StProcessStats *x = *(StProcessStats *const *) a;
  const StProcessStats *y = *(StProcessStats *const *) b;

  if (x->counters.samples != y->counters.samples)
    return x->counters.samples > y->counters.samples ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* One line: how many, then the count of each type, by name.  */
static void
print_no_counterpart (const StStats *s, FILE *out)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, s->no_counterpart);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, by_name);
  fprintf (out, "stacktrace: %" PRIu64 " event(s) have no counterpart in the "
           "output format and were not written:", s->n_no_counterpart);
  for (guint i = 0; i < names->len; i++)
    fprintf (out, "%s %s=%zu", i > 0 ? "," : "",
             (const char *) names->pdata[i],
             GPOINTER_TO_SIZE (g_hash_table_lookup (s->no_counterpart,
                                                    names->pdata[i])));
  fputc ('\n', out);
  g_ptr_array_unref (names);
}

/* The last line: how unwinding went, or why nothing was unwound.  */
static void
print_total (const StStats *s, const StUnwindCounters *t, FILE *out)
{
  uint64_t raw = s->by_kind_in[ST_EVENT_STACK_USER];

  if (raw == 0 && t->samples == 0 && s->with_chain > 0)
    fprintf (out, "stacktrace: no raw-stack samples in this input: its %"
             PRIu64 " sample(s) with a call chain are already unwound, and "
             "were passed through\n", s->with_chain);
  else if (raw == 0 && t->samples == 0)
    fprintf (out, "stacktrace: no raw-stack samples in this input: record "
             "with --call-graph=dwarf\n");
  else if (t->samples == 0 && s->events_out == 0)
    fprintf (out, "stacktrace: %" PRIu64 " raw-stack samples read; none "
             "unwound, nothing written (-m none)\n", raw);
  else if (t->samples == 0)
    fprintf (out, "stacktrace: %" PRIu64 " raw-stack samples passed through "
             "(not unwound)\n", raw);
  else
    print_counters (out, "total", t);
}

void
st_stats_print (const StStats *s, FILE *out, gboolean verbose)
{
  if (verbose)
    {
      GPtrArray *list = st_hash_table_values (s->by_pid);
      g_ptr_array_sort (list, by_samples_desc);
      for (guint i = 0; i < list->len; i++)
        {
          const StProcessStats *p = list->pdata[i];
          /* The name is the recorded program's choice.  */
          g_autofree char *comm = st_printable (p->comm ? p->comm : "?");
          g_autofree char *label = g_strdup_printf ("pid %d (%s)", p->pid,
                                                    comm);
          print_counters (out, label, &p->counters);
        }
      g_ptr_array_unref (list);
      if (s->others.counters.samples > 0)
        print_counters (out, "other processes (not counted one by one)",
                        &s->others.counters);
    }

  const StUnwindCounters *t = total_of (s);
  if (t->samples > t->complete)
    {
      fprintf (out, "stacktrace: not unwound to the root, by cause:");
      for (int i = 1; i < ST_CAUSE_N; i++)
        if (t->by_cause[i])
          fprintf (out, " %s=%" PRIu64, st_unwind_cause_name (i),
                   t->by_cause[i]);
      fputc ('\n', out);
    }
  print_engine (out, t);
  if (t->code_frames > 0)
    fprintf (out, "stacktrace: %" PRIu64 " sampled frame(s) without CFI "
             "unwound by their code (at a function's entry or exit)\n",
             t->code_frames);
  print_priming (out, &s->priming, t, verbose);
  if (s->files != NULL)
    st_file_report_print (s->files, out, verbose);
  if (t->samples > 0)
    fprintf (out, "stacktrace: %" PRIu64 " user frames in the unwound "
             "samples (%.1f per sample)\n", t->frames,
             (double) t->frames / (double) t->samples);
  /* Bookkeeping records of the input format are no loss: only -v lists
     them, unless data went with them.  */
  if (s->n_no_counterpart > 0 && (verbose || s->data_left_out > 0))
    print_no_counterpart (s, out);
  if (s->lost_by_recorder > 0)
    fprintf (out, "stacktrace: the recorder lost %" PRIu64 " record(s) "
             "(reported in %" PRIu64 " LOST record(s))\n", s->lost_by_recorder,
             s->by_kind_in[ST_EVENT_LOST]);
  if (st_stats_damaged (s) > 0)
    {
      fprintf (out, "stacktrace: damaged input (first at offset %" PRIu64
               "):", s->first_damage);
      const char *sep = "";
      for (int i = 0; i < ST_DAMAGE_N; i++)
        if (s->damage[i] > 0)
          {
            fprintf (out, "%s %" PRIu64 " %s (%" PRIu64 " bytes)", sep,
                     s->damage[i], st_damage_action_name (i),
                     s->damage_bytes[i]);
            sep = ",";
          }
      fputc ('\n', out);
    }
  fprintf (out, "stacktrace: %" PRIu64 " events read, %" PRIu64
           " written", s->events_in, s->events_out);
  if (s->joined > 0)
    fprintf (out, " (%" PRIu64 " kernel part(s) written with their raw "
             "stack as one sample)", s->joined);
  fputc ('\n', out);
  print_total (s, t, out);
  print_sources (out, t);
}
