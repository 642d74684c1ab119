/* A Sysprof-style recorder for the tests: perf_event_open on a workload
   it forks (cpu-clock; IP, TID, TIME, CALLCHAIN with the user part,
   REGS_USER, STACK_USER of a chosen size; user space only, so it works
   with perf_event_paranoid 2), the ring buffer read as it fills, the
   records written as a perf pipe stream into a pipe to stacktrace
   started with --input-fd/--output-fd, and stacktrace's output read
   back.  No sleeps: it waits on the perf descriptor, the workload's
   pidfd and the pipes.

   st-recorder [--stack-size N] [--stacktrace PATH] [--raw FILE]
               [--out FILE] [-- STACKTRACE-ARGS...] --run PROG [ARGS...]

   --stack-size  bytes of user stack per sample (default 8192)
   --stacktrace  the command (default: $STACKTRACE); none: only --raw
   --raw         also write the recorded stream to FILE
   --out         write stacktrace's output to FILE (default: discarded)
   Arguments after -- (up to --run) go to stacktrace.  Exit status: 0,
   1 (a failure, said on stderr), 77 (perf events unavailable here).  */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "held-workload.h"

/* Where stacktrace finds its pipes.  */
#define CHILD_IN_FD 7
#define CHILD_OUT_FD 8

/* Ring buffer: 2^RING_ORDER data pages.  */
#define RING_ORDER 9

/* Sampling period: 1 ms of CPU time.  */
#define PERIOD_NS 1000000

/* x86_64: AX..SS and R8..R15 (not DS, ES, FS, GS), as perf asks.  */
#define REGS_USER_X86_64 0xff0fffULL

typedef struct
{
  int perf_fd;
  uint8_t *ring;
  size_t page;
  size_t data_size;
  int out_fd;     /* the stream: stacktrace's input, or -1 */
  int raw_fd;     /* a copy, or -1 */
} Recorder;

