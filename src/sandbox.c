/* The sandbox: see sandbox.h; the calls allowed, and why, in
   doc/ROBUSTNESS ("Privileges").  Raw system calls throughout (no
   libcap, no libseccomp): the layers are a few structures each.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox.h"

/* What reading other processes' files takes: /proc/PID/root and
   /proc/PID/maps of other users' processes (ptrace read access), and
   their files whatever their modes.  */
#define KEPT_CAPS ((UINT64_C (1) << CAP_SYS_PTRACE) \
                   | (UINT64_C (1) << CAP_DAC_READ_SEARCH))

/* Newer than Debian 12's headers (Linux 6.1 has ABI 2).  */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

static void
say (const StSandboxPolicy *p, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
say (const StSandboxPolicy *p, const char *format, ...)
{
  va_list ap;
  g_autofree char *message = NULL;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (p->log != NULL)
    p->log (message, p->log_data);
  else
    fprintf (stderr, "stacktrace: %s\n", message);
}

/* --- capabilities -------------------------------------------------------- */

static gboolean
caps_get (uint64_t *effective, uint64_t *permitted, uint64_t *inheritable)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

  memset (d, 0, sizeof d);
  if (syscall (SYS_capget, &h, d) != 0)
    return FALSE;
  *effective = d[0].effective | (uint64_t) d[1].effective << 32;
  *permitted = d[0].permitted | (uint64_t) d[1].permitted << 32;
  *inheritable = d[0].inheritable | (uint64_t) d[1].inheritable << 32;
  return TRUE;
}

static gboolean
caps_set (uint64_t effective, uint64_t permitted, uint64_t inheritable)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

  d[0].effective = (uint32_t) effective;
  d[1].effective = (uint32_t) (effective >> 32);
  d[0].permitted = (uint32_t) permitted;
  d[1].permitted = (uint32_t) (permitted >> 32);
  d[0].inheritable = (uint32_t) inheritable;
  d[1].inheritable = (uint32_t) (inheritable >> 32);
  return syscall (SYS_capset, &h, d) == 0;
}

/* The bounding set first (dropping from it takes CAP_SETPCAP, about to
   go), then the ambient set, then the thread's own sets.  */
static gboolean
drop_capabilities (const StSandboxPolicy *p, StSandboxState *state,
                   GError **error)
{
  uint64_t eff, prm, inh, keep;
  gboolean bounding = TRUE;

  if (!caps_get (&eff, &prm, &inh))
    {
      say (p, "sandbox: cannot read the capabilities (%s); they are kept",
           g_strerror (errno));
      return TRUE;
    }
  for (int cap = 0; cap < 64; cap++)
    {
      int in = prctl (PR_CAPBSET_READ, cap, 0, 0, 0);
      if (in < 0)
        break;   /* past the kernel's last capability */
      if (in == 0 || (KEPT_CAPS & (UINT64_C (1) << cap)) != 0)
        continue;
      if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
        {
          bounding = FALSE;   /* no CAP_SETPCAP: an ordinary user */
          break;
        }
    }
  /* Absent before Linux 4.3: then there is no ambient set to clear.  */
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0
      && errno != EINVAL)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "sandbox: cannot clear the ambient capabilities: %s",
                   g_strerror (errno));
      return FALSE;
    }
  keep = prm & KEPT_CAPS;
  if (!caps_set (keep, keep, 0))
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "sandbox: cannot drop the capabilities: %s",
                   g_strerror (errno));
      return FALSE;
    }
  state->capabilities = TRUE;
  state->kept = keep;
  state->bounding_set = bounding;
  if (!bounding && keep != 0)
    say (p, "sandbox: the bounding set could not be cut (no CAP_SETPCAP)");
  return TRUE;
}

/* --- Landlock ------------------------------------------------------------ */

static int
landlock_abi (void)
{
#ifdef SYS_landlock_create_ruleset
  long abi = syscall (SYS_landlock_create_ruleset, NULL, 0,
                      LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int) abi;
#else
  errno = ENOSYS;
  return 0;
#endif
}

/* Every access that changes the file system (reads are not handled, so
   they stay allowed everywhere); the rights an ABI knows.  */
static uint64_t
landlock_handled (int abi)
{
  uint64_t fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE
                | LANDLOCK_ACCESS_FS_REMOVE_DIR
                | LANDLOCK_ACCESS_FS_REMOVE_FILE
                | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR
                | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK
                | LANDLOCK_ACCESS_FS_MAKE_FIFO
                | LANDLOCK_ACCESS_FS_MAKE_BLOCK
                | LANDLOCK_ACCESS_FS_MAKE_SYM;

  if (abi >= 2)
    fs |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3)
    fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
  return fs;
}

