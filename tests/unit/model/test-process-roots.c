/* Held roots of live processes (model/process-roots.h): a root shared
   by its processes, inherited at fork, files opened inside it (also
   through an absolute symbolic link), the other roots searched, and the
   bounds: the least recently seen root closed with its processes, the
   least recently seen process forgotten.  Directories made here stand
   for the roots.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/process-roots.h"

typedef struct
{
  char *base;
  char *dirs[4];
} Roots;

/* Four roots: root N holds /lib/libN (a file "N") and /lib/link, an
   absolute link to /lib/libN.  */
static void
roots_make (Roots *r)
{
  r->base = g_dir_make_tmp ("st-roots-XXXXXX", NULL);
  g_assert_nonnull (r->base);
  for (guint i = 0; i < G_N_ELEMENTS (r->dirs); i++)
    {
      char name[16], content[2] = { (char) ('0' + i), '\0' };
      g_snprintf (name, sizeof name, "root%u", i);
      r->dirs[i] = g_build_filename (r->base, name, NULL);
      g_autofree char *lib = g_build_filename (r->dirs[i], "lib", NULL);
      g_assert_cmpint (g_mkdir_with_parents (lib, 0755), ==, 0);
      g_snprintf (name, sizeof name, "lib%u", i);
      g_autofree char *file = g_build_filename (lib, name, NULL);
      g_assert_true (g_file_set_contents (file, content, 1, NULL));
      g_autofree char *target = g_strdup_printf ("/lib/%s", name);
      g_autofree char *link = g_build_filename (lib, "link", NULL);
      g_assert_cmpint (symlink (target, link), ==, 0);
    }
}

static void
roots_remove (Roots *r)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", r->base);
  g_assert_cmpint (system (cmd), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (r->dirs); i++)
    g_free (r->dirs[i]);
  g_free (r->base);
}