static void
die (const char *what)
{
  fprintf (stderr, "st-recorder: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void
write_all (int fd, const void *buf, size_t len)
{
  const uint8_t *p = buf;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        die ("write");
      p += n;
      len -= (size_t) n;
    }
}

static void
emit (Recorder *r, const void *buf, size_t len)
{
  if (r->out_fd >= 0)
    write_all (r->out_fd, buf, len);
  if (r->raw_fd >= 0)
    write_all (r->raw_fd, buf, len);
}

/* The pipe-mode header and the one attribute, as perf record -o - does.  */
static void
emit_header (Recorder *r, const struct perf_event_attr *attr)
{
  struct
  {
    char magic[8];
    uint64_t size;
  } h = { { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' }, 16 };
  struct
  {
    struct perf_event_header hdr;
    struct perf_event_attr attr;
  } a;

  emit (r, &h, sizeof h);
  memset (&a, 0, sizeof a);
  a.hdr.type = 64;              /* PERF_RECORD_HEADER_ATTR */
  a.hdr.size = sizeof a;
  a.attr = *attr;
  emit (r, &a, sizeof a);
}

/* Copies out every record the kernel has published.  */
static void
drain (Recorder *r)
{
  struct perf_event_mmap_page *meta = (void *) r->ring;
  uint8_t *data = r->ring + r->page;
  uint64_t head = __atomic_load_n (&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  uint8_t rec[65536 + 4096];

  while (tail < head)
    {
      struct perf_event_header hdr;
      size_t at = tail % r->data_size;

      for (size_t i = 0; i < sizeof hdr; i++)
        ((uint8_t *) &hdr)[i] = data[(at + i) % r->data_size];
      if (hdr.size < sizeof hdr)
        {
          fprintf (stderr, "st-recorder: bad record size %u\n", hdr.size);
          exit (1);
        }
      size_t first = r->data_size - at < hdr.size ? r->data_size - at
                                                   : hdr.size;
      memcpy (rec, data + at, first);
      memcpy (rec + first, data, hdr.size - first);
      emit (r, rec, hdr.size);
      tail += hdr.size;
    }
  __atomic_store_n (&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int
pidfd_of (pid_t pid)
{
  return (int) syscall (SYS_pidfd_open, pid, 0);
}

/* Starts stacktrace with its input and output on pipes.  */
static pid_t
spawn_stacktrace (const char *path, char **args, int n_args, int *in_fd,
                  int *out_fd)
{
  int in[2], out[2];

  if (pipe2 (in, O_CLOEXEC) != 0 || pipe2 (out, O_CLOEXEC) != 0)
    die ("pipe");
  pid_t pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      char **argv = calloc ((size_t) n_args + 6, sizeof *argv);
      int k = 0;
      argv[k++] = (char *) path;
      argv[k++] = (char *) "--input-fd=7";
      argv[k++] = (char *) "--output-fd=8";
      for (int i = 0; i < n_args; i++)
        argv[k++] = args[i];
      /* Above 8 first: a pipe end may already be 7 or 8.  */
      int from_in = fcntl (in[0], F_DUPFD_CLOEXEC, 10);
      int to_out = fcntl (out[1], F_DUPFD_CLOEXEC, 10);
      if (from_in < 0 || to_out < 0 || dup2 (from_in, CHILD_IN_FD) < 0
          || dup2 (to_out, CHILD_OUT_FD) < 0)
        _exit (126);
      execv (path, argv);
      _exit (127);
    }
  close (in[0]);
  close (out[1]);
  *in_fd = in[1];
  *out_fd = out[0];
  return pid;
}

int
main (int argc, char **argv)
{
  uint32_t stack_size = 8192;
  const char *stacktrace = getenv ("STACKTRACE");
  const char *raw = NULL, *out_path = NULL;
  char **st_args = NULL, **prog = NULL;
  int n_st_args = 0, i;

  for (i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--stack-size") == 0 && i + 1 < argc)
        stack_size = (uint32_t) strtoul (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--stacktrace") == 0 && i + 1 < argc)
        stacktrace = argv[++i];
      else if (strcmp (argv[i], "--raw") == 0 && i + 1 < argc)
        raw = argv[++i];
      else if (strcmp (argv[i], "--out") == 0 && i + 1 < argc)
        out_path = argv[++i];
      else if (strcmp (argv[i], "--") == 0)
        {
          st_args = argv + i + 1;
          while (i + 1 < argc && strcmp (argv[i + 1], "--run") != 0)
            i++, n_st_args++;
        }
      else if (strcmp (argv[i], "--run") == 0 && i + 1 < argc)
        {
          prog = argv + i + 1;
          break;
        }
      else
        {
          fprintf (stderr, "usage: st-recorder [--stack-size N] "
                   "[--stacktrace PATH|none] [--raw FILE] [--out FILE] "
                   "[-- ARGS...] --run PROG [ARGS...]\n");
          return 1;
        }
    }
  if (prog == NULL)
    {
      fprintf (stderr, "st-recorder: no --run PROG\n");
      return 1;
    }
  if (stacktrace != NULL && strcmp (stacktrace, "none") == 0)
    stacktrace = NULL;
  signal (SIGPIPE, SIG_IGN);

  int go;
  pid_t workload = held_workload_fork (prog, &go);
  if (workload < 0)
    die ("fork");

  struct perf_event_attr attr;
  memset (&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = PERIOD_NS;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                     | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER
                     | PERF_SAMPLE_STACK_USER;
  attr.sample_regs_user = REGS_USER_X86_64;
  attr.sample_stack_user = stack_size;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.exclude_callchain_user = 0;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.wakeup_events = 1;

  Recorder r = { .raw_fd = -1, .out_fd = -1 };
  r.perf_fd = (int) syscall (SYS_perf_event_open, &attr, workload, -1, -1,
                             PERF_FLAG_FD_CLOEXEC);
  if (r.perf_fd < 0)
    {
      fprintf (stderr, "st-recorder: perf_event_open: %s\n",
               strerror (errno));
      kill (workload, SIGKILL);
      waitpid (workload, NULL, 0);
      return 77;
    }
  r.page = (size_t) sysconf (_SC_PAGESIZE);
  r.data_size = r.page << RING_ORDER;
  r.ring = mmap (NULL, r.page + r.data_size, PROT_READ | PROT_WRITE,
                 MAP_SHARED, r.perf_fd, 0);
  if (r.ring == MAP_FAILED)
    die ("mmap of the ring buffer");

  if (raw != NULL
      && (r.raw_fd = open (raw, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                           0644)) < 0)
    die (raw);
  int st_out = -1;
  pid_t st_pid = -1;
  if (stacktrace != NULL)
    st_pid = spawn_stacktrace (stacktrace, st_args, n_st_args, &r.out_fd,
                               &st_out);
  int out_file = -1;
  if (out_path != NULL
      && (out_file = open (out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                           0644)) < 0)
    die (out_path);

  emit_header (&r, &attr);
  int pidfd = pidfd_of (workload);
  if (pidfd < 0)
    die ("pidfd_open");
  if (!held_workload_go (go))
    die ("starting the workload");

  /* Record until the workload is gone, copying stacktrace's output as
     it comes (a full output pipe would stall it, and then us).  */
  bool running = true, st_open = st_out >= 0;
  uint8_t buf[65536];
  while (running || st_open)
    {
      struct pollfd fds[3] = {
        { running ? r.perf_fd : -1, POLLIN, 0 },
        { running ? pidfd : -1, POLLIN, 0 },
        { st_open ? st_out : -1, POLLIN, 0 },
      };
      if (poll (fds, 3, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          die ("poll");
        }
      if (running)
        drain (&r);
      if (running && (fds[1].revents & (POLLIN | POLLHUP)))
        {
          int status;
          waitpid (workload, &status, 0);
          drain (&r);
          running = false;
          if (r.out_fd >= 0)
            close (r.out_fd);
          r.out_fd = -1;
          if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
            {
              fprintf (stderr, "st-recorder: the workload failed\n");
              return 1;
            }
        }
      if (st_open && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          ssize_t n = read (st_out, buf, sizeof buf);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            die ("reading stacktrace's output");
          if (n == 0)
            st_open = false;
          else if (out_file >= 0)
            write_all (out_file, buf, (size_t) n);
        }
    }

  int status = 0;
  if (st_pid > 0)
    {
      waitpid (st_pid, &status, 0);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        {
          fprintf (stderr, "st-recorder: stacktrace failed (status %d)\n",
                   status);
          return 1;
        }
    }
  if (r.raw_fd >= 0)
    close (r.raw_fd);
  if (out_file >= 0)
    close (out_file);
  return 0;
}
