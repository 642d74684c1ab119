/* The process table (model/process-table.c), driven by the events a
   reader gives, against the semantics of the kernel records they stand
   for (perf's FORK/COMM/EXIT, Sysprof's FORK/PROCESS/EXIT frames):

   - LRU bound: past MAX_PROCESSES the least recently used process is
     forgotten; an EXIT makes a process the least recent; a fork's parent
     survives the room made for its child; 0 limits are taken as 1.
   - fork: a new process starts with a copy of its parent's mappings and
     name (a private copy); a new thread (same pid) creates nothing; a
     reused pid starts afresh.
   - exec (COMM with exec): the old image's mappings and unwinder state
     go, the exec count rises, the name changes; a plain COMM renames.
   - EXIT of the process (not of a thread): mappings kept (samples from
     other CPUs may follow), unwinder state dropped.
   - unwinder states: at most MAX_UNWIND_STATES, least recently used
     dropped through their free function; all freed with the table.
   - /proc/PID/maps read once, only for a process the stream did not
     describe: our own pid against /proc/self/maps.
   - mappings' bytes: past MAX_MAP_BYTES the least recent processes are
     forgotten (the dead whose EXIT was lost look alive), exited ones
     first, never the one whose mapping is being added; the count follows
     fork and forgetting, and the allocation an exec keeps.  */
#include "config.h"

#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "model/process-table.h"

static void
apply_map (StProcessTable *t, int32_t pid, uint64_t start, const char *file)
{
  StEvent ev = { .kind = ST_EVENT_MAP, .pid = pid, .tid = pid };

  ev.map.start = start;
  ev.map.end = start + 0x1000;
  ev.map.prot = 5;
  ev.map.exec_known = true;
  ev.map.filename = file;
  st_process_table_apply (t, &ev);
}

static void
apply_fork (StProcessTable *t, int32_t parent, int32_t child_pid,
            int32_t child_tid)
{
  StEvent ev = { .kind = ST_EVENT_FORK, .pid = child_pid, .tid = child_tid };

  ev.fork.parent_pid = parent;
  ev.fork.parent_tid = parent;
  st_process_table_apply (t, &ev);
}

static void
apply_comm (StProcessTable *t, int32_t pid, const char *comm, bool exec)
{
  StEvent ev = { .kind = ST_EVENT_PROCESS, .pid = pid, .tid = pid };

  ev.process.comm = comm;
  ev.process.exec = exec;
  st_process_table_apply (t, &ev);
}

static void
apply_exit (StProcessTable *t, int32_t pid, int32_t tid)
{
  StEvent ev = { .kind = ST_EVENT_EXIT, .pid = pid, .tid = tid };

  st_process_table_apply (t, &ev);
}

/* An unwinder state that counts its frees.  */
static guint states_freed;

static void
state_free (gpointer data)
{
  g_assert_cmpuint (GPOINTER_TO_UINT (data), !=, 0);
  states_freed++;
}

static void
give_state (StProcessTable *t, StProcess *p, guint slot)
{
  st_process_table_use_unwind_state (t, p);
  p->unwind_state[slot] = GUINT_TO_POINTER (0x100 + p->pid);
  p->unwind_state_free[slot] = state_free;
}