static gboolean
enter_landlock (const StSandboxPolicy *p, StSandboxState *state,
                GError **error)
{
#ifdef SYS_landlock_create_ruleset
  int abi = landlock_abi ();
  struct landlock_ruleset_attr attr;
  int ruleset;

  if (p->reads_processes)
    {
      if (p->network)
        say (p, "sandbox: no Landlock in a live run (it would deny "
             "/proc/PID/root): with debuginfod on, files can be opened for "
             "writing (its cache); --no-debuginfod keeps the file system "
             "read-only");
      return TRUE;
    }
  if (abi <= 0)
    {
      say (p, "sandbox: no Landlock in this kernel (%s): the file system "
           "stays writable as far as the other layers allow",
           g_strerror (errno));
      return TRUE;
    }
  memset (&attr, 0, sizeof attr);
  attr.handled_access_fs = landlock_handled (abi);
  ruleset = (int) syscall (SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0)
    {
      say (p, "sandbox: cannot make a Landlock ruleset (%s); going on "
           "without it", g_strerror (errno));
      return TRUE;
    }
  if (p->writable_dir != NULL)
    {
      /* debuginfod's cache: files written, renamed and removed there.  */
      struct landlock_path_beneath_attr beneath = {
        .allowed_access = attr.handled_access_fs
                          & (LANDLOCK_ACCESS_FS_WRITE_FILE
                             | LANDLOCK_ACCESS_FS_REMOVE_DIR
                             | LANDLOCK_ACCESS_FS_REMOVE_FILE
                             | LANDLOCK_ACCESS_FS_MAKE_DIR
                             | LANDLOCK_ACCESS_FS_MAKE_REG
                             | LANDLOCK_ACCESS_FS_REFER
                             | LANDLOCK_ACCESS_FS_TRUNCATE),
      };
      beneath.parent_fd = open (p->writable_dir,
                                O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (beneath.parent_fd < 0
          || syscall (SYS_landlock_add_rule, ruleset,
                      LANDLOCK_RULE_PATH_BENEATH, &beneath, 0) != 0)
        say (p, "sandbox: %s stays read-only (%s): debuginfod cannot "
             "cache what it downloads", p->writable_dir, g_strerror (errno));
      if (beneath.parent_fd >= 0)
        close (beneath.parent_fd);
    }
  if (syscall (SYS_landlock_restrict_self, ruleset, 0) != 0)
    {
      int err = errno;
      close (ruleset);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "sandbox: cannot apply the Landlock rules: %s",
                   g_strerror (err));
      return FALSE;
    }
  close (ruleset);
  state->landlock_abi = abi;
  return TRUE;
#else
  say (p, "sandbox: built without Landlock; the file system stays "
       "writable as far as the other layers allow");
  return TRUE;
#endif
}

/* --- seccomp ------------------------------------------------------------- */

#if defined(__x86_64__)
#define SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SECCOMP_ARCH

/* The filter is written straight: each allowed call is "equal? allow",
   each call with a condition on its arguments a small block of its own,
   so no jump is longer than a block.  Arguments are compared in their
   low 32 bits (flags and protections are ints; little-endian).  */
typedef struct
{
  struct sock_filter *insns;
  size_t len, cap;
} Filter;

static void
emit (Filter *f, struct sock_filter insn)
{
  if (f->len == f->cap)
    {
      f->cap = f->cap ? 2 * f->cap : 256;
      f->insns = g_renew (struct sock_filter, f->insns, f->cap);
    }
  f->insns[f->len++] = insn;
}

#define LOAD(field) \
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, field))
#define ARG_LOW(k) \
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, \
            offsetof (struct seccomp_data, args) + (k) * 8)
#define RET(action) BPF_STMT (BPF_RET | BPF_K, (action))
#define KILL SECCOMP_RET_KILL_PROCESS
#define ALLOW SECCOMP_RET_ALLOW

static void
allow (Filter *f, int nr)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          (uint32_t) nr, 0, 1));
  emit (f, (struct sock_filter) RET (ALLOW));
}

/* NR answered with an error instead (a call glibc probes and does
   without).  */
static void
refuse (Filter *f, int nr, int err)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          (uint32_t) nr, 0, 1));
  emit (f, (struct sock_filter) RET (SECCOMP_RET_ERRNO | (uint32_t) err));
}

