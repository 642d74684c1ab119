/* Unit tests: per-process mappings and the process table.  */
#include "config.h"

#include <sys/mman.h>
#include <unistd.h>

#include "model/address-space.h"
#include "model/process-table.h"

static StMap
mk (uint64_t start, uint64_t end, uint64_t pgoff, const char *name)
{
  StMap m = { 0 };
  m.start = start;
  m.end = end;
  m.pgoff = pgoff;
  m.filename = g_intern_string (name);
  m.exec_known = TRUE;
  m.prot = PROT_READ | PROT_EXEC;
  return m;
}

static void
test_find (void)
{
  StAddressSpace *as = st_address_space_new ();
  StMap a = mk (0x1000, 0x3000, 0, "/a"), b = mk (0x5000, 0x6000, 0, "/b");

  st_address_space_add (as, &b);
  st_address_space_add (as, &a);
  g_assert_cmpuint (st_address_space_size (as), ==, 2);
  g_assert_cmpstr (st_address_space_find (as, 0x1000)->filename, ==, "/a");
  g_assert_cmpstr (st_address_space_find (as, 0x2fff)->filename, ==, "/a");
  g_assert_null (st_address_space_find (as, 0x3000));
  g_assert_null (st_address_space_find (as, 0xfff));
  g_assert_cmpstr (st_address_space_find (as, 0x5800)->filename, ==, "/b");
  g_assert_null (st_address_space_find (as, 0x6000));
  st_address_space_free (as);
}

/* A mapping's name is the interned one, also when taken from the
   neighbouring segment of the same file.  */
static void
test_interned_names (void)
{
  StAddressSpace *as = st_address_space_new ();
  StMap text = mk (0x1000, 0x3000, 0, "/lib/x.so");
  StMap data = mk (0x3000, 0x4000, 0x2000, "/lib/x.so");
  StMap other = mk (0x4000, 0x5000, 0, "/lib/y.so");
  char *name = g_strdup ("/lib/x.so");

  data.filename = name;      /* the same name at another address */
  st_address_space_add (as, &text);
  st_address_space_add (as, &data);
  st_address_space_add (as, &other);
  const char *interned = g_ref_string_new_intern ("/lib/x.so");
  g_assert_true (st_address_space_find (as, 0x1000)->filename == interned);
  g_assert_true (st_address_space_find (as, 0x3000)->filename == interned);
  g_assert_cmpstr (st_address_space_find (as, 0x4000)->filename, ==,
                   "/lib/y.so");
  g_ref_string_release ((char *) interned);
  g_free (name);
  st_address_space_free (as);
}

static void
test_overlap_split (void)
{
  StAddressSpace *as = st_address_space_new ();
  StMap big = mk (0x10000, 0x20000, 0x1000, "/big");
  StMap mid = mk (0x14000, 0x15000, 0, "/mid");
  uint64_t gen;

  st_address_space_add (as, &big);
  gen = st_address_space_generation (as);
  st_address_space_add (as, &mid);
  g_assert_cmpuint (st_address_space_generation (as), !=, gen);
  g_assert_cmpuint (st_address_space_size (as), ==, 3);

  const StMap *lo = st_address_space_get (as, 0);
  const StMap *m = st_address_space_get (as, 1);
  const StMap *hi = st_address_space_get (as, 2);
  g_assert_cmphex (lo->start, ==, 0x10000);
  g_assert_cmphex (lo->end, ==, 0x14000);
  g_assert_cmphex (lo->pgoff, ==, 0x1000);
  g_assert_cmpstr (m->filename, ==, "/mid");
  g_assert_cmphex (hi->start, ==, 0x15000);
  g_assert_cmphex (hi->end, ==, 0x20000);
  /* The upper remainder keeps its file offset in step with its address.  */
  g_assert_cmphex (hi->pgoff, ==, 0x1000 + 0x5000);
  st_address_space_free (as);
}

static void
test_overlap_replace (void)
{
  StAddressSpace *as = st_address_space_new ();
  StMap a = mk (0x1000, 0x2000, 0, "/a"), b = mk (0x2000, 0x3000, 0, "/b");
  StMap c = mk (0x1800, 0x2800, 0, "/c"), d = mk (0x0, 0x4000, 0, "/d");

  st_address_space_add (as, &a);
  st_address_space_add (as, &b);
  st_address_space_add (as, &c);
  g_assert_cmpuint (st_address_space_size (as), ==, 3);
  g_assert_cmphex (st_address_space_get (as, 0)->end, ==, 0x1800);
  g_assert_cmphex (st_address_space_get (as, 2)->start, ==, 0x2800);
  g_assert_cmphex (st_address_space_get (as, 2)->pgoff, ==, 0x800);
  st_address_space_add (as, &d);
  g_assert_cmpuint (st_address_space_size (as), ==, 1);
  g_assert_cmpstr (st_address_space_find (as, 0x2000)->filename, ==, "/d");

  /* Empty and inverted mappings are ignored.  */
  StMap e = mk (0x5000, 0x5000, 0, "/e");
  st_address_space_add (as, &e);
  g_assert_cmpuint (st_address_space_size (as), ==, 1);
  st_address_space_free (as);
}

