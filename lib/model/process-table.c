/* Process table: pid -> StProcess, updated from the event stream.  */
#include "config.h"

#include "model/process-table.h"

struct StProcessTable
{
  GHashTable *by_pid;   /* int32 pid -> StProcess* */
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

StProcess *
st_process_table_lookup (StProcessTable *t, int32_t pid)
{
  return g_hash_table_lookup (t->by_pid, GINT_TO_POINTER (pid));
}

StProcess *
st_process_table_get (StProcessTable *t, int32_t pid)
{
  StProcess *p = st_process_table_lookup (t, pid);

  if (p == NULL)
    {
      p = g_new0 (StProcess, 1);
      p->pid = pid;
      p->maps = st_address_space_new ();
      g_hash_table_insert (t->by_pid, GINT_TO_POINTER (pid), p);
    }
  return p;
}

void
st_process_load_maps_once (StProcess *p)
{
  if (!p->maps_seen && !p->proc_tried)
    {
      p->proc_tried = TRUE;
      p->maps_seen = st_address_space_load_proc (p->maps, p->pid);
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
  StProcess *child = st_process_table_get (t, ev->pid);

  st_process_drop_unwind_state (child);
  st_address_space_free (child->maps);
  child->exited = FALSE;
  if (parent != NULL)
    {
      child->maps = st_address_space_copy (parent->maps);
      child->maps_seen = parent->maps_seen;
      g_free (child->comm);
      child->comm = g_strdup (parent->comm);
    }
  else
    child->maps = st_address_space_new ();
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
      }
      break;
    case ST_EVENT_PROCESS:
      p = st_process_table_get (t, ev->pid);
      if (ev->process.exec)
        {
          /* The old image is gone; its mappings follow this record.  */
          st_address_space_clear (p->maps);
          p->exec_count++;
          st_process_drop_unwind_state (p);
          p->exited = FALSE;
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
         expensive part; it is rebuilt if such a sample comes.  */
      if (ev->pid == ev->tid && (p = st_process_table_lookup (t, ev->pid)))
        {
          p->exited = TRUE;
          st_process_drop_unwind_state (p);
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