/* NR allowed unless argument K has a bit of MASK: then the process is
   killed.  */
static void
allow_without_bits (Filter *f, int nr, int k, uint32_t mask)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          (uint32_t) nr, 0, 4));
  emit (f, (struct sock_filter) ARG_LOW (k));
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, mask,
                                          0, 1));
  emit (f, (struct sock_filter) RET (KILL));
  emit (f, (struct sock_filter) RET (ALLOW));
}

/* NR allowed only with every bit of MASK in argument K.  */
static void G_GNUC_UNUSED
allow_with_bits (Filter *f, int nr, int k, uint32_t mask)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          (uint32_t) nr, 0, 5));
  emit (f, (struct sock_filter) ARG_LOW (k));
  emit (f, (struct sock_filter) BPF_STMT (BPF_ALU | BPF_AND | BPF_K, mask));
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, mask,
                                          1, 0));
  emit (f, (struct sock_filter) RET (KILL));
  emit (f, (struct sock_filter) RET (ALLOW));
}

/* NR allowed only when argument K is one of the N VALUES.  */
static void
allow_values (Filter *f, int nr, int k, const uint32_t *values, size_t n)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          (uint32_t) nr, 0,
                                          (uint8_t) (2 + 2 * n)));
  emit (f, (struct sock_filter) ARG_LOW (k));
  for (size_t i = 0; i < n; i++)
    {
      emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                              values[i], 0, 1));
      emit (f, (struct sock_filter) RET (ALLOW));
    }
  emit (f, (struct sock_filter) RET (KILL));
}

#define OPEN_WRITE_FLAGS ((uint32_t) (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC))

/* The calls the command makes after the sandbox is entered, found with
   strace -f on live-unwinder and file runs (doc/ROBUSTNESS says what
   each is for); everything else kills the process.  */
static void
build_filter (Filter *f, const StSandboxPolicy *p, int landlock_abi)
{
  /* The calls made per sample or per file first (strace counts of a
     live run): the filter is a list, run at every call.  */
  static const int hot[] = {
    SYS_read, SYS_write, SYS_pread64, SYS_futex, SYS_newfstatat,
    SYS_close, SYS_fcntl,
  };
  static const int plain[] = {
    /* reading and writing descriptors already open, and files read */
    SYS_readv, SYS_preadv, SYS_pwrite64, SYS_writev, SYS_lseek, SYS_fstat,
    SYS_statx, SYS_readlinkat, SYS_faccessat,
#ifdef SYS_faccessat2
    SYS_faccessat2,
#endif
    SYS_getdents64, SYS_dup, SYS_dup3, SYS_ftruncate,
    SYS_fadvise64, SYS_statfs, SYS_fstatfs, SYS_getcwd,
#ifdef SYS_stat
    SYS_stat, SYS_lstat, SYS_access, SYS_readlink, SYS_dup2,
    SYS_poll, SYS_select,
#endif
    /* memory (mmap and mprotect: below) */
    SYS_munmap, SYS_mremap, SYS_madvise, SYS_brk, SYS_mincore,
    /* threads, their locks and their end */
    SYS_set_robust_list, SYS_rseq, SYS_gettid, SYS_getpid,
    SYS_exit, SYS_exit_group, SYS_sched_yield, SYS_sched_getaffinity,
    SYS_set_tid_address,
    /* signals: SIGINT, SIGTERM, SIGUSR1, SIGBUS (mapping-guard) */
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn,
    SYS_sigaltstack, SYS_tgkill, SYS_restart_syscall,
    /* waiting: the eventfd, pipes, timers */
    SYS_ppoll, SYS_pselect6, SYS_pipe2, SYS_eventfd2, SYS_nanosleep,
    SYS_clock_nanosleep, SYS_clock_gettime, SYS_clock_getres,
    SYS_gettimeofday,
    /* figures: -v, rlimits, statistics */
    SYS_getrusage, SYS_prlimit64, SYS_getuid, SYS_geteuid, SYS_getgid,
    SYS_getegid, SYS_uname, SYS_sysinfo, SYS_getrandom,
  };
#ifndef ST_SANDBOX_ASAN
  static const uint32_t prctl_ops[] = {
    PR_SET_NAME, PR_GET_NAME, PR_SET_TIMERSLACK, PR_GET_TIMERSLACK,
    PR_GET_DUMPABLE, PR_CAPBSET_READ,
  };
#endif

  /* The architecture the numbers are for; x32 calls on x86_64 killed.  */
  emit (f, (struct sock_filter) LOAD (arch));
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
                                          SECCOMP_ARCH, 1, 0));
  emit (f, (struct sock_filter) RET (KILL));
  emit (f, (struct sock_filter) LOAD (nr));
