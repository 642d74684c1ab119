/* Output paths written without loss; see output-file.h.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output-file.h"

struct StOutputFile
{
  char *what;
  char *path;       /* as given (messages) */
  char *target;     /* the file renamed over: symbolic links followed */
  char *temp;       /* the temporary file while it exists */
  char *kept;       /* TARGET.old once the commit kept the old file */
  gboolean in_place;
  gboolean force;
};

static void
set_error (GError **error, int err, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
set_error (GError **error, int err, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s",
               msg);
}

StOutputFile *
st_output_file_check (const char *what, const char *path, gboolean force,
                      GError **error)
{
  struct stat st;
  StOutputFile *f = g_new0 (StOutputFile, 1);
  g_autofree char *dir = NULL;

  f->what = g_strdup (what);
  f->path = g_strdup (path);
  f->force = force;
  if (stat (path, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          set_error (error, EISDIR, "the %s %s is a directory", what, path);
          goto fail;
        }
      if (!S_ISREG (st.st_mode))
        {
          /* A FIFO, a terminal, /dev/null, a socket: written in place.  */
          f->in_place = TRUE;
          if (access (path, W_OK) != 0)
            {
              set_error (error, errno, "cannot write the %s %s: %s", what,
                         path, g_strerror (errno));
              goto fail;
            }
          return f;
        }
      /* A symbolic link is followed: the file it names is replaced, the
         link stays (/proc/self/fd/N included).  */
      char *real = realpath (path, NULL);
      f->target = real != NULL ? g_strdup (real) : g_strdup (path);
      free (real);
    }
  else if (errno == ENOENT || errno == ENOTDIR)
    f->target = g_strdup (path);
  else
    {
      set_error (error, errno, "cannot write the %s %s: %s", what, path,
                 g_strerror (errno));
      goto fail;
    }

  dir = g_path_get_dirname (f->target);
  if (stat (dir, &st) != 0)
    {
      set_error (error, errno, "cannot write the %s %s: its directory %s: %s",
                 what, path, dir, g_strerror (errno));
      goto fail;
    }
  if (!S_ISDIR (st.st_mode))
    {
      set_error (error, ENOTDIR, "cannot write the %s %s: %s is not a "
                 "directory", what, path, dir);
      goto fail;
    }
  if (access (dir, W_OK | X_OK) != 0)
    {
      set_error (error, errno, "cannot write the %s %s: its directory %s: %s",
                 what, path, dir, g_strerror (errno));
      goto fail;
    }
  return f;

fail:
  st_output_file_free (f);
  return NULL;
}

void
st_output_file_free (StOutputFile *f)
{
  if (f == NULL)
    return;
  st_output_file_discard (f);
  g_free (f->what);
  g_free (f->path);
  g_free (f->target);
  g_free (f->kept);
  g_free (f);
}

gboolean
st_output_file_in_place (const StOutputFile *f)
{
  return f->in_place;
}

int
st_output_file_create (StOutputFile *f, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (f->target);
  g_autofree char *base = g_path_get_basename (f->target);
  int fd;

  g_return_val_if_fail (!f->in_place && f->temp == NULL, -1);
  /* Hidden, beside the target: the rename stays within one file
     system.  mkstemp: O_EXCL, mode 0600 (the umask may narrow it).  */
  f->temp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (f->temp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int err = errno;
      set_error (error, err, "cannot create a temporary file for the %s %s "
                 "in %s: %s", f->what, f->path, dir, g_strerror (err));
      g_clear_pointer (&f->temp, g_free);
      return -1;
    }
  return fd;
}

gboolean
st_output_file_commit (StOutputFile *f, GError **error)
{
  struct stat st;

  if (f->in_place || f->temp == NULL)
    return TRUE;
  if (!f->force && lstat (f->target, &st) == 0 && S_ISREG (st.st_mode)
      && st.st_size > 0)
    {
      /* As perf keeps perf.data.old: the previous file is one rename
         away from being back.  */
      char *old = g_strconcat (f->target, ".old", NULL);
      if (rename (f->target, old) != 0)
        {
          int err = errno;
          set_error (error, err, "cannot keep the old %s as %s: %s "
                     "(the new one is in %s)", f->path, old, g_strerror (err),
                     f->temp);
          g_free (old);
          g_clear_pointer (&f->temp, g_free);   /* left for the user */
          return FALSE;
        }
      f->kept = old;
    }
  if (rename (f->temp, f->target) != 0)
    {
      int err = errno;
      set_error (error, err, "cannot rename %s to %s: %s", f->temp,
                 f->target, g_strerror (err));
      if (f->kept != NULL)
        rename (f->kept, f->target);
      g_clear_pointer (&f->kept, g_free);
      st_output_file_discard (f);
      return FALSE;
    }
  g_clear_pointer (&f->temp, g_free);
  return TRUE;
}

void
st_output_file_discard (StOutputFile *f)
{
  if (f->temp == NULL)
    return;
  unlink (f->temp);
  g_clear_pointer (&f->temp, g_free);
}

const char *
st_output_file_kept (const StOutputFile *f)
{
  return f->kept;
}

gboolean
st_output_file_is_new (const StOutputFile *f)
{
  struct stat st;

  return !f->in_place && lstat (f->target, &st) != 0 && errno == ENOENT;
}

const char *
st_output_file_path (const StOutputFile *f)
{
  return f->path;
}
