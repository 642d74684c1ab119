/* A client of the live unwinder written from what Sysprof 48 does (the
   facts in doc/FORMATS, "Sysprof 48's live unwinder"): one perf event
   per CPU with Sysprof's attribute (cpu-clock, 1 ms; IDENTIFIER, IP,
   TID, TIME, CALLCHAIN, REGS_USER, STACK_USER; sample_id_all; mmap,
   mmap2, comm, task; disabled), an eventfd, a pipe; the unwinder spawned
   with Sysprof's argv (fds from 3 on); the events enabled; a workload
   run; the eventfd written; the capture read to its end, saved to a file
   (libsysprof-capture's reader needs pread) and checked with
   libsysprof-capture.

   live-client [--system-wide] [--argv0 NAME] [--stack-size N]
               [--hang-up] [--status FILE] --stacktrace PATH --capture FILE
               [--st-arg ARG]... -- PROG [ARGS...]

   Without --system-wide the events follow the workload only (pid and
   its threads).  PROG must be uses-lib (tests/progs): its samples in
   st_lib_leaf must all come with the whole path
   st_lib_leaf, st_lib_inner, st_lib_outer, st_call_lib, main, ...,
   _start.  With --hang-up the client closes the capture pipe after its
   first read, and only the unwinder's exit (0, not by a signal) is
   checked.  With --sysprof48-reader it reads the capture as Sysprof
   48.0's client does (its muxer source: each time the pipe is readable,
   read what it holds into a 64 KiB buffer and pass on one frame; at the
   stop, close the pipe and drop what the buffer holds).  With
   --late-workload the workload execs after the unwinder's walk of /proc
   and before the events are enabled.  With --status FILE, the
   unwinder's /proc/PID/status is copied to FILE once it shows the
   seccomp filter (at most 10 s after the workload ended), before the
   stop.  Prints the figures.  Exit status 0, 1 (a failure, said on
   stderr), 77 (perf events not allowed here).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glib.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <sysprof-capture.h>
#include <time.h>
#include <unistd.h>

#include "held-workload.h"
#include "sysprof48-reader.h"

#define PERIOD_NS 1000000
#define REGS_X86_64 0xff01ffULL   /* AX BX CX DX SI DI BP SP IP R8-R15 */
#define CONTEXT_USER ((uint64_t) -512)
#define LOST_PREFIX "Lost "
#define LOST_SUFFIX " samples"

static const char *const work_path[] = {
  "st_lib_leaf", "st_lib_inner", "st_lib_outer", "st_call_lib", "main",
};

static int64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --status: PID's status once its seccomp filter is in (the last layer
   of the sandbox; integration/sandbox.sh), else as it is after 10 s.  */
static gboolean
copy_status (pid_t pid, const char *to)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;

  for (int i = 0; i < 1000; i++)
    {
      g_clear_pointer (&text, g_free);
      if (!g_file_get_contents (path, &text, NULL, NULL))
        return FALSE;
      if (strstr (text, "\nSeccomp:\t2\n") != NULL)
        break;
      g_usleep (10000);
    }
  return g_file_set_contents (to, text, -1, NULL);
}