#ifdef __x86_64__
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K,
                                          0x40000000, 0, 1));
  emit (f, (struct sock_filter) RET (KILL));
#endif
  for (size_t i = 0; i < G_N_ELEMENTS (hot); i++)
    allow (f, hot[i]);
  /* No executable memory: mapped files are data here.  Early too:
     malloc's arenas grow by mprotect.  */
  allow_without_bits (f, SYS_mprotect, 2, PROT_EXEC);
  allow_without_bits (f, SYS_mmap, 2, PROT_EXEC);
  if (!p->network)
    allow_without_bits (f, SYS_openat, 2, OPEN_WRITE_FLAGS);
  for (size_t i = 0; i < G_N_ELEMENTS (plain); i++)
    allow (f, plain[i]);
  /* Threads (a worker pool, the pacer) but never a new process: glibc
     falls back from clone3, whose flags a filter cannot see.  */
  refuse (f, SYS_clone3, ENOSYS);
#ifdef ST_SANDBOX_ASAN
  /* LeakSanitizer stops the threads at exit with a tracer made by clone
     and ptrace: the sanitized build (tests only) keeps both.  */
  allow (f, SYS_clone);
  allow (f, SYS_ptrace);
  allow (f, SYS_wait4);
#else
  allow_with_bits (f, SYS_clone, 0, CLONE_THREAD);
#endif
#ifdef ST_SANDBOX_ASAN
  {
    /* and LeakSanitizer's tracer: its parent's death, ptrace leave.  */
    static const uint32_t lsan_prctl_ops[] = {
      PR_SET_NAME, PR_GET_NAME, PR_SET_TIMERSLACK, PR_GET_TIMERSLACK,
      PR_GET_DUMPABLE, PR_CAPBSET_READ, PR_SET_PDEATHSIG, PR_SET_PTRACER, PR_SET_DUMPABLE,
    };
    allow_values (f, SYS_prctl, 0, lsan_prctl_ops,
                  G_N_ELEMENTS (lsan_prctl_ops));
    allow (f, SYS_getppid);
    allow (f, SYS_getdents);
  }
#else
  allow_values (f, SYS_prctl, 0, prctl_ops, G_N_ELEMENTS (prctl_ops));
#endif
  /* A thread lowering its own policy to SCHED_IDLE (the mapped input's
     pager, lib/format/map-pager.c), nothing else.  */
  {
    static const uint32_t idle[] = { SCHED_IDLE };
    allow_values (f, SYS_sched_setscheduler, 1, idle, G_N_ELEMENTS (idle));
  }
  /* ioctl: isatty's TCGETS, FIONREAD on pipes; --record's events
     switched on and off.  */
  {
    static const uint32_t ioctls[] = { TCGETS, FIONREAD,
                                       PERF_EVENT_IOC_ENABLE,
                                       PERF_EVENT_IOC_DISABLE };
    allow_values (f, SYS_ioctl, 1, ioctls,
                  p->perf_events ? G_N_ELEMENTS (ioctls) : 2);
  }
  if (p->command_pid > 0 || p->helper_pid > 0)
    {
      /* --record's command and the outputs' committer: waited for, they
         alone; the command stopped, it alone.  */
      uint32_t waited[2], command = (uint32_t) p->command_pid;
      size_t n = 0;
      if (p->command_pid > 0)
        waited[n++] = (uint32_t) p->command_pid;
      if (p->helper_pid > 0)
        waited[n++] = (uint32_t) p->helper_pid;
      allow_values (f, SYS_wait4, 0, waited, n);
      if (p->command_pid > 0)
        allow_values (f, SYS_kill, 0, &command, 1);
    }
  if (p->network)
    {
      /* debuginfod (libcurl): its sockets (netlink for getaddrinfo's
         address check, UNIX for the resolver), and its cache, which
         Landlock keeps beneath its directory.  */
      static const uint32_t domains[] = { AF_UNIX, AF_INET, AF_INET6,
                                          AF_NETLINK };
      static const int net[] = {
        SYS_connect, SYS_bind, SYS_getsockname, SYS_getpeername,
        SYS_getsockopt, SYS_setsockopt, SYS_sendto, SYS_recvfrom,
        SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg, SYS_recvmmsg,
        SYS_shutdown, SYS_socketpair, SYS_openat, SYS_mkdirat,
        SYS_renameat, SYS_renameat2, SYS_unlinkat, SYS_utimensat,
        SYS_fchmod, SYS_flock, SYS_fsync, SYS_fdatasync,
#ifdef SYS_open
        SYS_open, SYS_mkdir, SYS_rename, SYS_unlink, SYS_rmdir,
#endif
      };
      allow_values (f, SYS_socket, 0, domains, G_N_ELEMENTS (domains));
      for (size_t i = 0; i < G_N_ELEMENTS (net); i++)
        allow (f, net[i]);
    }
  else
    {
#ifdef SYS_open
      allow_without_bits (f, SYS_open, 1, OPEN_WRITE_FLAGS);
#endif
    }
  /* openat2's flags are in a structure the filter cannot read; it
     opens the files of a container within its root (RESOLVE_IN_ROOT,
     lib/model/process-roots.c), where Landlock, from ABI 3 on (with
     truncation), keeps it from writing.  Without, the library falls
     back to openat on a relative path.  */
  if (landlock_abi >= 3)
    allow (f, SYS_openat2);
  else
    refuse (f, SYS_openat2, ENOSYS);
  emit (f, (struct sock_filter) RET (KILL));
}

