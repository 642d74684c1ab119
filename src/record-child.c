/* The command of stacktrace --record; see record-child.h.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command-error.h"
#include "record-child.h"

struct StRecordChild
{
  char **command;
  pid_t pid;
  int go_fd;                   /* the child execs when this says 'g' */
  int exec_fd;                 /* the child's exec error, or EOF */
  int done;                    /* atomic: reaped */
  int status;
};

/* In the child: waits for the events to be open, then becomes the
   command.  Only async-signal-safe calls.  */
static void G_GNUC_NORETURN
run (int go, int exec_err, char **command)
{
  struct sigaction dfl;
  sigset_t none;
  char c = 0;
  int err;

  /* What stacktrace ignores the command must not.  */
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction (SIGPIPE, &dfl, NULL);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  while (read (go, &c, 1) < 0 && errno == EINTR)
    ;
  if (c != 'g')
    _exit (127);   /* stacktrace gave up before the events were open */
  execvp (command[0], command);
  err = errno;
  (void) !write (exec_err, &err, sizeof err);
  _exit (127);
}

StRecordChild *
st_record_child_start (char **command, GError **error)
{
  StRecordChild *c;
  int go[2], ex[2];

  if (pipe2 (go, O_CLOEXEC) != 0)
    goto no_pipe;
  if (pipe2 (ex, O_CLOEXEC) != 0)
    {
      close (go[0]);
      close (go[1]);
      goto no_pipe;
    }
  c = g_new0 (StRecordChild, 1);
  c->command = g_strdupv (command);
  fflush (NULL);
  c->pid = fork ();
  if (c->pid == 0)
    {
      close (go[1]);
      close (ex[0]);
      run (go[0], ex[1], c->command);
    }
  close (go[0]);
  close (ex[1]);
  if (c->pid < 0)
    {
      g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                   "cannot start %s: %s",
                   command[0], g_strerror (errno));
      close (go[1]);
      close (ex[0]);
      g_strfreev (c->command);
      g_free (c);
      return NULL;
    }
  c->go_fd = go[1];
  c->exec_fd = ex[0];
  return c;

no_pipe:
  g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
               "cannot make a pipe: %s",
               g_strerror (errno));
  return NULL;
}

pid_t
st_record_child_pid (const StRecordChild *c)
{
  return c->pid;
}

const char *
st_record_child_name (const StRecordChild *c)
{
  return c->command[0];
}

gboolean
st_record_child_release (StRecordChild *c, GError **error)
{
  int err = 0;
  ssize_t n;

  (void) !write (c->go_fd, "g", 1);
  close (c->go_fd);
  c->go_fd = -1;
  while ((n = read (c->exec_fd, &err, sizeof err)) < 0 && errno == EINTR)
    ;
  close (c->exec_fd);
  c->exec_fd = -1;
  if (n == (ssize_t) sizeof err)
    {
      g_set_error (error, ST_COMMAND_ERROR, ST_COMMAND_ERROR_IO,
                   "cannot run %s: %s",
                   c->command[0], g_strerror (err));
      return FALSE;
    }
  return TRUE;
}

gboolean
st_record_child_exited (StRecordChild *c)
{
  int status;

  if (g_atomic_int_get (&c->done))
    return TRUE;
  if (waitpid (c->pid, &status, WNOHANG) != c->pid)
    return FALSE;
  c->status = status;
  g_atomic_int_set (&c->done, 1);
  return TRUE;
}

void
st_record_child_end (StRecordChild *c)
{
  int status = 0;

  if (g_atomic_int_get (&c->done))
    return;
  if (c->go_fd >= 0)
    {
      close (c->go_fd);   /* never released: it exits */
      c->go_fd = -1;
    }
  else if (st_record_child_exited (c))
    return;
  else
    kill (c->pid, SIGTERM);
  while (waitpid (c->pid, &status, 0) < 0 && errno == EINTR)
    ;
  c->status = status;
  g_atomic_int_set (&c->done, 1);
}

void
st_record_child_report (const StRecordChild *c, FILE *out)
{
  if (!g_atomic_int_get (&c->done))
    return;
  if (WIFSIGNALED (c->status) && WTERMSIG (c->status) != SIGTERM)
    fprintf (out, "stacktrace: %s was killed by SIG%s\n", c->command[0],
             sigabbrev_np (WTERMSIG (c->status)));
  else if (WIFEXITED (c->status) && WEXITSTATUS (c->status) != 0)
    fprintf (out, "stacktrace: %s exited with status %d\n", c->command[0],
             WEXITSTATUS (c->status));
}

void
st_record_child_free (StRecordChild *c)
{
  if (c == NULL)
    return;
  st_record_child_end (c);
  if (c->exec_fd >= 0)
    close (c->exec_fd);
  g_strfreev (c->command);
  g_free (c);
}