static int
open_event (pid_t pid, int cpu, uint32_t stack_size)
{
  struct perf_event_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = PERIOD_NS;
  attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP
                     | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                     | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER
                     | PERF_SAMPLE_STACK_USER;
  attr.sample_regs_user = REGS_X86_64;
  attr.sample_stack_user = stack_size;
  attr.disabled = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.exclude_idle = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.wakeup_events = 149;
  attr.inherit = pid != -1;
  return (int) syscall (SYS_perf_event_open, &attr, pid, cpu, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

/* The capture pipe, copied to a file as it comes.  */
typedef struct
{
  int in;
  int out;
  uint64_t bytes;
  gboolean hang_up;            /* close the pipe after the first read */
  gboolean muxer;              /* read as Sysprof 48's client does */
  int stop[2];                 /* muxer: the stop, from the main thread */
  uint64_t frames_passed;
  uint64_t frames_dropped;     /* whole frames in the buffer at the stop */
  gboolean failed;             /* muxer: writing the file failed */
} Copier;

static void
header_to_file (const uint8_t *data, size_t len, void *user)
{
  Copier *c = user;

  /* The file header goes to the file as it is (Sysprof writes its own);
     the reader skips it.  */
  if (c->bytes < 256 && write (c->out, data, MIN (len, 256 - c->bytes)) < 0)
    c->failed = TRUE;
  c->bytes += (uint64_t) len;
}

static void
frame_to_file (const uint8_t *data, size_t len, void *user)
{
  Copier *c = user;

  if (write (c->out, data, len) != (ssize_t) len)
    c->failed = TRUE;
  c->frames_passed++;
}

/* Sysprof 48.0's reading (tests/lib/sysprof48-reader.h) until the stop;
   then the pipe closed and the buffer dropped.  */
static void
muxer_capture (Copier *c)
{
  g_autofree Sysprof48Reader *r = g_new (Sysprof48Reader, 1);

  sysprof48_reader_init (r);
  while (!c->failed)
    {
      struct pollfd pfd[2] = { { c->in, POLLIN, 0 }, { c->stop[0], POLLIN, 0 } };

      if (poll (pfd, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (pfd[1].revents)
        break;
      if (sysprof48_reader_wake (r, c->in, header_to_file, frame_to_file, c)
          <= 0)
        break;
    }
  c->frames_dropped = sysprof48_reader_held_frames (r);
}

static void *
copy_capture (void *data)
{
  Copier *c = data;
  char buf[65536];
  ssize_t n;

  if (c->muxer)
    {
      muxer_capture (c);
      close (c->in);
      return NULL;
    }
  while ((n = read (c->in, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      {
        if (write (c->out, buf, (size_t) n) != n)
          break;
        __atomic_fetch_add (&c->bytes, (uint64_t) n, __ATOMIC_RELAXED);
        if (c->hang_up)
          break;
      }
  /* The client gone: the unwinder's next write fails with EPIPE.  */
  close (c->in);
  return NULL;
}

/* --late-workload: the workload execs after the unwinder's walk of
   /proc (the capture has begun: the walk is done) and before the events
   are enabled, as a process Sysprof starts may: the stream has no record
   of its exec or of ld.so's mappings.  Waits (bounded) on the capture
   and on the workload's maps, not on time.  */
static gboolean
late_start (const Copier *c, pid_t workload, int go)
{
  g_autofree char *maps_path = g_strdup_printf ("/proc/%d/maps", (int) workload);

  for (int i = 0; i < 30000 && __atomic_load_n (&c->bytes, __ATOMIC_RELAXED) == 0; i++)
    g_usleep (1000);
  if (__atomic_load_n (&c->bytes, __ATOMIC_RELAXED) == 0
      || !held_workload_go (go))
    {
      fprintf (stderr, "live-client: no capture from the unwinder\n");
      return FALSE;
    }
  for (int i = 0; i < 30000; i++)
    {
      g_autofree char *maps = NULL;
      if (g_file_get_contents (maps_path, &maps, NULL, NULL)
          && strstr (maps, "libstcallee") != NULL)
        return TRUE;
      g_usleep (1000);
    }
  fprintf (stderr, "live-client: the workload did not load its library\n");
  return FALSE;
}

/* Function symbols of the files the workload maps, by file name.  */
typedef struct
{
  uint64_t lo, hi;
  char *name;
} Sym;

typedef struct
{
  GArray *syms;                  /* Sym */
  GArray *loads;                 /* {offset, vaddr, filesz} triples */
} FileSyms;

typedef struct
{
  uint64_t start, end, offset;
  FileSyms *file;
  char *filename;
} MapEntry;

static FileSyms *
load_syms (const char *path)
{
  FileSyms *f = g_new0 (FileSyms, 1);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  Elf *elf;
  Elf_Scn *scn = NULL;
  size_t n_ph;

  f->syms = g_array_new (FALSE, FALSE, sizeof (Sym));
  f->loads = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  if (fd < 0)
    return f;
  elf_version (EV_CURRENT);
  elf = elf_begin (fd, ELF_C_READ, NULL);
  if (elf != NULL && elf_getphdrnum (elf, &n_ph) == 0)
    for (size_t i = 0; i < n_ph; i++)
      {
        GElf_Phdr ph;
        if (gelf_getphdr (elf, (int) i, &ph) != NULL && ph.p_type == PT_LOAD)
          {
            uint64_t v[3] = { ph.p_offset, ph.p_vaddr, ph.p_filesz };
            g_array_append_vals (f->loads, v, 3);
          }
      }
  while (elf != NULL && (scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      Elf_Data *d;

      if (gelf_getshdr (scn, &sh) == NULL
          || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
          || (d = elf_getdata (scn, NULL)) == NULL)
        continue;
      for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++)
        {
          GElf_Sym s;
          if (gelf_getsym (d, (int) i, &s) == NULL
              || GELF_ST_TYPE (s.st_info) != STT_FUNC || s.st_value == 0)
            continue;
          Sym sym = { s.st_value, s.st_value + MAX (s.st_size, 1),
                      g_strdup (elf_strptr (elf, sh.sh_link, s.st_name)) };
          g_array_append_val (f->syms, sym);
        }
    }
  if (elf != NULL)
    elf_end (elf);
  close (fd);
  return f;
}

static void
free_syms (gpointer data)
{
  FileSyms *f = data;

  for (guint i = 0; i < f->syms->len; i++)
    g_free (g_array_index (f->syms, Sym, i).name);
  g_array_free (f->syms, TRUE);
  g_array_free (f->loads, TRUE);
  g_free (f);
}

static void
clear_map (gpointer data)
{
  g_free (((MapEntry *) data)->filename);
}

static const char *
lookup (GArray *maps, uint64_t addr)
{
  for (guint i = 0; i < maps->len; i++)
    {
      MapEntry *m = &g_array_index (maps, MapEntry, i);
      if (addr < m->start || addr >= m->end)
        continue;
      uint64_t off = addr - m->start + m->offset;
      for (guint j = 0; j + 2 < m->file->loads->len; j += 3)
        {
          uint64_t *l = &g_array_index (m->file->loads, uint64_t, j);
          if (off < l[0] || off >= l[0] + l[2])
            continue;
          uint64_t vaddr = off - l[0] + l[1];
          for (guint k = 0; k < m->file->syms->len; k++)
            {
              Sym *s = &g_array_index (m->file->syms, Sym, k);
              if (vaddr >= s->lo && vaddr < s->hi)
                return s->name;
            }
        }
      return "?";
    }
  return "??";
}

typedef struct
{
  uint64_t samples;          /* SAMPLE frames of the workload */
  uint64_t in_work;          /* whose leaf is st_lib_leaf */
  uint64_t work_whole;       /* of those, with the whole path */
  uint64_t to_start;         /* all workload samples ending at _start */
  uint64_t lost_events;      /* from LOG frames */
  uint64_t all_samples;
  uint64_t processes, maps, mount_chunks;
  gboolean counters;
  char *first_bad;
} Check;

static void
check_sample (Check *c, GArray *maps, const SysprofCaptureSample *s)
{
  guint u = 0;
  guint n;

  while (u < s->n_addrs && s->addrs[u] != CONTEXT_USER)
    u++;
  if (u == s->n_addrs)
    return;    /* no user part */
  u++;
  n = s->n_addrs - u;
  c->samples++;
  if (n > 0 && strcmp (lookup (maps, s->addrs[s->n_addrs - 1]), "_start") == 0)
    c->to_start++;
  if (n == 0 || strcmp (lookup (maps, s->addrs[u]), "st_lib_leaf") != 0)
    return;
  c->in_work++;
  gboolean ok = n >= G_N_ELEMENTS (work_path) + 1
                && strcmp (lookup (maps, s->addrs[s->n_addrs - 1]), "_start") == 0;
  for (guint i = 0; ok && i < G_N_ELEMENTS (work_path); i++)
    ok = strcmp (lookup (maps, s->addrs[u + i]), work_path[i]) == 0;
  if (ok)
    {
      c->work_whole++;
      return;
    }
  if (c->first_bad == NULL)
    {
      GString *str = g_string_new (NULL);
      for (guint i = u; i < s->n_addrs; i++)
        g_string_append_printf (str, "%s%s", i > u ? ";" : "",
                                lookup (maps, s->addrs[i]));
      c->first_bad = g_string_free (str, FALSE);
    }
}

static gboolean
read_capture (const char *path, pid_t workload, Check *c)
{
  SysprofCaptureReader *r = sysprof_capture_reader_new (path);
  g_autoptr (GArray) maps = g_array_new (FALSE, TRUE, sizeof (MapEntry));
  g_autoptr (GHashTable) files = g_hash_table_new_full (g_str_hash,
                                                        g_str_equal, g_free,
                                                        free_syms);
  SysprofCaptureFrameType type;

  if (r == NULL)
    {
      fprintf (stderr, "live-client: libsysprof-capture cannot open %s\n", path);
      return FALSE;
    }
  while (sysprof_capture_reader_peek_type (r, &type))
    {
      switch (type)
        {
        case SYSPROF_CAPTURE_FRAME_MAP:
          {
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (r);
            if (m == NULL)
              goto bad;
            c->maps++;
            if (m->frame.pid != workload || m->filename[0] != '/')
              break;
            FileSyms *f = g_hash_table_lookup (files, m->filename);
            if (f == NULL)
              {
                f = load_syms (m->filename);
                g_hash_table_insert (files, g_strdup (m->filename), f);
              }
            MapEntry e = { m->start, m->end, m->offset, f,
                           g_strdup (m->filename) };
            g_array_append_val (maps, e);
            break;
          }
        case SYSPROF_CAPTURE_FRAME_SAMPLE:
          {
            const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (r);
            if (s == NULL)
              goto bad;
            c->all_samples++;
            if (s->frame.pid == workload)
              check_sample (c, maps, s);
            break;
          }
        case SYSPROF_CAPTURE_FRAME_LOG:
          {
            const SysprofCaptureLog *l = sysprof_capture_reader_read_log (r);
            char *end;
            if (l == NULL)
              goto bad;
            if (!g_str_has_prefix (l->message, LOST_PREFIX))
              break;
            uint64_t n = g_ascii_strtoull (l->message + strlen (LOST_PREFIX),
                                           &end, 10);
            if (strcmp (l->domain, "Sampler") == 0
                && strcmp (end, LOST_SUFFIX) == 0)
              c->lost_events += n;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_PROCESS:
          if (sysprof_capture_reader_read_process (r) == NULL)
            goto bad;
          c->processes++;
          break;
        case SYSPROF_CAPTURE_FRAME_FILE_CHUNK:
          {
            const SysprofCaptureFileChunk *f = sysprof_capture_reader_read_file (r);
            if (f == NULL)
              goto bad;
            if (strstr (f->path, "mount") != NULL)
              c->mount_chunks++;
            break;
          }
        case SYSPROF_CAPTURE_FRAME_CTRDEF:
          {
            const SysprofCaptureCounterDefine *d = sysprof_capture_reader_read_counter_define (r);
            if (d == NULL)
              goto bad;
            for (guint i = 0; i < d->n_counters; i++)
              if (strcmp (d->counters[i].name, "Success rate") == 0)
                c->counters = TRUE;
            break;
          }
        default:
          if (!sysprof_capture_reader_skip (r))
            goto bad;
          break;
        }
    }
  sysprof_capture_reader_unref (r);
  g_array_set_clear_func (maps, clear_map);
  return TRUE;

bad:
  fprintf (stderr, "live-client: libsysprof-capture stopped reading %s "
           "(frame type %d)\n", path, (int) type);
  sysprof_capture_reader_unref (r);
  g_array_set_clear_func (maps, clear_map);
  return FALSE;
}

int
main (int argc, char **argv)
{
  gboolean system_wide = FALSE, hang_up = FALSE, muxer = FALSE;
  gboolean late = FALSE;
  const char *argv0 = NULL, *stacktrace = NULL, *capture = NULL;
  const char *status_file = NULL;
  int stack_size = 16384;
  g_autoptr (GPtrArray) st_args = g_ptr_array_new ();
  int i;

  for (i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    {
      if (strcmp (argv[i], "--system-wide") == 0)
        system_wide = TRUE;
      else if (strcmp (argv[i], "--hang-up") == 0)
        hang_up = TRUE;
      else if (strcmp (argv[i], "--sysprof48-reader") == 0)
        muxer = TRUE;
      else if (strcmp (argv[i], "--late-workload") == 0)
        late = TRUE;
      else if (strcmp (argv[i], "--argv0") == 0 && i + 1 < argc)
        argv0 = argv[++i];
      else if (strcmp (argv[i], "--stack-size") == 0 && i + 1 < argc)
        stack_size = atoi (argv[++i]);
      else if (strcmp (argv[i], "--stacktrace") == 0 && i + 1 < argc)
        stacktrace = argv[++i];
      else if (strcmp (argv[i], "--capture") == 0 && i + 1 < argc)
        capture = argv[++i];
      else if (strcmp (argv[i], "--status") == 0 && i + 1 < argc)
        status_file = argv[++i];
      else if (strcmp (argv[i], "--st-arg") == 0 && i + 1 < argc)
        g_ptr_array_add (st_args, argv[++i]);
      else
        {
          fprintf (stderr, "live-client: unknown argument %s\n", argv[i]);
          return 1;
        }
    }
  if (i + 1 >= argc || stacktrace == NULL || capture == NULL)
    {
      fprintf (stderr, "usage: live-client [--system-wide] [--argv0 NAME] "
               "[--hang-up | --sysprof48-reader] [--late-workload] "
               "[--status FILE] --stacktrace PATH "
               "--capture FILE -- PROG [ARGS]\n");
      return 1;
    }
  char **workload_argv = argv + i + 1;

  /* The workload, waiting for the go before it execs.  */
  int go;
  pid_t workload = held_workload_fork (workload_argv, &go);
  if (workload < 0)
    return 1;

  int n_cpus = get_nprocs ();
  g_autofree int *perf_fds = g_new (int, n_cpus);
  for (int cpu = 0; cpu < n_cpus; cpu++)
    {
      perf_fds[cpu] = open_event (system_wide ? -1 : workload, cpu,
                                  (uint32_t) stack_size);
      if (perf_fds[cpu] < 0)
        {
          int err = errno;
          fprintf (stderr, "live-client: perf_event_open (CPU %d%s): %s\n",
                   cpu, system_wide ? ", system-wide" : "", strerror (err));
          kill (workload, SIGKILL);
          waitpid (workload, NULL, 0);
          return err == EACCES || err == EPERM || err == ENOENT
                 || err == ENODEV || err == EOPNOTSUPP ? 77 : 1;
        }
    }
  int event_fd = eventfd (0, EFD_CLOEXEC);
  int cap[2];
  if (event_fd < 0 || pipe2 (cap, O_CLOEXEC) != 0)
    return 1;

  /* Sysprof's argv, with the fds where sysprofd puts them: the eventfd
     at 3, the perf events from 4, the capture after them.  */
  g_autoptr (GPtrArray) av = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (av, g_strdup (argv0 != NULL ? argv0 : stacktrace));
  g_ptr_array_add (av, g_strdup_printf ("--stack-size=%d", stack_size));
  g_ptr_array_add (av, g_strdup ("--event-fd=3"));
  for (int cpu = 0; cpu < n_cpus; cpu++)
    g_ptr_array_add (av, g_strdup_printf ("--perf-fd=%d:%d", 4 + cpu, cpu));
  g_ptr_array_add (av, g_strdup_printf ("--capture-fd=%d", 4 + n_cpus));
  for (guint k = 0; k < st_args->len; k++)
    g_ptr_array_add (av, g_strdup (st_args->pdata[k]));
  g_ptr_array_add (av, NULL);

  pid_t st = fork ();
  if (st == 0)
    {
      /* Out of the way of 3.., then in place (dup2 clears CLOEXEC).  */
      int high = 100 + n_cpus;
      int ev = fcntl (event_fd, F_DUPFD_CLOEXEC, high);
      int cp = fcntl (cap[1], F_DUPFD_CLOEXEC, high);
      int *pf = g_new (int, n_cpus);
      for (int cpu = 0; cpu < n_cpus; cpu++)
        pf[cpu] = fcntl (perf_fds[cpu], F_DUPFD_CLOEXEC, high);
      int null = open ("/dev/null", O_RDONLY);
      dup2 (null, 0);
      dup2 (ev, 3);
      for (int cpu = 0; cpu < n_cpus; cpu++)
        dup2 (pf[cpu], 4 + cpu);
      dup2 (cp, 4 + n_cpus);
      execv (stacktrace, (char **) av->pdata);
      _exit (127);
    }
  close (cap[1]);

  int out = open (capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    return 1;
  Copier copier = { cap[0], out, 0, hang_up, muxer, { -1, -1 }, 0, 0, FALSE };
  if (muxer && pipe2 (copier.stop, O_CLOEXEC) != 0)
    return 1;
  pthread_t copier_thread;
  pthread_create (&copier_thread, NULL, copy_capture, &copier);

  if (late && !late_start (&copier, workload, go))
    return 1;
  for (int cpu = 0; cpu < n_cpus; cpu++)
    ioctl (perf_fds[cpu], PERF_EVENT_IOC_ENABLE, 0);
  if (!late && !held_workload_go (go))
    return 1;

  int wstatus;
  struct rusage ru;
  if (wait4 (workload, &wstatus, 0, &ru) != workload
      || !WIFEXITED (wstatus) || WEXITSTATUS (wstatus) != 0)
    {
      fprintf (stderr, "live-client: the workload failed (status %#x)\n",
               wstatus);
      return 1;
    }
  double cpu_ms = (double) ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3
                  + (double) ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;

  if (status_file != NULL && !copy_status (st, status_file))
    {
      fprintf (stderr, "live-client: cannot copy the unwinder's status\n");
      return 1;
    }
  /* Stop as Sysprof does: a u64 into the eventfd.  */
  uint64_t one = 1;
  int64_t stop = now_ns ();
  if (write (event_fd, &one, sizeof one) != sizeof one)
    return 1;
  /* Sysprof 48 destroys its muxer right after: the pipe closed.  */
  if (muxer && write (copier.stop[1], "", 1) != 1)
    return 1;
  for (int cpu = 0; cpu < n_cpus; cpu++)
    ioctl (perf_fds[cpu], PERF_EVENT_IOC_DISABLE, 0);
  struct rusage st_ru;
  if (wait4 (st, &wstatus, 0, &st_ru) != st)
    return 1;
  int64_t exited = now_ns ();
  pthread_join (copier_thread, NULL);
  close (out);

  if (hang_up)
    {
      printf ("live-client: capture closed after %" PRIu64 " bytes; "
              "unwinder exit %s %d, %.1f ms from stop to exit\n",
              copier.bytes, WIFEXITED (wstatus) ? "status" : "by signal",
              WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : WTERMSIG (wstatus),
              (double) (exited - stop) / 1e6);
      return WIFEXITED (wstatus) && WEXITSTATUS (wstatus) == 0 ? 0 : 1;
    }
  if (muxer)
    printf ("live-client: read as Sysprof 48: %" PRIu64 " frames handed on, "
            "%" PRIu64 " dropped at the stop\n", copier.frames_passed,
            copier.frames_dropped);
  Check c = { 0 };
  gboolean ok = read_capture (capture, workload, &c);
  double st_cpu_ms = (double) st_ru.ru_utime.tv_sec * 1e3 + st_ru.ru_utime.tv_usec / 1e3
                     + (double) st_ru.ru_stime.tv_sec * 1e3 + st_ru.ru_stime.tv_usec / 1e3;
  printf ("live-client: %s; workload %.0f ms CPU (%.0f samples expected); "
          "capture %" PRIu64 " bytes: %" PRIu64 " samples in all, %" PRIu64
          " of the workload, %" PRIu64 " in st_lib_leaf of which %" PRIu64
          " with the whole path, %" PRIu64 " unwound to _start; %" PRIu64
          " events lost (LOG frames); %" PRIu64 " PROCESS, %" PRIu64 " MAP, %"
          PRIu64 " mount FILE_CHUNK frames; counters %s\n",
          system_wide ? "system-wide" : "workload only", cpu_ms,
          cpu_ms * 1e6 / PERIOD_NS, copier.bytes, c.all_samples, c.samples,
          c.in_work, c.work_whole, c.to_start, c.lost_events, c.processes,
          c.maps, c.mount_chunks, c.counters ? "yes" : "no");
  printf ("live-client: unwinder exit %s %d, %.1f ms from stop to exit, "
          "%.0f ms CPU (%.3f ms per capture sample), peak RSS %ld MiB\n",
          WIFEXITED (wstatus) ? "status" : "by signal",
          WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : WTERMSIG (wstatus),
          (double) (exited - stop) / 1e6, st_cpu_ms,
          c.all_samples ? st_cpu_ms / (double) c.all_samples : 0.0,
          st_ru.ru_maxrss / 1024);

  g_autofree char *first_bad = c.first_bad;
  if (!ok)
    return 1;
  if (!WIFEXITED (wstatus) || WEXITSTATUS (wstatus) != 0)
    {
      fprintf (stderr, "live-client: the unwinder did not exit 0\n");
      return 1;
    }
  if (c.work_whole != c.in_work || c.in_work == 0)
    {
      fprintf (stderr, "live-client: %" PRIu64 " of %" PRIu64 " samples in "
               "st_lib_leaf with the whole path; the first without: %s\n",
               c.work_whole, c.in_work,
               c.first_bad != NULL ? c.first_bad : "(none)");
      return 1;
    }
  /* CPU time, not wall time, makes the samples: every one of them is in
     the capture or counted as lost (some slack for the timer).  */
  if ((double) (c.samples + c.lost_events) < 0.7 * cpu_ms * 1e6 / PERIOD_NS)
    {
      fprintf (stderr, "live-client: %" PRIu64 " samples and %" PRIu64
               " lost, for %.0f ms of CPU time\n", c.samples, c.lost_events,
               cpu_ms);
      return 1;
    }
  if (!c.counters || c.mount_chunks == 0 || c.processes == 0)
    {
      fprintf (stderr, "live-client: no counters, mount tables or "
               "processes in the capture\n");
      return 1;
    }
  return 0;
}