static void
test_maybe_code (void)
{
  StMap m = mk (0, 0x1000, 0, "/lib");
  g_assert_true (st_map_maybe_code (&m));
  m.prot = PROT_READ | PROT_WRITE;
  g_assert_false (st_map_maybe_code (&m));
  m.exec_known = FALSE;
  g_assert_true (st_map_maybe_code (&m));
  m.filename = g_intern_string ("");
  g_assert_false (st_map_maybe_code (&m));
}

static void
test_proc_self (void)
{
  StAddressSpace *as = st_address_space_new ();

  g_assert_true (st_address_space_load_proc (as, getpid ()));
  /* Our own code is mapped from a file, executable.  */
  const StMap *m = st_address_space_find (as, (uint64_t) (uintptr_t) test_proc_self);
  g_assert_nonnull (m);
  g_assert_true (m->filename[0] == '/');
  g_assert_true (m->prot & PROT_EXEC);
  g_assert_false (st_address_space_load_proc (as, -5));
  st_address_space_free (as);
}

static StEvent
ev_of (StEventKind kind, int32_t pid, int32_t tid)
{
  StEvent ev = { 0 };
  ev.kind = kind;
  ev.pid = pid;
  ev.tid = tid;
  return ev;
}

static void
test_process_table (void)
{
  StProcessTable *t = st_process_table_new ();
  StEvent map = ev_of (ST_EVENT_MAP, 10, 10);
  map.map.start = 0x400000;
  map.map.end = 0x401000;
  map.map.filename = "/bin/x";
  st_process_table_apply (t, &map);

  StEvent comm = ev_of (ST_EVENT_PROCESS, 10, 10);
  comm.process.comm = "x";
  st_process_table_apply (t, &comm);

  /* A new thread does not create a process; a fork copies the maps.  */
  StEvent thread = ev_of (ST_EVENT_FORK, 10, 11);
  thread.fork.parent_pid = 10;
  st_process_table_apply (t, &thread);
  g_assert_cmpuint (st_process_table_size (t), ==, 1);

  StEvent fork = ev_of (ST_EVENT_FORK, 20, 20);
  fork.fork.parent_pid = 10;
  st_process_table_apply (t, &fork);
  StProcess *child = st_process_table_lookup (t, 20);
  g_assert_nonnull (child);
  g_assert_cmpstr (child->comm, ==, "x");
  g_assert_nonnull (st_address_space_find (child->maps, 0x400800));

  /* exec empties the mappings; EXIT keeps them for late samples.  */
  StEvent exec = ev_of (ST_EVENT_PROCESS, 20, 20);
  exec.process.comm = "y";
  exec.process.exec = TRUE;
  st_process_table_apply (t, &exec);
  g_assert_cmpuint (st_address_space_size (child->maps), ==, 0);
  g_assert_cmpstr (child->comm, ==, "y");

  StEvent exit_ev = ev_of (ST_EVENT_EXIT, 10, 10);
  st_process_table_apply (t, &exit_ev);
  StProcess *parent = st_process_table_lookup (t, 10);
  g_assert_true (parent->exited);
  g_assert_cmpuint (st_address_space_size (parent->maps), ==, 1);
  st_process_table_free (t);
}

static guint states_freed;

static void
fake_state_free (gpointer data)
{
  states_freed++;
}

/* A process with a fake unwinder state, as the unwinder would attach.  */
static StProcess *
process_with_state (StProcessTable *t, int32_t pid)
{
  StProcess *p = st_process_table_get (t, pid);

  st_process_table_use_unwind_state (t, p);
  if (p->unwind_state[0] == NULL)
    {
      p->unwind_state[0] = p;
      p->unwind_state_free[0] = fake_state_free;
    }
  return p;
}

/* Thousands of processes: the table and the unwinder states stay within
   their bounds, least recently used first, exited processes before
   running ones.  */