static int
dir_fd (const Roots *r, guint i)
{
  int fd = open (r->dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* The first byte of the file PATH opened in PID's root, or 0.  */
static char
read_in (StProcessRoots *t, int32_t pid, const char *path)
{
  gboolean inherited;
  int fd = st_process_roots_open (t, pid, path, &inherited);
  char c = 0;

  if (fd < 0)
    return 0;
  g_assert_cmpint (read (fd, &c, 1), ==, 1);
  close (fd);
  return c;
}

static void
test_shared_and_inherited (void)
{
  Roots r;
  roots_make (&r);
  StProcessRoots *t = st_process_roots_new (4, 16);
  gboolean inherited = FALSE;

  st_process_roots_set (t, 10, dir_fd (&r, 1));
  st_process_roots_set (t, 11, dir_fd (&r, 1));
  /* One descriptor for the two processes of root 1.  */
  g_assert_cmpuint (st_process_roots_n_roots (t), ==, 1);
  g_assert_cmpuint (st_process_roots_n_pids (t), ==, 2);
  g_assert_cmpint (read_in (t, 10, "/lib/lib1"), ==, '1');
  /* An absolute link resolves inside the root, not in ours.  */
  g_assert_cmpint (read_in (t, 11, "/lib/link"), ==, '1');
  g_assert_cmpint (read_in (t, 10, "/lib/lib2"), ==, 0);
  g_assert_cmpint (read_in (t, 99, "/lib/lib1"), ==, 0);

  /* A child ended before being seen: its parent's root, marked so.  */
  st_process_roots_fork (t, 10, 12);
  g_assert_cmpint (read_in (t, 12, "/lib/lib1"), ==, '1');
  int fd = st_process_roots_open (t, 12, "/lib/lib1", &inherited);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (inherited);
  g_assert_false (st_process_roots_seen_alive (t, 12));
  g_assert_true (st_process_roots_seen_alive (t, 10));
  /* Its own root seen later wins.  */
  st_process_roots_set (t, 12, dir_fd (&r, 2));
  g_assert_cmpint (read_in (t, 12, "/lib/lib2"), ==, '2');
  g_assert_true (st_process_roots_seen_alive (t, 12));
  /* A pid reused by a child of an unknown parent forgets the old one.  */
  st_process_roots_fork (t, 500, 12);
  g_assert_cmpint (read_in (t, 12, "/lib/lib2"), ==, 0);
  /* Not a directory: not taken.  */
  g_autofree char *file = g_build_filename (r.dirs[0], "lib", "lib0", NULL);
  st_process_roots_set (t, 13, open (file, O_RDONLY | O_CLOEXEC));
  g_assert_false (st_process_roots_seen_alive (t, 13));

  st_process_roots_free (t);
  roots_remove (&r);
}

typedef struct
{
  char found[8];
  guint n;
} Found;

static gboolean
collect (int fd, guint root_number, void *user)
{
  Found *f = user;
  char c = 0;

  (void) root_number;
  g_assert_cmpint (read (fd, &c, 1), ==, 1);
  close (fd);
  f->found[f->n++] = c;
  return FALSE;
}

static gboolean
first_only (int fd, guint root_number, void *user)
{
  close (fd);
  *(guint *) user = root_number;
  return TRUE;
}

static void
test_other_roots (void)
{
  Roots r;
  roots_make (&r);
  StProcessRoots *t = st_process_roots_new (4, 16);
  Found f = { { 0 }, 0 };

  for (guint i = 0; i < 4; i++)
    st_process_roots_set (t, (int32_t) (20 + i), dir_fd (&r, i));
  /* /lib/link is in every root: all but pid 21's, most recent first.  */
  st_process_roots_foreach_other (t, 21, "/lib/link", collect, &f);
  g_assert_cmpuint (f.n, ==, 3);
  g_assert_cmpint (f.found[0], ==, '3');
  g_assert_cmpint (f.found[1], ==, '2');
  g_assert_cmpint (f.found[2], ==, '0');
  /* Only where the path exists; the search stops when asked.  */
  f.n = 0;
  st_process_roots_foreach_other (t, 99, "/lib/lib2", collect, &f);
  g_assert_cmpuint (f.n, ==, 1);
  /* The first found, the most recent, numbered as held (the fourth);
     seen again, it is found first under its number all the same.  */
  guint number = 99;
  st_process_roots_foreach_other (t, 99, "/lib/link", first_only, &number);
  g_assert_cmpuint (number, ==, 3);
  st_process_roots_see (t, 20, FALSE);
  st_process_roots_foreach_other (t, 99, "/lib/link", first_only, &number);
  g_assert_cmpuint (number, ==, 0);
  st_process_roots_free (t);
  roots_remove (&r);
}

static void
test_bounds (void)
{
  Roots r;
  roots_make (&r);
  /* Three roots, five processes at most.  */
  StProcessRoots *t = st_process_roots_new (3, 5);

  st_process_roots_set (t, 1, dir_fd (&r, 0));
  st_process_roots_set (t, 2, dir_fd (&r, 0));
  st_process_roots_set (t, 3, dir_fd (&r, 1));
  st_process_roots_set (t, 4, dir_fd (&r, 2));
  /* Root 0 seen again through pid 1: root 1 is now the least recent.  */
  st_process_roots_see (t, 1, FALSE);
  st_process_roots_set (t, 5, dir_fd (&r, 3));
  g_assert_cmpuint (st_process_roots_n_roots (t), ==, 3);
  /* Root 1 closed, and pid 3 that had it forgotten; the others kept.  */
  g_assert_cmpint (read_in (t, 3, "/lib/lib1"), ==, 0);
  g_assert_false (st_process_roots_seen_alive (t, 3));
  g_assert_cmpint (read_in (t, 1, "/lib/lib0"), ==, '0');
  g_assert_cmpint (read_in (t, 2, "/lib/lib0"), ==, '0');
  g_assert_cmpint (read_in (t, 4, "/lib/lib2"), ==, '2');
  g_assert_cmpint (read_in (t, 5, "/lib/lib3"), ==, '3');
  g_assert_cmpuint (st_process_roots_n_pids (t), ==, 4);

  /* Processes: the sixth forgets the least recently seen (pid 2, as
     pid 1 was seen again), its root stays for pid 1.  */
  st_process_roots_set (t, 6, dir_fd (&r, 3));
  st_process_roots_set (t, 7, dir_fd (&r, 3));
  g_assert_cmpuint (st_process_roots_n_pids (t), ==, 5);
  g_assert_false (st_process_roots_seen_alive (t, 2));
  g_assert_true (st_process_roots_seen_alive (t, 1));
  g_assert_cmpint (read_in (t, 1, "/lib/lib0"), ==, '0');
  g_assert_cmpuint (st_process_roots_n_roots (t), ==, 3);

  /* Many processes of one root: the table stays within its bound.  */
  for (int32_t pid = 100; pid < 200; pid++)
    st_process_roots_fork (t, pid == 100 ? 7 : pid - 1, pid);
  g_assert_cmpuint (st_process_roots_n_pids (t), ==, 5);
  g_assert_cmpint (read_in (t, 199, "/lib/lib3"), ==, '3');
  st_process_roots_free (t);
  roots_remove (&r);
}

/* A live process: this one, seen through /proc.  */
static void
test_see_self (void)
{
  StProcessRoots *t = st_process_roots_new (4, 16);
  int32_t self = (int32_t) getpid ();

  st_process_roots_see (t, self, FALSE);
  if (!st_process_roots_seen_alive (t, self))
    {
      st_process_roots_free (t);
      g_test_skip ("/proc/PID/root cannot be opened here");
      return;
    }
  gboolean inherited = TRUE;
  int fd = st_process_roots_open (t, self, "/proc/self/exe", &inherited);
  /* /proc is a magic link's land: refused, never followed.  */
  if (fd >= 0)
    close (fd);
  g_assert_false (inherited);
  /* A pid that cannot be a process: nothing.  */
  st_process_roots_see (t, 0x7ffffff0, TRUE);
  g_assert_false (st_process_roots_seen_alive (t, 0x7ffffff0));
  g_assert_cmpuint (st_process_roots_n_pids (t), ==, 1);
  st_process_roots_free (t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/process-roots/shared-and-inherited",
                   test_shared_and_inherited);
  g_test_add_func ("/process-roots/other-roots", test_other_roots);
  g_test_add_func ("/process-roots/bounds", test_bounds);
  g_test_add_func ("/process-roots/see-self", test_see_self);
  return g_test_run ();
}
