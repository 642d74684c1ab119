/* Process table: pid -> StProcess, updated from the event stream.

   Bounded for endless streams with many processes: the processes are
   kept in least-recently-used order (every event of a process, or a
   sample of it, makes it the most recent; an EXIT makes it the least
   recent), and past MAX_PROCESSES the least recent is forgotten.
   Exited processes have a bound of their own, MAX_EXITED (a live session
   with short-lived processes starting all the time would otherwise fill
   the table with the dead, a few KiB each): past it, the one that exited
   longest ago is forgotten.  And since a recorder that loses records
   loses EXITs too, the dead may look alive: the bytes of all
   processes' mappings have a bound, MAX_MAP_BYTES, past which the least
   recent are forgotten (a running one is read again from /proc/PID/maps
   when it is sampled again).  The
   unwinder's state of a process (its Dwfl and modules, the expensive
   part) has a bound of its own, MAX_UNWIND_STATES, on a second LRU list
   of the processes that have one.  */
#include "config.h"

#include "model/process-table.h"

/* A process of the table, with its places in the table's lists: every
   StProcess the table hands out is one of these (PROCESS first).  */
typedef struct
{
  StProcess process;
  GList lru_link;
  GList state_link;           /* data NULL: not on the list */
  GList exited_link;          /* data NULL: not on the list */
  StProcessTable *table;
  size_t counted;             /* bytes of its mappings in MAP_BYTES */
  guint counted_peak;         /* st_address_space_peak they were counted
                                 at (0: not counted yet) */
} TableProcess;

static inline TableProcess *
links (StProcess *p)
{
  return (TableProcess *) p;
}

struct StProcessTable
{
  GHashTable *by_pid;   /* int32 pid -> StProcess* */
  GQueue lru;           /* every process, most recent first (->lru_link) */
  GQueue with_state;    /* processes with unwind state (->state_link) */
  GQueue exited;        /* exited processes, latest exit first
                           (->exited_link) */
  guint max_processes;
  guint max_exited;
  guint max_unwind_states;
  size_t map_bytes;     /* of every process's mappings, as counted */
  size_t max_map_bytes; /* 0: no bound */
  uint64_t forgotten;
  uint64_t states_dropped;
  StProcessForgetFunc forget_func;
  void *forget_data;
};

static void
process_free (gpointer data)
{
  StProcess *p = data;

  st_process_drop_unwind_state (p);
  st_address_space_free (p->maps);
  g_free (p->comm);
  g_free (p);
}

StProcessTable *
st_process_table_new (void)
{
  StProcessTable *t = g_new0 (StProcessTable, 1);
  t->by_pid = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                     process_free);
  g_queue_init (&t->lru);
  g_queue_init (&t->with_state);
  t->max_processes = ST_PROCESS_TABLE_MAX_PROCESSES;
  t->max_unwind_states = ST_PROCESS_TABLE_MAX_UNWIND_STATES;
  t->max_exited = ST_PROCESS_TABLE_MAX_EXITED;
  t->max_map_bytes = ST_PROCESS_TABLE_MAX_MAP_BYTES;
  g_queue_init (&t->exited);
  return t;
}

void
st_process_table_free (StProcessTable *t)
{
  if (t == NULL)
    return;
  g_hash_table_destroy (t->by_pid);
  g_free (t);
}

void
st_process_table_set_limits (StProcessTable *t, guint max_processes,
                             guint max_unwind_states)
{
  t->max_processes = MAX (max_processes, 1);
  t->max_unwind_states = MAX (max_unwind_states, 1);
}

void
st_process_table_set_max_map_bytes (StProcessTable *t, size_t max_bytes)
{
  t->max_map_bytes = max_bytes;
}

size_t
st_process_table_map_bytes (StProcessTable *t)
{
  return t->map_bytes;
}

void
st_process_table_set_max_exited (StProcessTable *t, guint max_exited)
{
  t->max_exited = MAX (max_exited, 1);
}

void
st_process_table_set_forget_func (StProcessTable *t, StProcessForgetFunc func,
                                  void *data)
{
  t->forget_func = func;
  t->forget_data = data;
}