static void
test_lru_bound (void)
{
  StProcessTable *t = st_process_table_new ();

  st_process_table_set_limits (t, 3, 3);
  for (int32_t pid = 1; pid <= 3; pid++)
    st_process_table_get (t, pid);
  /* 1 is used again: 2 is now the least recent.  Lookups do not count
     as use.  */
  st_process_table_get (t, 1);
  st_process_table_lookup (t, 2);
  st_process_table_get (t, 4);
  g_assert_cmpuint (st_process_table_size (t), ==, 3);
  g_assert_cmpuint (st_process_table_forgotten (t), ==, 1);
  g_assert_null (st_process_table_lookup (t, 2));
  g_assert_nonnull (st_process_table_lookup (t, 1));
  g_assert_nonnull (st_process_table_lookup (t, 3));

  /* Any event of a process is a use: 3's mapping saves it, 1 goes.  */
  apply_map (t, 3, 0x400000, "/bin/x");
  st_process_table_get (t, 5);
  g_assert_null (st_process_table_lookup (t, 1));
  g_assert_nonnull (st_process_table_lookup (t, 3));
  g_assert_cmpuint (st_process_table_forgotten (t), ==, 2);

  /* A process that exits is the first to go, however recent.  */
  apply_exit (t, 5, 5);
  st_process_table_get (t, 6);
  g_assert_null (st_process_table_lookup (t, 5));
  g_assert_nonnull (st_process_table_lookup (t, 4));

  /* A bound of 0 is taken as 1: the process asked for always exists.  */
  st_process_table_set_limits (t, 0, 0);
  StProcess *p = st_process_table_get (t, 7);
  g_assert_nonnull (p);
  g_assert_cmpint (p->pid, ==, 7);
  g_assert_cmpuint (st_process_table_size (t), ==, 1);
  g_assert_cmpuint (st_process_table_forgotten (t), ==, 6);
  st_process_table_free (t);
}

static void
test_fork (void)
{
  StProcessTable *t = st_process_table_new ();

  apply_map (t, 10, 0x400000, "/bin/parent");
  apply_map (t, 10, 0x7f0000000000, "/lib/libc.so.6");
  apply_comm (t, 10, "parent", false);

  /* A new thread of 10 (perf: pid 10, tid 11): nothing new.  */
  apply_fork (t, 10, 10, 11);
  g_assert_cmpuint (st_process_table_size (t), ==, 1);
  g_assert_null (st_process_table_lookup (t, 11));

  /* A new process: the parent's mappings and name, its own copy.  */
  apply_fork (t, 10, 20, 20);
  StProcess *child = st_process_table_lookup (t, 20);
  g_assert_nonnull (child);
  g_assert_cmpstr (child->comm, ==, "parent");
  g_assert_true (child->maps_seen);
  g_assert_cmpuint (st_address_space_size (child->maps), ==, 2);
  g_assert_cmpstr (st_address_space_find (child->maps, 0x400800)->filename,
                   ==, "/bin/parent");
  apply_map (t, 20, 0x500000, "/bin/child-only");
  StProcess *parent = st_process_table_lookup (t, 10);
  g_assert_cmpuint (st_address_space_size (parent->maps), ==, 2);
  g_assert_null (st_address_space_find (parent->maps, 0x500000));
  g_assert_cmpuint (st_address_space_size (child->maps), ==, 3);

  /* A parent the stream never described: an empty child.  */
  apply_fork (t, 99, 30, 30);
  StProcess *orphan = st_process_table_lookup (t, 30);
  g_assert_nonnull (orphan);
  g_assert_null (orphan->comm);
  g_assert_false (orphan->maps_seen);
  g_assert_cmpuint (st_address_space_size (orphan->maps), ==, 0);

  /* A pid reused after its process exited: the old one's mappings and
     unwinder state go, it no longer counts as exited.  */
  states_freed = 0;
  give_state (t, child, 0);
  apply_exit (t, 20, 20);
  g_assert_true (child->exited);
  g_assert_cmpuint (states_freed, ==, 1);
  give_state (t, child, 1);
  apply_fork (t, 99, 20, 20);
  child = st_process_table_lookup (t, 20);
  g_assert_false (child->exited);
  g_assert_cmpuint (st_address_space_size (child->maps), ==, 0);
  g_assert_cmpuint (states_freed, ==, 2);
  g_assert_null (child->unwind_state[1]);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 0);
  st_process_table_free (t);
}

/* Exited processes have a bound of their own: past it the one that
   exited longest ago is forgotten, whatever was used since; a process
   that runs again (a reused pid) leaves the exited list.  */
