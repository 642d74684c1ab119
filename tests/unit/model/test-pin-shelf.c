/* The pin shelf: copies lent once to each taker, the bound, and what it
   is for -- a worker's module cache finds the file of a process that
   ended and whose file was deleted, through the pins the pipeline's
   cache opened while it lived; without the shelf it finds nothing.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/address-space.h"
#include "model/module-cache.h"
#include "model/pin-shelf.h"

/* Pins of two descriptors of PATH.  */
static StFilePins
pins_of (const char *path)
{
  StFilePins p = { open (path, O_RDONLY | O_CLOEXEC),
                   open (path, O_RDONLY | O_CLOEXEC) };

  g_assert_cmpint (p.root_fd, >=, 0);
  g_assert_cmpint (p.map_fd, >=, 0);
  return p;
}

static ino_t
inode_of_fd (int fd)
{
  struct stat st;

  g_assert_cmpint (fstat (fd, &st), ==, 0);
  return st.st_ino;
}

static void
test_lend (void)
{
  struct stat st;
  StPinShelf *s = st_pin_shelf_new (2, 2);
  StFilePins none = ST_FILE_PINS_NONE, got;

  g_assert_cmpint (stat ("/bin/sh", &st), ==, 0);
  StFilePins p = pins_of ("/bin/sh");
  st_pin_shelf_put (s, "a", &p);
  /* The shelf's own copies: the pins can go.  */
  st_file_pins_close (&p);
  /* Nothing to lend: not kept.  */
  st_pin_shelf_put (s, "none", &none);
  g_assert_cmpuint (st_pin_shelf_size (s), ==, 1);
  g_assert_false (st_pin_shelf_take (s, "none", 0, &got));
  g_assert_false (st_file_pins_any (&got));

  g_assert_true (st_pin_shelf_take (s, "a", 0, &got));
  g_assert_cmpuint (inode_of_fd (got.root_fd), ==, st.st_ino);
  g_assert_cmpuint (inode_of_fd (got.map_fd), ==, st.st_ino);
  st_file_pins_close (&got);
  /* Once for each taker.  */
  g_assert_false (st_pin_shelf_take (s, "a", 0, &got));
  g_assert_cmpuint (st_pin_shelf_size (s), ==, 1);
  g_assert_true (st_pin_shelf_take (s, "a", 1, &got));
  st_file_pins_close (&got);
  /* Every taker had it: gone.  */
  g_assert_cmpuint (st_pin_shelf_size (s), ==, 0);

  /* Put twice: the first stays.  Past the bound: the oldest goes.  */
  p = pins_of ("/bin/sh");
  st_pin_shelf_put (s, "b", &p);
  st_file_pins_close (&p);
  p = pins_of ("/dev/null");
  st_pin_shelf_put (s, "b", &p);
  st_pin_shelf_put (s, "c", &p);
  st_pin_shelf_put (s, "d", &p);
  st_file_pins_close (&p);
  g_assert_cmpuint (st_pin_shelf_size (s), ==, 2);
  g_assert_false (st_pin_shelf_take (s, "b", 0, &got));
  g_assert_true (st_pin_shelf_take (s, "c", 0, &got));
  st_file_pins_close (&got);
  st_pin_shelf_free (s);
}

/* The first mapping of PATH in process PID, as its maps say, into *MAP
   (its name: PATH, interned and referenced for the caller).  */
static gboolean
find_mapping (int pid, const char *path, StMap *map)
{
  StAddressSpace *as = st_address_space_new ();
  gboolean found = FALSE;

  if (st_address_space_load_proc (as, pid))
    for (guint i = 0; i < st_address_space_size (as) && !found; i++)
      {
        const StMap *m = st_address_space_get (as, i);
        if (strcmp (m->filename, path) == 0)
          {
            *map = *m;
            map->filename = g_ref_string_new_intern (path);
            found = TRUE;
          }
      }
  st_address_space_free (as);
  return found;
}

static void
test_process_gone_file_deleted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("st-pin-shelf-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "sleeper", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  int ready[2];

  /* A copy of sleep, run until we end it.  */
  g_assert_true (g_file_get_contents ("/bin/sleep", &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  g_assert_cmpint (chmod (path, 0755), ==, 0);
  g_assert_cmpint (pipe (ready), ==, 0);
  pid_t child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      close (ready[0]);
      /* (Close-on-exec: the end of READY says the exec is done.)  */
      fcntl (ready[1], F_SETFD, FD_CLOEXEC);
      execl (path, "sleeper", "1000", (char *) NULL);
      _exit (127);
    }
  close (ready[1]);
  char c;
  g_assert_cmpint (read (ready[0], &c, 1), ==, 0);
  close (ready[0]);

  StMap map = { 0 };
  /* Its mapping appears with the exec (already there once the exec
     closed READY).  */
  g_assert_true (find_mapping (child, path, &map));

  StPinShelf *shelf = st_pin_shelf_new (1, 8);
  StModuleCache *ours = st_module_cache_new (NULL);
  st_module_cache_share_pins (ours, shelf, -1);
  StModule *m = st_module_cache_get (ours, &map);
  g_assert_nonnull (m->elf);

  /* The process ends, its file goes.  */
  g_assert_cmpint (kill (child, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  g_assert_cmpint (g_unlink (path), ==, 0);

  /* A worker's cache meets the module now: the file the pipeline's
     cache found, through the shelf.  */
  StModuleCache *worker = st_module_cache_new (NULL);
  st_module_cache_share_pins (worker, shelf, 0);
  m = st_module_cache_get (worker, &map);
  g_assert_nonnull (m->elf);
  g_assert_true (m->source == ST_FILE_SOURCE_PROC_ROOT
                 || m->source == ST_FILE_SOURCE_MAP_FILES);
  g_assert_cmpint (m->verification, ==, ST_FILE_VERIFIED_INODE);
  g_assert_cmpuint (st_pin_shelf_size (shelf), ==, 0);

  /* Without the shelf: nothing.  */
  StModuleCache *alone = st_module_cache_new (NULL);
  m = st_module_cache_get (alone, &map);
  g_assert_null (m->elf);

  st_module_cache_free (alone);
  st_module_cache_free (worker);
  st_module_cache_free (ours);
  st_pin_shelf_free (shelf);
  g_ref_string_release ((char *) map.filename);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pin-shelf/lend", test_lend);
  g_test_add_func ("/pin-shelf/process-gone-file-deleted",
                   test_process_gone_file_deleted);
  return g_test_run ();
}