void
st_process_table_set_unbounded (StProcessTable *t)
{
  t->max_processes = G_MAXUINT;
  t->max_exited = G_MAXUINT;
  t->max_map_bytes = 0;
}

/* Removes P from the unwind-state list and frees its state.  */
static void
drop_state (StProcessTable *t, StProcess *p)
{
  if (links (p)->state_link.data != NULL)
    {
      g_queue_unlink (&t->with_state, &links (p)->state_link);
      links (p)->state_link.data = NULL;
    }
  st_process_drop_unwind_state (p);
}

/* P runs (again): off the list of the exited.  */
static void
set_running (StProcessTable *t, StProcess *p)
{
  p->exited = FALSE;
  if (links (p)->exited_link.data != NULL)
    {
      g_queue_unlink (&t->exited, &links (p)->exited_link);
      links (p)->exited_link.data = NULL;
    }
}

/* P's mappings changed: counted again.  */
static void
count_maps (StProcessTable *t, StProcess *p)
{
  guint peak = st_address_space_peak (p->maps) + 1;
  size_t bytes;

  /* (Every mapping asks: the size changes only with the peak.)  */
  if (peak == links (p)->counted_peak)
    return;
  links (p)->counted_peak = peak;
  bytes = st_address_space_bytes (p->maps);

  t->map_bytes += bytes - links (p)->counted;
  links (p)->counted = bytes;
}

static void
forget (StProcessTable *t, StProcess *p)
{
  if (t->forget_func != NULL)
    t->forget_func (p->pid, t->forget_data);
  t->map_bytes -= links (p)->counted;
  set_running (t, p);
  drop_state (t, p);
  g_queue_unlink (&t->lru, &links (p)->lru_link);
  g_hash_table_remove (t->by_pid, GINT_TO_POINTER (p->pid));
  t->forgotten++;
}

static void
touch (StProcessTable *t, StProcess *p)
{
  if (t->lru.head != &links (p)->lru_link)
    {
      g_queue_unlink (&t->lru, &links (p)->lru_link);
      g_queue_push_head_link (&t->lru, &links (p)->lru_link);
    }
}

/* Forgets the least recent processes but KEEP while the mappings are
   over their bound.  */
static void
bound_map_bytes (StProcessTable *t, StProcess *keep)
{
  while (t->max_map_bytes != 0 && t->map_bytes > t->max_map_bytes
         && t->lru.tail != NULL && t->lru.tail->data != keep)
    forget (t, t->lru.tail->data);
}

StProcess *
st_process_table_lookup (StProcessTable *t, int32_t pid)
{
  /* Samples come in runs of one process: the most recent first.  */
  if (t->lru.head != NULL && ((StProcess *) t->lru.head->data)->pid == pid)
    return t->lru.head->data;
  return g_hash_table_lookup (t->by_pid, GINT_TO_POINTER (pid));
}

StProcess *
st_process_table_get (StProcessTable *t, int32_t pid)
{
  StProcess *p = st_process_table_lookup (t, pid);

  if (p != NULL)
    {
      touch (t, p);
      return p;
    }
  /* Make room first: the least recent is never the one asked for.  */
  while (g_hash_table_size (t->by_pid) >= t->max_processes)
    forget (t, t->lru.tail->data);
  bound_map_bytes (t, NULL);
  TableProcess *tp = g_new0 (TableProcess, 1);
  p = &tp->process;
  p->pid = pid;
  p->maps = st_address_space_new ();
  tp->table = t;
  count_maps (t, p);
  links (p)->lru_link.data = p;
  g_queue_push_head_link (&t->lru, &links (p)->lru_link);
  g_hash_table_insert (t->by_pid, GINT_TO_POINTER (pid), p);
  return p;
}

void
st_process_load_maps_once (StProcess *p)
{
  if (!p->maps_seen && !p->proc_tried)
    {
      p->proc_tried = TRUE;
      p->maps_seen = st_address_space_load_proc (p->maps, p->pid);
      /* Counted now, bounded at the next process's event.  */
      count_maps (links (p)->table, p);
    }
}

