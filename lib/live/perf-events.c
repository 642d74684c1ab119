/* The perf events of stacktrace --record; see perf-events.h.  */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live/perf-events.h"
#include "util/domain.h"

/* The user registers the unwinder reads, in perf's numbering for the
   build's architecture: what perf's dwarf mode asks for.  */
#if defined(__x86_64__)
/* AX..IP (0-8) and R8..R15 (16-23).  */
# define REGS_USER 0xff01ffull
#elif defined(__aarch64__)
/* X0..X30, SP, PC (0-32).  */
# define REGS_USER ((1ull << 33) - 1)
#elif defined(__i386__)
/* AX..IP (0-8).  */
# define REGS_USER 0x1ffull
#else
# define REGS_USER 0ull
#endif

/* A record beside its stack copy: header, fields, registers, the
   kernel's call chain (a few dozen entries).  */
#define SAMPLE_OVERHEAD 768

typedef struct
{
  const char *name;
  uint32_t type;
  uint64_t config;
} EventName;

static const EventName events[] = {
  { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
  { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
  { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
  { "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
  { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

const char *
st_perf_events_names (void)
{
  return "cpu-clock (default), task-clock, cycles, instructions";
}

gboolean
st_perf_events_attr (StPerfEventAttr *attr, const StPerfEventsSpec *spec,
                     GError **error)
{
  const char *name = spec->event != NULL ? spec->event : "cpu-clock";
  const EventName *e = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    if (strcmp (events[i].name, name) == 0)
      e = &events[i];
  if (e == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown event '%s' for -e (expected %s)", name,
                   st_perf_events_names ());
      return FALSE;
    }
  memset (attr, 0, sizeof *attr);
  attr->type = e->type;
  attr->size = sizeof *attr;
  attr->config = e->config;
  attr->sample_type = ST_PERF_EVENTS_SAMPLE_TYPE;
  attr->flags = ST_PERF_ATTR_FLAG_DISABLED | ST_PERF_ATTR_FLAG_MMAP
                | ST_PERF_ATTR_FLAG_COMM | ST_PERF_ATTR_FLAG_TASK
                | ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2
                | ST_PERF_ATTR_FLAG_COMM_EXEC
                | ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER
                | ST_PERF_EVENTS_FLAG_USE_CLOCKID;
  /* No build-ids in MMAP2 (attr.build_id), though the reader takes
     them: Linux (seen on 6.18) then leaves PERF_RECORD_MISC_MMAP_BUILD_ID
     set in the MMAP2 records it gives the other perf sessions watching
     the same mapping, whose inode fields perf then reads as a build-id
     (perf 6.1: "assertion failed at util/build-id.c", and a crash): a
     perf record running beside us would be damaged.  The files are
     found and checked by path and inode, as for the Sysprof mode.  */
  if (spec->build_id)
    attr->flags |= ST_PERF_EVENTS_FLAG_BUILD_ID;
  if (spec->inherit)
    attr->flags |= ST_PERF_ATTR_FLAG_INHERIT;
  if (spec->enable_on_exec)
    attr->flags |= ST_PERF_EVENTS_FLAG_ENABLE_ON_EXEC;
  if (spec->period > 0)
    attr->sample_period = spec->period;
  else
    {
      attr->flags |= ST_PERF_EVENTS_FLAG_FREQ;
      attr->sample_period = spec->freq > 0 ? spec->freq
                                           : ST_PERF_EVENTS_DEFAULT_FREQ;
    }
  attr->clockid = CLOCK_MONOTONIC;
  attr->sample_regs_user = REGS_USER;
  attr->sample_stack_user = spec->stack_size;
  return TRUE;
}

static const char *
event_name (const StPerfEventAttr *attr)
{
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    if (events[i].type == attr->type && events[i].config == attr->config)
      return events[i].name;
  return "?";
}

int
st_perf_events_paranoid (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/perf_event_paranoid", &text,
                            NULL, NULL))
    return G_MININT;
  return atoi (text);
}

static void
set_open_error (const StPerfEventAttr *attr, int pid, int cpu, int err,
                GError **error)
{
  g_autofree char *where = NULL;

  if (pid == -1)
    where = g_strdup_printf ("on CPU %d, system-wide", cpu);
  else if (cpu == -1)
    where = g_strdup_printf ("for pid %d", pid);
  else
    where = g_strdup_printf ("for pid %d on CPU %d", pid, cpu);
  switch (err)
    {
    case EACCES:
    case EPERM:
      {
        int paranoid = st_perf_events_paranoid ();
        g_autofree char *value = paranoid == G_MININT
                                 ? g_strdup ("unreadable")
                                 : g_strdup_printf ("%d", paranoid);
        g_set_error (error, ST_ERROR, ST_ERROR_IO,
                     "not allowed to open the perf event %s %s (%s): "
                     "kernel.perf_event_paranoid is %s; run as root or with "
                     "CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8), or lower "
                     "it (sysctl kernel.perf_event_paranoid=1 lets a user "
                     "record their own processes, 0 or less the whole "
                     "system with -a)", event_name (attr), where,
                     g_strerror (err), value);
        return;
      }
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      if (attr->type == PERF_TYPE_HARDWARE)
        {
          g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                       "the event %s is not available %s (%s): this CPU's "
                       "PMU does not count it (a virtual machine often has "
                       "no PMU); -e cpu-clock works everywhere",
                       event_name (attr), where, g_strerror (err));
          return;
        }
      break;
    case ENOSYS:
      g_set_error (error, ST_ERROR, ST_ERROR_UNSUPPORTED,
                   "cannot open the perf event %s %s: this system has no "
                   "perf_event_open (a kernel without CONFIG_PERF_EVENTS, "
                   "an emulator such as qemu-user, or a seccomp filter)",
                   event_name (attr), where);
      return;
    case ESRCH:
      g_set_error (error, ST_ERROR, ST_ERROR_IO,
                   "cannot open the perf event %s: no such process",
                   where);
      return;
    case EMFILE:
    case ENFILE:
      g_set_error (error, ST_ERROR, ST_ERROR_IO,
                   "cannot open the perf event %s: %s (one is opened per "
                   "CPU and thread: raise ulimit -n)", where,
                   g_strerror (err));
      return;
    default:
      break;
    }
  g_set_error (error, ST_ERROR, ST_ERROR_IO,
               "cannot open the perf event %s %s: %s", event_name (attr),
               where, g_strerror (err));
}

int
st_perf_events_open (StPerfEventAttr *attr, int pid, int cpu,
                     uint64_t *fallbacks, GError **error)
{
  /* The kernel's struct may be larger than ours: zeroes past it.  */
  union
  {
    struct perf_event_attr kernel;
    uint8_t bytes[MAX (sizeof (struct perf_event_attr),
                       sizeof (StPerfEventAttr))];
  } buf;
  const uint64_t user_only = ST_PERF_EVENTS_FLAG_EXCLUDE_KERNEL
                             | ST_PERF_EVENTS_FLAG_EXCLUDE_HV;

  for (;;)
    {
      long fd;
      int err;

      memset (&buf, 0, sizeof buf);
      memcpy (buf.bytes, attr, sizeof *attr);
      fd = syscall (SYS_perf_event_open, &buf.kernel, pid, cpu, -1,
                    PERF_FLAG_FD_CLOEXEC);
      if (fd >= 0)
        return (int) fd;
      err = errno;
      /* Linux < 5.12 has no build-ids in MMAP2: paths and inodes.  */
      if (err == EINVAL && (attr->flags & ST_PERF_EVENTS_FLAG_BUILD_ID))
        {
          attr->flags &= ~ST_PERF_EVENTS_FLAG_BUILD_ID;
          if (fallbacks != NULL)
            *fallbacks |= ST_PERF_EVENTS_FLAG_BUILD_ID;
          continue;
        }
      /* perf_event_paranoid 2: user space only (perf's :u).  */
      if ((err == EACCES || err == EPERM)
          && (attr->flags & user_only) != user_only)
        {
          attr->flags |= user_only;
          if (fallbacks != NULL)
            *fallbacks |= user_only;
          continue;
        }
      set_open_error (attr, pid, cpu, err, error);
      return -1;
    }
}

int *
st_perf_events_online_cpus (guint *n, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GArray) cpus = g_array_new (FALSE, FALSE, sizeof (int));
  char *p;

  if (!g_file_get_contents ("/sys/devices/system/cpu/online", &text, NULL,
                            error))
    return NULL;
  p = text;
  while (*p != '\0' && *p != '\n')
    {
      char *end;
      long first = strtol (p, &end, 10), last = first;

      if (end == p || first < 0)
        goto bad;
      p = end;
      if (*p == '-')
        {
          last = strtol (p + 1, &end, 10);
          if (end == p + 1 || last < first || last - first > 65536)
            goto bad;
          p = end;
        }
      for (long c = first; c <= last; c++)
        {
          int cpu = (int) c;
          g_array_append_val (cpus, cpu);
        }
      if (*p == ',')
        p++;
    }
  if (cpus->len == 0)
    goto bad;
  *n = cpus->len;
  return (int *) g_array_free (g_steal_pointer (&cpus), FALSE);

bad:
  g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
               "/sys/devices/system/cpu/online: cannot read the CPU list "
               "'%s'", g_strchomp (text));
  return NULL;
}

guint
st_perf_events_ring_pages (uint64_t rate, uint32_t stack_size,
                           long page_size)
{
  uint64_t bytes, pages = 8;

  if (rate == 0 || page_size <= 0)
    return 0;
  bytes = rate * ((uint64_t) stack_size + SAMPLE_OVERHEAD) / 2;
  while (pages < 2048 && pages * (uint64_t) page_size < bytes)
    pages *= 2;
  return (guint) pages;
}