static void
test_exited_bound (void)
{
  StProcessTable *t = st_process_table_new ();

  st_process_table_set_max_exited (t, 3);
  for (int32_t pid = 100; pid < 110; pid++)
    apply_map (t, pid, 0x400000, "/bin/short-lived");
  for (int32_t pid = 100; pid < 104; pid++)
    apply_exit (t, pid, pid);
  /* Four exited, three kept: 100 exited first and is gone.  */
  g_assert_null (st_process_table_lookup (t, 100));
  g_assert_cmpuint (st_process_table_size (t), ==, 9);
  g_assert_cmpuint (st_process_table_forgotten (t), ==, 1);
  /* A sample of 101 after its exit does not keep it.  */
  st_process_table_get (t, 101);
  /* 102 runs again (its pid reused): no longer counted as exited.  */
  apply_fork (t, 105, 102, 102);
  apply_exit (t, 104, 104);
  apply_exit (t, 105, 105);
  g_assert_null (st_process_table_lookup (t, 101));
  g_assert_nonnull (st_process_table_lookup (t, 102));
  g_assert_nonnull (st_process_table_lookup (t, 103));
  g_assert_nonnull (st_process_table_lookup (t, 104));
  g_assert_nonnull (st_process_table_lookup (t, 105));
  /* The running ones are all kept.  */
  for (int32_t pid = 106; pid < 110; pid++)
    g_assert_nonnull (st_process_table_lookup (t, pid));
  st_process_table_free (t);
}

/* The parent is the least recent when its child comes and the table is
   full: the room is made elsewhere.  */
static void
test_fork_keeps_parent (void)
{
  StProcessTable *t = st_process_table_new ();

  st_process_table_set_limits (t, 2, 2);
  apply_map (t, 1, 0x400000, "/bin/p");
  st_process_table_get (t, 2);
  apply_fork (t, 1, 3, 3);
  g_assert_nonnull (st_process_table_lookup (t, 1));
  g_assert_null (st_process_table_lookup (t, 2));
  StProcess *child = st_process_table_lookup (t, 3);
  g_assert_cmpuint (st_address_space_size (child->maps), ==, 1);
  st_process_table_free (t);
}

static void
test_exec (void)
{
  StProcessTable *t = st_process_table_new ();

  apply_map (t, 5, 0x400000, "/bin/sh");
  apply_comm (t, 5, "sh", false);
  StProcess *p = st_process_table_lookup (t, 5);
  g_assert_cmpuint (p->exec_count, ==, 0);

  /* A rename (prctl PR_SET_NAME) keeps the image.  */
  apply_comm (t, 5, "worker", false);
  g_assert_cmpstr (p->comm, ==, "worker");
  g_assert_cmpuint (st_address_space_size (p->maps), ==, 1);
  g_assert_cmpuint (p->exec_count, ==, 0);

  /* exec: the old image goes, the new mappings follow.  */
  states_freed = 0;
  give_state (t, p, 0);
  give_state (t, p, 1);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 1);
  apply_comm (t, 5, "make", true);
  g_assert_cmpuint (p->exec_count, ==, 1);
  g_assert_cmpstr (p->comm, ==, "make");
  g_assert_cmpuint (st_address_space_size (p->maps), ==, 0);
  g_assert_null (p->unwind_state[0]);
  g_assert_null (p->unwind_state[1]);
  g_assert_cmpuint (states_freed, ==, 2);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 0);
  apply_map (t, 5, 0x600000, "/usr/bin/make");
  g_assert_cmpstr (st_address_space_find (p->maps, 0x600000)->filename, ==,
                   "/usr/bin/make");

  /* An exec without a name (a capture's PROCESS frame may have none)
     keeps the old one; the count goes on.  An exec after EXIT (the
     event order of another CPU) revives the process.  */
  apply_exit (t, 5, 5);
  g_assert_true (p->exited);
  apply_comm (t, 5, NULL, true);
  g_assert_cmpuint (p->exec_count, ==, 2);
  g_assert_cmpstr (p->comm, ==, "make");
  g_assert_false (p->exited);
  st_process_table_free (t);
}

