/* What the sandbox forbids, tried (integration/sandbox.sh): for each
   attempt a child is forked, enters the sandbox with the command's own
   call (src/sandbox.c, linked in) and tries one thing; the parent
   checks how the child ended.

   sandbox-probe [--network | --live] DIR

   DIR is a scratch directory (writable before the sandbox).  Without
   --network, the policy of a run without debuginfod: exec, fork,
   ptrace, sockets, executable memory, files created or written must
   kill the child by SIGSYS (seccomp) or fail with EACCES (Landlock,
   through openat2, whose flags the filter cannot see), while reading
   files, pipes and plain memory still work.  With --network,
   debuginfod's policy with DIR/cache writable: an inet socket and a
   file created in the cache work, a file outside it is refused, exec
   still kills.  With --live, a live run's policy (no Landlock): the
   same kills, and openat2 answers ENOSYS.  Prints one line per attempt; exit status 0, 1 (an
   attempt ended otherwise than expected), 77 (no seccomp or no
   Landlock here).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

/* How an attempt is to end.  */
typedef enum
{
  KILLED,       /* by SIGSYS */
  REFUSED,      /* returned EACCES or EPERM */
  ABSENT,       /* returned ENOSYS (the filter's answer) */
  WORKS,        /* returned success */
} Expect;

static const char *dir;
static gboolean network, live;
static pid_t parent;   /* the probe: getppid is not allowed in the sandbox */

/* The attempt's result, as the child's exit status: 0 worked, 1
   refused (EACCES, EPERM), 4 ENOSYS, 2 another error.  */
static int
result (long r)
{
  if (r >= 0)
    return 0;
  return errno == EACCES || errno == EPERM ? 1 : errno == ENOSYS ? 4 : 2;
}

static int
try_exec (void)
{
  char *argv[] = { (char *) "/bin/true", NULL };
  return result (execv (argv[0], argv));
}

static int
try_fork (void)
{
  pid_t pid = fork ();
  if (pid == 0)
    _exit (0);
  return result (pid);
}

static int
try_ptrace (void)
{
  return result (ptrace (PTRACE_ATTACH, parent, NULL, NULL));
}

static int
try_socket (void)
{
  return result (socket (AF_INET, SOCK_STREAM, 0));
}

static int
try_packet_socket (void)
{
  return result (socket (AF_PACKET, SOCK_RAW, 0));
}

