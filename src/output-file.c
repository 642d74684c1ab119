/* Output paths written without loss; see output-file.h.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output-file.h"

typedef struct
{
  int cmd;          /* to the committer: {op, index} */
  int reply;        /* from it: a status byte, then a message */
} Committer;

struct StOutputCommitter
{
  Committer pipes;
  pid_t pid;
};

struct StOutputFile
{
  char *what;
  char *path;       /* as given (messages) */
  char *target;     /* the file renamed over: symbolic links followed */
  char *temp;       /* the temporary file while it exists */
  char *kept;       /* TARGET.old once the commit kept the old file */
  gboolean in_place;
  gboolean force;
  const Committer *committer;  /* renames done there, when set */
  guint index;                 /* this file's number for it */
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

static gboolean
commit_here (StOutputFile *f, GError **error)
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

static void
discard_here (StOutputFile *f)
{
  if (f->temp == NULL)
    return;
  unlink (f->temp);
  g_clear_pointer (&f->temp, g_free);
}

/* --- the committer ------------------------------------------------------

   A sandboxed run may rename and remove nothing (src/sandbox.h), yet
   its outputs are renamed into place at the end.  So a process forked
   before the sandbox, single-threaded and holding only two pipes, does
   the renames and removals of the files it was given, on the word of
   the run, and nothing else: it removes what is left when the run's
   end of the pipe closes (the run ended, or was killed) and exits.  */

enum { OP_COMMIT = 'c', OP_DISCARD = 'd' };
enum { REPLY_FAILED, REPLY_DONE, REPLY_KEPT };

static gboolean
read_full (int fd, void *buf, size_t len)
{
  uint8_t *p = buf;

  while (len > 0)
    {
      ssize_t n = read (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (size_t) n;
    }
  return TRUE;
}

static gboolean
write_full (int fd, const void *buf, size_t len)
{
  const uint8_t *p = buf;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (size_t) n;
    }
  return TRUE;
}

static G_GNUC_NORETURN void
committer_run (StOutputFile **files, guint n, int cmd, int reply)
{
  uint8_t msg[2];
  int lo = MIN (cmd, reply), hi = MAX (cmd, reply);

  /* The run's Ctrl-C reaches the whole group: the word comes from the
     run, which may still be writing.  */
  signal (SIGINT, SIG_IGN);
  signal (SIGTERM, SIG_IGN);
  signal (SIGUSR1, SIG_IGN);
  signal (SIGPIPE, SIG_IGN);
  /* Nothing of the run's held open here (a recorder's pipe would not
     see its end): standard error and the two pipes only.  */
  if (lo > 3)
    close_range (3, (unsigned) lo - 1, 0);
  if (hi > lo + 1)
    close_range ((unsigned) lo + 1, (unsigned) hi - 1, 0);
  close_range ((unsigned) hi + 1, ~0U, 0);
  while (read_full (cmd, msg, sizeof msg))
    {
      StOutputFile *f = (guint) msg[1] < n ? files[msg[1]] : NULL;
      GError *error = NULL;
      uint8_t status = REPLY_DONE;

      if (f != NULL && msg[0] == OP_COMMIT)
        status = commit_here (f, &error) ? (f->kept != NULL ? REPLY_KEPT
                                                            : REPLY_DONE)
                                         : REPLY_FAILED;
      else if (f != NULL)
        discard_here (f);
      const char *text = error != NULL ? error->message : "";
      uint32_t len = (uint32_t) strlen (text);
      if (!write_full (reply, &status, 1) || !write_full (reply, &len, 4)
          || !write_full (reply, text, len))
        break;
      g_clear_error (&error);
    }
  for (guint i = 0; i < n; i++)
    if (files[i] != NULL)
      discard_here (files[i]);
  _exit (0);
}

StOutputCommitter *
st_output_committer_new (StOutputFile **files, guint n, GError **error)
{
  int cmd[2], reply[2];
  StOutputCommitter *c;

  g_return_val_if_fail (n <= 256, NULL);
  if (pipe2 (cmd, O_CLOEXEC) != 0)
    goto no_pipe;
  if (pipe2 (reply, O_CLOEXEC) != 0)
    {
      close (cmd[0]);
      close (cmd[1]);
      goto no_pipe;
    }
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      int err = errno;
      close (cmd[0]), close (cmd[1]), close (reply[0]), close (reply[1]);
      set_error (error, err, "cannot start the process that renames the "
                 "outputs into place: %s", g_strerror (err));
      return NULL;
    }
  if (pid == 0)
    committer_run (files, n, cmd[0], reply[1]);
  close (cmd[0]);
  close (reply[1]);
  c = g_new0 (StOutputCommitter, 1);
  c->pid = pid;
  c->pipes.cmd = cmd[1];
  c->pipes.reply = reply[0];
  for (guint i = 0; i < n; i++)
    if (files[i] != NULL)
      {
        files[i]->committer = &c->pipes;
        files[i]->index = i;
      }
  return c;

no_pipe:
  set_error (error, errno, "cannot make a pipe: %s", g_strerror (errno));
  return NULL;
}

int
st_output_committer_pid (const StOutputCommitter *c)
{
  return c != NULL ? (int) c->pid : 0;
}

void
st_output_committer_free (StOutputCommitter *c)
{
  if (c == NULL)
    return;
  /* The committer removes what is left and exits.  */
  int status = 0;

  close (c->pipes.cmd);
  close (c->pipes.reply);
  while (waitpid (c->pid, &status, 0) < 0 && errno == EINTR)
    ;
  /* Said, not hidden: its last work was removing temporary files.  */
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fprintf (stderr, "stacktrace: warning: the process that renames the "
             "outputs into place ended abnormally (status 0x%x)\n", status);
  g_free (c);
}

/* Asks the committer for OP on F; the committer's status.  */
static int
ask_committer (StOutputFile *f, uint8_t op, GError **error)
{
  uint8_t msg[2] = { op, (uint8_t) f->index }, status;
  uint32_t len;

  if (!write_full (f->committer->cmd, msg, sizeof msg)
      || !read_full (f->committer->reply, &status, 1)
      || !read_full (f->committer->reply, &len, 4) || len > 65536)
    {
      set_error (error, EPIPE, "the process that renames %s into place "
                 "is gone (the new file is in %s)", f->path,
                 f->temp != NULL ? f->temp : "?");
      f->committer = NULL;
      g_clear_pointer (&f->temp, g_free);
      return REPLY_FAILED;
    }
  g_autofree char *text = g_malloc (len + 1);
  if (!read_full (f->committer->reply, text, len))
    len = 0;
  text[len] = '\0';
  if (status == REPLY_FAILED)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s", text);
  return status;
}

gboolean
st_output_file_commit (StOutputFile *f, GError **error)
{
  if (f->in_place || f->temp == NULL)
    return TRUE;
  if (f->committer == NULL)
    return commit_here (f, error);
  int status = ask_committer (f, OP_COMMIT, error);
  if (status == REPLY_KEPT)
    f->kept = g_strconcat (f->target, ".old", NULL);
  g_clear_pointer (&f->temp, g_free);
  return status != REPLY_FAILED;
}

void
st_output_file_discard (StOutputFile *f)
{
  if (f->temp == NULL)
    return;
  if (f->committer == NULL)
    {
      discard_here (f);
      return;
    }
  ask_committer (f, OP_DISCARD, NULL);
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
