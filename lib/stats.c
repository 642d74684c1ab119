/* Statistics: counted here, read through lib/api's snapshot (the
   command's summaries and stats file are its text).  */
#include "config.h"

#include <string.h>

#include "util/glib-compat.h"
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

void
st_stats_records (const StStats *s, StStatsRecords *out)
{
  out->raw_stacks_in = s->by_kind_in[ST_EVENT_STACK_USER];
  out->with_chain = s->with_chain;
  out->joined = s->joined;
  out->lost_records = s->by_kind_in[ST_EVENT_LOST];
  out->lost_by_recorder = s->lost_by_recorder;
  out->no_counterpart = s->n_no_counterpart;
  out->data_left_out = s->data_left_out;
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
st_stats_no_counterpart_names (const StStats *s)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_hash_table_iter_init (&it, s->no_counterpart);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, by_name);
  return names;
}

uint64_t
st_stats_no_counterpart_count (const StStats *s, const char *type_name)
{
  return GPOINTER_TO_SIZE (g_hash_table_lookup (s->no_counterpart,
                                                type_name));
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
st_success_percent (uint64_t complete, uint64_t samples, unsigned decimals)
{
  double rate = samples ? 100.0 * (double) complete / (double) samples
                        : 100.0;
  double unit = 1.0;

  for (unsigned i = 0; i < decimals; i++)
    unit /= 10.0;
  /* Printed with DECIMALS digits, 99.96 % would read 100.0 % while a
     sample was lost: the figure below 100 is shown instead.  */
  if (complete < samples && rate >= 100.0 - unit / 2.0)
    return 100.0 - unit;
  return rate;
}

double
st_unwind_success_rate (const StUnwindCounters *c)
{
  return c->samples ? 100.0 * (double) c->complete / (double) c->samples
                    : 100.0;
}

double
st_unwind_success_shown (const StUnwindCounters *c, unsigned decimals)
{
  return st_success_percent (c->complete, c->samples, decimals);
}