void
st_process_table_use_unwind_state (StProcessTable *t, StProcess *p)
{
  if (links (p)->state_link.data != NULL)
    g_queue_unlink (&t->with_state, &links (p)->state_link);
  links (p)->state_link.data = p;
  g_queue_push_head_link (&t->with_state, &links (p)->state_link);
  while (t->with_state.length > t->max_unwind_states)
    {
      drop_state (t, t->with_state.tail->data);
      t->states_dropped++;
    }
}

void
st_process_drop_unwind_state (StProcess *p)
{
  for (int i = 0; i < ST_PROCESS_UNWIND_SLOTS; i++)
    {
      if (p->unwind_state[i] != NULL && p->unwind_state_free[i] != NULL)
        p->unwind_state_free[i] (p->unwind_state[i]);
      p->unwind_state[i] = NULL;
      p->unwind_state_free[i] = NULL;
    }
}

static void
apply_fork (StProcessTable *t, const StEvent *ev)
{
  /* A new thread shares its process's mappings: nothing to copy.  */
  if (ev->pid == ev->fork.parent_pid)
    return;

  StProcess *parent = st_process_table_lookup (t, ev->fork.parent_pid);
  if (parent != NULL)
    touch (t, parent);   /* so that making room for the child keeps it */
  StProcess *child = st_process_table_get (t, ev->pid);

  drop_state (t, child);
  st_address_space_free (child->maps);
  set_running (t, child);
  if (parent != NULL)
    {
      child->maps = st_address_space_copy (parent->maps);
      child->maps_seen = parent->maps_seen;
      g_free (child->comm);
      child->comm = g_strdup (parent->comm);
    }
  else
    child->maps = st_address_space_new ();
  count_maps (t, child);
  bound_map_bytes (t, child);
}

void
st_process_table_apply (StProcessTable *t, const StEvent *ev)
{
  StProcess *p;

  switch (ev->kind)
    {
    case ST_EVENT_MAP:
      {
        StMap map;
        p = st_process_table_get (t, ev->pid);
        st_map_from_event (&map, ev);
        st_address_space_add (p->maps, &map);
        p->maps_seen = TRUE;
        count_maps (t, p);
        bound_map_bytes (t, p);
      }
      break;
    case ST_EVENT_PROCESS:
      p = st_process_table_get (t, ev->pid);
      if (ev->process.exec)
        {
          /* The old image is gone; its mappings follow this record.  */
          st_address_space_clear (p->maps);
          count_maps (t, p);
          p->exec_count++;
          drop_state (t, p);
          set_running (t, p);
        }
      if (ev->process.comm != NULL)
        {
          g_free (p->comm);
          p->comm = g_strdup (ev->process.comm);
        }
      break;
    case ST_EVENT_FORK:
      apply_fork (t, ev);
      break;
    case ST_EVENT_EXIT:
      /* Keep the mappings: samples of this process recorded on another
         CPU may still follow in the stream.  The unwinder state is the
         expensive part; it is rebuilt if such a sample comes.  As the
         least recent, the process is the first to be forgotten.  */
      if (ev->pid == ev->tid && (p = st_process_table_lookup (t, ev->pid)))
        {
          set_running (t, p);
          p->exited = TRUE;
          drop_state (t, p);
          g_queue_unlink (&t->lru, &links (p)->lru_link);
          g_queue_push_tail_link (&t->lru, &links (p)->lru_link);
          links (p)->exited_link.data = p;
          g_queue_push_head_link (&t->exited, &links (p)->exited_link);
          while (t->exited.length > t->max_exited)
            forget (t, t->exited.tail->data);
        }
      break;
    default:
      break;
    }
}

guint
st_process_table_size (StProcessTable *t)
{
  return g_hash_table_size (t->by_pid);
}

guint
st_process_table_n_unwind_states (StProcessTable *t)
{
  return t->with_state.length;
}

uint64_t
st_process_table_forgotten (StProcessTable *t)
{
  return t->forgotten;
}

void
st_process_table_forget (StProcessTable *t, int32_t pid)
{
  StProcess *p = st_process_table_lookup (t, pid);

  if (p != NULL)
    forget (t, p);
}