static void
test_exit (void)
{
  StProcessTable *t = st_process_table_new ();

  apply_map (t, 8, 0x400000, "/bin/x");
  StProcess *p = st_process_table_lookup (t, 8);
  states_freed = 0;
  give_state (t, p, 0);

  /* A thread's exit changes nothing.  */
  apply_exit (t, 8, 9);
  g_assert_false (p->exited);
  g_assert_nonnull (p->unwind_state[0]);

  /* The process's: mappings kept, state dropped.  */
  apply_exit (t, 8, 8);
  g_assert_true (p->exited);
  g_assert_cmpuint (states_freed, ==, 1);
  g_assert_null (p->unwind_state[0]);
  g_assert_cmpuint (st_address_space_size (p->maps), ==, 1);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 0);

  /* The exit of a process never seen creates nothing.  */
  apply_exit (t, 77, 77);
  g_assert_null (st_process_table_lookup (t, 77));
  g_assert_cmpuint (st_process_table_size (t), ==, 1);

  /* Other kinds are ignored.  */
  StEvent sample = { .kind = ST_EVENT_SAMPLE, .pid = 78, .tid = 78 };
  st_process_table_apply (t, &sample);
  g_assert_null (st_process_table_lookup (t, 78));
  st_process_table_free (t);
}

static void
test_unwind_state_bound (void)
{
  StProcessTable *t = st_process_table_new ();
  StProcess *p[4];

  st_process_table_set_limits (t, 100, 2);
  for (int i = 0; i < 4; i++)
    p[i] = st_process_table_get (t, 40 + i);
  states_freed = 0;
  give_state (t, p[0], 0);
  give_state (t, p[1], 0);
  /* 0 used again: 1 is the least recent state.  */
  st_process_table_use_unwind_state (t, p[0]);
  give_state (t, p[2], 0);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 2);
  g_assert_cmpuint (states_freed, ==, 1);
  g_assert_null (p[1]->unwind_state[0]);
  g_assert_nonnull (p[0]->unwind_state[0]);
  g_assert_nonnull (p[2]->unwind_state[0]);
  /* The processes themselves stay.  */
  g_assert_cmpuint (st_process_table_size (t), ==, 4);

  /* A process forgotten takes its state along; the table frees the
     rest.  */
  st_process_table_set_limits (t, 1, 2);
  st_process_table_get (t, 50);
  g_assert_cmpuint (st_process_table_n_unwind_states (t), ==, 0);
  g_assert_cmpuint (states_freed, ==, 3);
  give_state (t, st_process_table_lookup (t, 50), 1);
  st_process_table_free (t);
  g_assert_cmpuint (states_freed, ==, 4);
}

static void
test_proc_maps (void)
{
  StProcessTable *t = st_process_table_new ();
  StProcess *self = st_process_table_get (t, getpid ());

  /* Not described by the stream: read from /proc, once.  This test
     program's own file is among its mappings.  */
  st_process_load_maps_once (self);
  g_assert_true (self->proc_tried);
  g_assert_true (self->maps_seen);
  const StMap *code = st_address_space_find (self->maps,
                                             (uint64_t) (uintptr_t)
                                             test_proc_maps);
  g_assert_nonnull (code);
  g_assert_true (g_str_has_suffix (code->filename, "test-process-table"));
  st_address_space_clear (self->maps);
  st_process_load_maps_once (self);
  g_assert_cmpuint (st_address_space_size (self->maps), ==, 0);

  /* Described by the stream: /proc is not looked at.  */
  apply_map (t, getppid (), 0x400000, "/bin/x");
  StProcess *described = st_process_table_lookup (t, getppid ());
  st_process_load_maps_once (described);
  g_assert_false (described->proc_tried);
  g_assert_cmpuint (st_address_space_size (described->maps), ==, 1);

  /* Gone (pid beyond pid_max): tried, nothing seen.  */
  StProcess *gone = st_process_table_get (t, G_MAXINT32);
  st_process_load_maps_once (gone);
  g_assert_true (gone->proc_tried);
  g_assert_false (gone->maps_seen);
  st_process_table_free (t);
}

