/* Least privilege for the rest of the run, once everything that needs
   more is done (descriptors received, rings mapped, /proc walked,
   outputs opened): no new privileges, capabilities cut to reading other
   processes' files, the file system read-only (Landlock), and a seccomp
   allow list.  A process-wide, irreversible side effect: the command's,
   never the library's.  doc/ROBUSTNESS, "Privileges", says what is
   allowed and why.  */
#ifndef ST_SANDBOX_H
#define ST_SANDBOX_H

#include <glib.h>

/* Built with AddressSanitizer (gcc's macro, or clang's feature test):
   LeakSanitizer's tracer at exit needs calls the sandbox otherwise
   forbids (tests only; sandbox.c).  */
#if defined __SANITIZE_ADDRESS__
#define ST_SANDBOX_ASAN 1
#elif defined __has_feature
#if __has_feature (address_sanitizer)
#define ST_SANDBOX_ASAN 1
#endif
#endif

typedef struct
{
  /* debuginfod is on: its network calls are allowed (sockets for
     IPv4, IPv6, UNIX and netlink, connect, send, receive, socket
     options) and the files it writes, beneath WRITABLE_DIR only.  */
  gboolean network;
  const char *writable_dir;    /* NULL: nothing writable */
  /* The run reads running processes through /proc (a live stream, the
     live unwinder): /proc/PID/root, other users' /proc/PID/maps.
     Landlock forbids that (a sandboxed process has no ptrace access to
     one outside its domain), so it is left out, and the file system
     is kept read-only by the system call filter alone.  */
  gboolean reads_processes;
  /* --record: its perf events are switched on and off (their ioctls),
     and its command, COMMAND_PID when not 0, is waited for and sent
     SIGTERM at a stop (wait4 and kill of that pid alone).  */
  gboolean perf_events;
  int command_pid;
  /* A helper process of ours forked before (the outputs' committer,
     src/output-file.h), when not 0: waited for (wait4 of that pid).  */
  int helper_pid;
  /* The layers that are unavailable, each once; and, unless QUIET, one
     line saying what is in place.  NULL: standard error.  */
  void (*log) (const char *message, void *data);
  void *log_data;
  gboolean quiet;
} StSandboxPolicy;

/* What is in place after st_sandbox_enter.  */
typedef struct
{
  gboolean no_new_privs;
  gboolean capabilities;       /* the sets cut to the two kept */
  guint64 kept;                /* the capabilities left (a mask) */
  gboolean bounding_set;       /* the bounding set cut as well */
  int landlock_abi;            /* 0: no Landlock */
  gboolean seccomp;
} StSandboxState;

/* Enters the sandbox, for every thread: call it before any thread is
   started (capabilities and Landlock are per thread).  A layer the
   kernel or the process's privileges do not allow is logged and left
   out; FALSE (ERROR set) only when a layer failed half-way, which
   leaves the process in an unknown state: the caller must stop.  */
gboolean st_sandbox_enter (const StSandboxPolicy *policy,
                           StSandboxState *state, GError **error);

#endif /* ST_SANDBOX_H */