static int
try_mmap_exec (void)
{
  void *p = mmap (NULL, 4096, PROT_READ | PROT_EXEC,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return result (p == MAP_FAILED ? -1 : 0);
}

static int
try_mprotect_exec (void)
{
  void *p = mmap (NULL, 4096, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return 2;
  return result (mprotect (p, 4096, PROT_READ | PROT_EXEC));
}

static int
try_create (void)
{
  g_autofree char *path = g_build_filename (dir, "created", NULL);
  return result (open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

static int
try_write_existing (void)
{
  g_autofree char *path = g_build_filename (dir, "existing", NULL);
  return result (open (path, O_WRONLY | O_CLOEXEC));
}

static int
try_truncate_existing (void)
{
  g_autofree char *path = g_build_filename (dir, "existing", NULL);
  return result (open (path, O_RDONLY | O_TRUNC | O_CLOEXEC));
}

/* openat2: the filter lets it through (its flags are out of its
   sight), Landlock must refuse.  */
static int
try_openat2_write (void)
{
  struct open_how how = { .flags = O_WRONLY | O_CLOEXEC };
  g_autofree char *path = g_build_filename (dir, "existing", NULL);
  return result (syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how));
}

static int
try_openat2_create (void)
{
  struct open_how how = { .flags = O_WRONLY | O_CREAT | O_CLOEXEC,
                          .mode = 0644 };
  g_autofree char *path = g_build_filename (dir, "created2", NULL);
  return result (syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how));
}

static int
try_unlink (void)
{
  g_autofree char *path = g_build_filename (dir, "existing", NULL);
  return result (unlink (path));
}

static int
try_rename (void)
{
  g_autofree char *from = g_build_filename (dir, "existing", NULL);
  g_autofree char *to = g_build_filename (dir, "renamed", NULL);
  return result (rename (from, to));
}

static int
try_mkdir (void)
{
  g_autofree char *path = g_build_filename (dir, "subdir", NULL);
  return result (mkdir (path, 0755));
}

/* What the sandboxed command does all the time.  */
static int
try_allowed (void)
{
  g_autofree char *path = g_build_filename (dir, "existing", NULL);
  char buf[64];
  int fds[2];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  void *p = mmap (NULL, 4096, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (fd < 0 || read (fd, buf, sizeof buf) < 0 || p == MAP_FAILED
      || pipe2 (fds, O_CLOEXEC) != 0 || write (fds[1], "x", 1) != 1
      || read (fds[0], buf, 1) != 1)
    return 2;
  void *q = mmap (NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  return q == MAP_FAILED ? 2 : 0;
}

static int
try_cache_create (void)
{
  g_autofree char *path = g_build_filename (dir, "cache", "file", NULL);
  return result (open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

typedef struct
{
  const char *name;
  int (*attempt) (void);
  Expect expect;
} Attempt;

static const Attempt offline[] = {
  { "read, pipe, mmap", try_allowed, WORKS },
  { "execve", try_exec, KILLED },
#ifndef ST_SANDBOX_ASAN
  /* The sanitized build keeps clone and ptrace for LeakSanitizer.  */
  { "fork", try_fork, KILLED },
  { "ptrace", try_ptrace, KILLED },
#endif
  { "socket", try_socket, KILLED },
  { "mmap PROT_EXEC", try_mmap_exec, KILLED },
  { "mprotect PROT_EXEC", try_mprotect_exec, KILLED },
  { "open O_CREAT", try_create, KILLED },
  { "open O_WRONLY", try_write_existing, KILLED },
  { "open O_TRUNC", try_truncate_existing, KILLED },
  { "openat2 O_WRONLY (Landlock)", try_openat2_write, REFUSED },
  { "openat2 O_CREAT (Landlock)", try_openat2_create, REFUSED },
  { "unlink", try_unlink, KILLED },
  { "rename", try_rename, KILLED },
  { "mkdir", try_mkdir, KILLED },
};

/* A live run: no Landlock (it would deny /proc/PID/root), the filter
   alone keeps files read-only, openat2 answers ENOSYS.  */
static const Attempt live_run[] = {
  { "read, pipe, mmap", try_allowed, WORKS },
  { "execve", try_exec, KILLED },
#ifndef ST_SANDBOX_ASAN
  { "fork", try_fork, KILLED },
  { "ptrace", try_ptrace, KILLED },
#endif
  { "socket", try_socket, KILLED },
  { "mmap PROT_EXEC", try_mmap_exec, KILLED },
  { "open O_CREAT", try_create, KILLED },
  { "open O_WRONLY", try_write_existing, KILLED },
  { "open O_TRUNC", try_truncate_existing, KILLED },
  { "openat2 O_WRONLY (ENOSYS)", try_openat2_write, ABSENT },
  { "unlink", try_unlink, KILLED },
  { "rename", try_rename, KILLED },
  { "mkdir", try_mkdir, KILLED },
};

static const Attempt with_network[] = {
  { "read, pipe, mmap", try_allowed, WORKS },
  { "execve", try_exec, KILLED },
  { "socket AF_INET", try_socket, WORKS },
  { "socket AF_PACKET", try_packet_socket, KILLED },
  { "mmap PROT_EXEC", try_mmap_exec, KILLED },
  { "create in the cache", try_cache_create, WORKS },
  { "create outside the cache (Landlock)", try_create, REFUSED },
  { "open O_WRONLY outside the cache (Landlock)", try_write_existing,
    REFUSED },
};

static void
quiet_log (const char *message, void *data)
{
  (void) message;
  (void) data;
}

/* Runs ATTEMPT in a sandboxed child; TRUE when it ended as expected.  */
static gboolean
run (const Attempt *a)
{
  g_autofree char *cache = g_build_filename (dir, "cache", NULL);
  int status;
  pid_t pid = fork ();

  if (pid < 0)
    return FALSE;
  if (pid == 0)
    {
      StSandboxPolicy policy = {
        .network = network,
        .writable_dir = network ? cache : NULL,
        .reads_processes = live,
        .log = quiet_log,
        .quiet = TRUE,
      };
      StSandboxState state;
      GError *error = NULL;
      if (!st_sandbox_enter (&policy, &state, &error))
        _exit (3);
      _exit (a->attempt ());
    }
  if (waitpid (pid, &status, 0) != pid)
    return FALSE;
  const char *got = WIFSIGNALED (status) && WTERMSIG (status) == SIGSYS
                    ? "killed by SIGSYS"
                    : WIFSIGNALED (status) ? "killed by another signal"
                    : WEXITSTATUS (status) == 0 ? "works"
                    : WEXITSTATUS (status) == 1 ? "refused (EACCES/EPERM)"
                    : WEXITSTATUS (status) == 3 ? "no sandbox entered"
                    : WEXITSTATUS (status) == 4 ? "ENOSYS"
                    : "failed otherwise";
  gboolean ok = (a->expect == KILLED && WIFSIGNALED (status)
                 && WTERMSIG (status) == SIGSYS)
                || (a->expect == REFUSED && WIFEXITED (status)
                    && WEXITSTATUS (status) == 1)
                || (a->expect == ABSENT && WIFEXITED (status)
                    && WEXITSTATUS (status) == 4)
                || (a->expect == WORKS && WIFEXITED (status)
                    && WEXITSTATUS (status) == 0);
  printf ("sandbox-probe: %-44s %s%s\n", a->name, got,
          ok ? "" : "  <- unexpected");
  return ok;
}

int
main (int argc, char **argv)
{
  int i = 1;
  StSandboxState state;
  GError *error = NULL;

  if (i < argc && strcmp (argv[i], "--network") == 0)
    network = TRUE, i++;
  else if (i < argc && strcmp (argv[i], "--live") == 0)
    live = TRUE, i++;
  if (i + 1 != argc)
    {
      fprintf (stderr, "usage: sandbox-probe [--network | --live] DIR\n");
      return 1;
    }
  dir = argv[i];
  parent = getpid ();
  g_autofree char *existing = g_build_filename (dir, "existing", NULL);
  g_autofree char *cache = g_build_filename (dir, "cache", NULL);
  if (!g_file_set_contents (existing, "data\n", -1, NULL)
      || g_mkdir_with_parents (cache, 0755) != 0)
    {
      fprintf (stderr, "sandbox-probe: cannot prepare %s\n", dir);
      return 1;
    }

  /* Which layers this kernel has: a child enters and reports.  */
  int fds[2];
  if (pipe (fds) != 0)
    return 1;
  pid_t pid = fork ();
  if (pid == 0)
    {
      StSandboxPolicy policy = { .network = network, .log = quiet_log,
                                 .quiet = TRUE };
      gboolean ok = st_sandbox_enter (&policy, &state, &error);
      _exit (write (fds[1], &state, sizeof state) == sizeof state && ok
             ? 0 : 1);
    }
  close (fds[1]);
  int status;
  if (read (fds[0], &state, sizeof state) != sizeof state
      || waitpid (pid, &status, 0) != pid || !WIFEXITED (status)
      || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "sandbox-probe: the sandbox could not be entered\n");
      return 1;
    }
  printf ("sandbox-probe: no_new_privs %d, capabilities %d (bounding set "
          "%d), Landlock ABI %d, seccomp %d\n", state.no_new_privs,
          state.capabilities, state.bounding_set, state.landlock_abi,
          state.seccomp);
  if (!state.seccomp || state.landlock_abi < 3)
    {
      printf ("sandbox-probe: needs seccomp and Landlock ABI 3 or later\n");
      return 77;
    }

  const Attempt *list = network ? with_network : live ? live_run : offline;
  size_t n = network ? G_N_ELEMENTS (with_network)
             : live ? G_N_ELEMENTS (live_run) : G_N_ELEMENTS (offline);
  gboolean all = TRUE;
  for (size_t k = 0; k < n; k++)
    all &= run (&list[k]);
  return all ? 0 : 1;
}
