/* The mapped input's pager (format/map-pager.c), on a 96 MiB file read
   the way the input reads it (every page touched, what was passed
   given back):
   - held (a thread that never gets a processor, as at SCHED_IDLE on a
     busy machine): the reader fills what it needs and gives back what
     lags, itself; it never waits for the thread, and what is resident
     stays bounded;
   - free to run: the thread fills ahead of the reader (the file's pages
     become resident before the reader touches them) and gives back
     behind it.  */
#include "config.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "format/map-pager.h"
#include "proc-status.h"

#define FILE_BYTES (96u << 20)
#define STEP (64u << 10)
#define AHEAD (4u << 20)
#define RELEASE_STEP (8u << 20)

typedef struct
{
  char *path;
  int fd;
  uint8_t *map;
} MappedFile;

static void
mapped_file_open (MappedFile *f)
{
  f->fd = g_file_open_tmp ("st-pager-XXXXXX", &f->path, NULL);
  g_assert_cmpint (f->fd, >=, 0);
  g_assert_no_errno (ftruncate (f->fd, FILE_BYTES));
  f->map = mmap (NULL, FILE_BYTES, PROT_READ, MAP_PRIVATE, f->fd, 0);
  g_assert_true (f->map != MAP_FAILED);
}

static void
mapped_file_close (MappedFile *f)
{
  munmap (f->map, FILE_BYTES);
  close (f->fd);
  g_unlink (f->path);
  g_free (f->path);
}

/* Reads the whole file as the input does; the highest RssFile above
   the start seen every 4 MiB.  */
static guint64
read_through (StMapPager *p, const uint8_t *map)
{
  guint64 base = proc_status_rss_file_kib (), peak = 0;
  uint64_t asked_upto = 0;

  for (uint64_t off = 0; off < FILE_BYTES; off += STEP)
    {
      if (off + STEP > asked_upto)
        {
          asked_upto = MIN (off + STEP + AHEAD, (uint64_t) FILE_BYTES);
          st_map_pager_populate (p, asked_upto, AHEAD);
        }
      for (uint64_t i = 0; i < STEP; i += 4096)
        (void) ((const volatile uint8_t *) map)[off + i];
      if (off % RELEASE_STEP == 0 && off > 0)
        st_map_pager_release (p, off);
      if (off % (4u << 20) == 0)
        {
          guint64 now = proc_status_rss_file_kib ();
          peak = MAX (peak, now > base ? now - base : 0);
        }
    }
  return peak;
}

static void
test_held (void)
{
  MappedFile f;

  mapped_file_open (&f);
  StMapPager *p = st_map_pager_new (f.map, FILE_BYTES, 0, 0);
  g_assert_nonnull (p);
  st_map_pager_set_held (p, TRUE);
  guint64 peak = read_through (p, f.map);
  g_test_message ("held: peak %" G_GUINT64_FORMAT " KiB", peak);
  /* The 16 MiB lag, a release step, what is asked ahead, slack.  */
  g_assert_cmpuint (peak, <, 48 * 1024);
  st_map_pager_set_held (p, FALSE);
  st_map_pager_free (p);
  mapped_file_close (&f);
}

/* Whether MADV_POPULATE_READ maps pages here: not before Linux 5.14
   (EINVAL), not under qemu-user (which answers 0 and does nothing).  */
static gboolean
populate_maps_pages (const MappedFile *f)
{
  guint64 before = proc_status_rss_file_kib ();
  gboolean maps = madvise (f->map, 4u << 20, MADV_POPULATE_READ) == 0
                  && proc_status_rss_file_kib () >= before + 2048;

  madvise (f->map, 4u << 20, MADV_DONTNEED);
  return maps;
}

static void
test_running (void)
{
  MappedFile f;

  mapped_file_open (&f);
  if (!populate_maps_pages (&f))
    {
      mapped_file_close (&f);
      g_test_skip ("MADV_POPULATE_READ maps nothing here (Linux < 5.14, "
                   "or qemu-user)");
      return;
    }
  StMapPager *p = st_map_pager_new (f.map, FILE_BYTES, 0, 0);
  g_assert_nonnull (p);
  guint64 base = proc_status_rss_file_kib ();
  /* Asked ahead and not read: the thread maps it (waited for by
     looking: at SCHED_IDLE on a busy machine it still gets a small
     share; the bound, ten minutes, is only against hanging).  */
  st_map_pager_populate (p, 0, 2 * AHEAD);
  for (guint i = 0; proc_status_rss_file_kib () < base + 2 * AHEAD / 1024; i++)
    {
      g_assert_cmpuint (i, <, 6000000);
      g_usleep (100);
    }
  guint64 peak = read_through (p, f.map);
  g_test_message ("running: peak %" G_GUINT64_FORMAT " KiB", peak);
  /* And a fill step the thread made below what the reader gave back
     meanwhile, until the thread gives it back too.  */
  g_assert_cmpuint (peak, <, 48 * 1024);
  g_assert_false (st_map_pager_met_end (p));
  st_map_pager_free (p);
  mapped_file_close (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/map-pager/held", test_held);
  g_test_add_func ("/map-pager/running", test_running);
  return g_test_run ();
}