/* 60 processes of 40 mappings each (some 4 KiB apiece) under a bound of
   64 KiB: about 15 kept, the most recent; an exited one goes first.  */
static void
test_map_bytes_bound (void)
{
  StProcessTable *t = st_process_table_new ();

  st_process_table_set_max_map_bytes (t, 64 * 1024);
  for (int32_t pid = 100; pid < 160; pid++)
    {
      for (int k = 0; k < 40; k++)
        apply_map (t, pid, 0x400000 + 0x10000 * k, "/usr/bin/prog");
      g_assert_cmpuint (st_process_table_map_bytes (t), <=, 64 * 1024);
      /* The one just described is whole.  */
      StProcess *p = st_process_table_lookup (t, pid);
      g_assert_nonnull (p);
      g_assert_cmpuint (st_address_space_size (p->maps), ==, 40);
    }
  guint kept = st_process_table_size (t);
  g_test_message ("%u processes kept, %zu bytes", kept,
                  st_process_table_map_bytes (t));
  g_assert_cmpuint (kept, >=, 8);
  g_assert_cmpuint (kept, <, 20);
  /* The most recent are the ones kept.  */
  for (int32_t pid = 160 - kept; pid < 160; pid++)
    g_assert_nonnull (st_process_table_lookup (t, pid));
  g_assert_null (st_process_table_lookup (t, 160 - kept - 1));

  /* An exit makes a process the first to go: 159 exits, a new one
     comes; 159 is forgotten before the older running ones.  */
  apply_exit (t, 159, 159);
  for (int k = 0; k < 40; k++)
    apply_map (t, 200, 0x400000 + 0x10000 * k, "/usr/bin/prog");
  g_assert_null (st_process_table_lookup (t, 159));
  g_assert_nonnull (st_process_table_lookup (t, 158));

  /* An exec empties a process's mappings, but its array keeps its
     allocation: still counted.  */
  size_t before = st_process_table_map_bytes (t);
  apply_comm (t, 200, "other", TRUE);
  g_assert_cmpuint (st_address_space_size
                      (st_process_table_lookup (t, 200)->maps), ==, 0);
  g_assert_cmpuint (st_process_table_map_bytes (t), ==, before);
  /* A fork copies: counted for the child.  */
  before = st_process_table_map_bytes (t);
  apply_fork (t, 158, 300, 300);
  g_assert_cmpuint (st_process_table_map_bytes (t), >, before - 4096);
  g_assert_cmpuint (st_address_space_size
                      (st_process_table_lookup (t, 300)->maps), ==, 40);
  g_assert_cmpuint (st_process_table_map_bytes (t), <=, 64 * 1024);
  st_process_table_free (t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/process-table/lru-bound", test_lru_bound);
  g_test_add_func ("/process-table/fork", test_fork);
  g_test_add_func ("/process-table/fork-keeps-parent", test_fork_keeps_parent);
  g_test_add_func ("/process-table/exec", test_exec);
  g_test_add_func ("/process-table/exit", test_exit);
  g_test_add_func ("/process-table/exited-bound", test_exited_bound);
  g_test_add_func ("/process-table/unwind-state-bound",
                   test_unwind_state_bound);
  g_test_add_func ("/process-table/proc-maps", test_proc_maps);
  g_test_add_func ("/process-table/map-bytes-bound", test_map_bytes_bound);
  return g_test_run ();
}