static gboolean
enter_seccomp (const StSandboxPolicy *p, StSandboxState *state,
               GError **error)
{
  uint32_t kill = SECCOMP_RET_KILL_PROCESS;
  Filter f = { NULL, 0, 0 };
  struct sock_fprog prog;

  if (syscall (SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &kill) != 0)
    {
      say (p, "sandbox: no seccomp filter that kills the process in this "
           "kernel (%s); going on without a system call filter",
           g_strerror (errno));
      return TRUE;
    }
  build_filter (&f, p, state->landlock_abi);
  prog.len = (unsigned short) f.len;
  prog.filter = f.insns;
  /* TSYNC: every thread, should one exist.  */
  if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER,
               SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
    {
      int err = errno;
      g_free (f.insns);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "sandbox: cannot install the seccomp filter: %s",
                   g_strerror (err));
      return FALSE;
    }
  g_free (f.insns);
  state->seccomp = TRUE;
  return TRUE;
}

#else /* !SECCOMP_ARCH */

static gboolean
enter_seccomp (const StSandboxPolicy *p, StSandboxState *state,
               GError **error)
{
  (void) state;
  (void) error;
  say (p, "sandbox: no seccomp filter for this architecture");
  return TRUE;
}

#endif /* SECCOMP_ARCH */

/* --- all of it ----------------------------------------------------------- */

gboolean
st_sandbox_enter (const StSandboxPolicy *policy, StSandboxState *state,
                  GError **error)
{
  StSandboxState none = { 0 };
  StSandboxState *s = state != NULL ? state : &none;

  memset (s, 0, sizeof *s);
  /* First: Landlock and an unprivileged seccomp filter need it.  */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    {
      say (policy, "sandbox: cannot set no_new_privs (%s): no Landlock, "
           "no seccomp filter", g_strerror (errno));
      return drop_capabilities (policy, s, error);
    }
  s->no_new_privs = TRUE;
  /* Landlock while the writable directory can still be opened
     whatever its owner; the filter last, as it forbids the calls the
     other layers make.  */
  if (!enter_landlock (policy, s, error)
      || !drop_capabilities (policy, s, error)
      || !enter_seccomp (policy, s, error))
    return FALSE;
  if (!policy->quiet)
    say (policy, "sandbox: no new privileges; capabilities: %s; %s; %s",
         !s->capabilities ? "kept"
         : s->kept == 0 ? "none"
         : s->bounding_set ? "CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH at most"
         : "CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH at most (bounding set "
           "kept)",
         s->landlock_abi > 0 ? (policy->writable_dir != NULL
                                ? "file system read-only but for the "
                                  "debuginfod cache (Landlock)"
                                : "file system read-only (Landlock)")
         : policy->reads_processes ? "no Landlock (live: /proc of other "
                                     "processes)"
         : "no Landlock",
         s->seccomp ? (policy->network ? "system calls filtered, network "
                                         "for debuginfod"
                                       : "system calls filtered (files "
                                         "opened read-only), no network")
                    : "no system call filter");
  return TRUE;
}