static void
test_process_table_bounds (void)
{
  StProcessTable *t = st_process_table_new ();
  StEvent map = ev_of (ST_EVENT_MAP, 0, 0);

  map.map.start = 0x400000;
  map.map.end = 0x401000;
  map.map.filename = "/bin/x";
  st_process_table_set_limits (t, 100, 10);
  states_freed = 0;
  for (int32_t pid = 1; pid <= 5000; pid++)
    {
      map.pid = map.tid = pid;
      st_process_table_apply (t, &map);
      process_with_state (t, pid);
      /* Process 1 keeps sampling: it stays.  */
      process_with_state (t, 1);
      g_assert_cmpuint (st_process_table_size (t), <=, 100);
      g_assert_cmpuint (st_process_table_n_unwind_states (t), <=, 10);
    }
  g_assert_nonnull (st_process_table_lookup (t, 1));
  g_assert_nonnull (st_process_table_lookup (t, 1)->unwind_state);
  g_assert_nonnull (st_process_table_lookup (t, 5000));
  g_assert_null (st_process_table_lookup (t, 4900));
  g_assert_cmpuint (st_process_table_forgotten (t), ==, 4900);
  /* Every state but the 10 live ones was freed, once.  */
  g_assert_cmpuint (states_freed, ==, 5000 - 10);

  /* An exited process goes first, even if it was used last.  */
  StEvent exit_ev = ev_of (ST_EVENT_EXIT, 5000, 5000);
  st_process_table_apply (t, &exit_ev);
  st_process_table_get (t, 6000);
  g_assert_null (st_process_table_lookup (t, 5000));
  g_assert_nonnull (st_process_table_lookup (t, 4999));
  /* The parent of a fork stays while room is made for the child.  */
  StProcess *oldest = st_process_table_lookup (t, 4902);
  g_assert_nonnull (oldest);
  StEvent fork = ev_of (ST_EVENT_FORK, 7000, 7000);
  fork.fork.parent_pid = 4902;
  st_process_table_apply (t, &fork);
  g_assert_nonnull (st_process_table_lookup (t, 4902));
  g_assert_nonnull (st_address_space_find (
                      st_process_table_lookup (t, 7000)->maps, 0x400800));
  st_process_table_free (t);
  g_assert_cmpuint (states_freed, ==, 5000);
}

/* What a name says about a mapping: the same whether asked of a mapping
   on its own or of one in an address space (which works it out once and
   hands it on to the neighbouring segments and the parts of a split).  */
static void
test_is_module (void)
{
  static const struct
  {
    const char *name;
    gboolean module;
  } names[] = {
    { "/usr/lib/libc.so.6", TRUE },
    { "[vdso]", TRUE },
    { "//anon", FALSE },
    { "/memfd:v8 (deleted)", FALSE },
    { "[stack]", FALSE },
    { "", FALSE },
    { "/tmp/jit-4242.dump", FALSE },
    { "jit-7.dump", FALSE },
    { "/tmp/jit-x.dump", TRUE },
    { "relative/libc.so.6", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      StAddressSpace *as = st_address_space_new ();
      StMap m = mk (0x10000, 0x20000, 0, names[i].name);

      g_assert_cmpint (st_map_is_module (&m), ==, names[i].module);
      st_address_space_add (as, &m);
      /* A second segment of the same file, and a hole cut in the first. */
      StMap next = mk (0x20000, 0x30000, 0x10000, names[i].name);
      st_address_space_add (as, &next);
      StMap hole = mk (0x14000, 0x15000, 0, "//anon");
      st_address_space_add (as, &hole);
      g_assert_cmpuint (st_address_space_size (as), ==, 4);
      for (guint k = 0; k < 4; k++)
        {
          const StMap *in = st_address_space_get (as, k);
          gboolean want = k == 1 ? FALSE : names[i].module;

          g_assert_cmpint (in->name_kind, !=, ST_MAP_NAME_UNKNOWN);
          g_assert_cmpint (st_map_is_module (in), ==, want);
        }
      /* Not executable: no module, whatever the name.  */
      m.prot = PROT_READ;
      g_assert_false (st_map_is_module (&m));
      st_address_space_free (as);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/address-space/find", test_find);
  g_test_add_func ("/address-space/interned-names", test_interned_names);
  g_test_add_func ("/address-space/overlap-split", test_overlap_split);
  g_test_add_func ("/address-space/overlap-replace", test_overlap_replace);
  g_test_add_func ("/address-space/maybe-code", test_maybe_code);
  g_test_add_func ("/address-space/is-module", test_is_module);
  g_test_add_func ("/address-space/proc-self", test_proc_self);
  g_test_add_func ("/process-table/events", test_process_table);
  g_test_add_func ("/process-table/bounds", test_process_table_bounds);
  return g_test_run ();
}
