/* perf.data output from a Sysprof capture: one synthesized attribute
   (see make_attr) and a record per frame that has a perf counterpart;
   the others are reported by the caller as having none.  */
#include "config.h"

#include <string.h>
#include <sys/mman.h>

#include "format/capture-types.h"
#include "format/perf-from-capture.h"
#include "format/perf-writer.h"
#include "format/unwound-chain.h"

/* A capture is time-ordered: a FINISHED_ROUND this often lets perf
   process the records as they come instead of sorting them all.  */
#define ROUND_RECORDS 4096

/* The sample id of the synthesized attribute.  */
#define CAPTURE_ATTR_ID 1

/* Threads whose name was written, at most: past it the table starts
   again (a thread then gets its COMM once more: no harm).  */
#define NAMED_THREADS_MAX 65536

typedef struct
{
  StPerfWriter *writer;
  gboolean unwinding;
  uint64_t sample_type;
  gboolean raw_stacks;          /* samples carry REGS_USER + STACK_USER */
  uint64_t n_records;
  GHashTable *build_ids;        /* "HEX\tfilename", file mode */
  StUnwoundChain chain;
  /* A capture names processes only: perf names each thread (COMM with
     the thread's tid), and shows a thread without one as ":TID".  */
  GHashTable *process_names;    /* pid -> comm */
  GHashTable *thread_names;     /* tid -> the comm written for it */
} StPerfFromCapture;

/* The attribute of converted samples.  A capture does not say which event
   drove the sampling; Sysprof samples on the cpu-clock software event, so
   that is what the attribute says, with a period of 1 (each sample
   counts once, as in Sysprof).  Raw stacks kept as REGS_USER and
   STACK_USER samples carry the capture's x86_64 register set (perf then
   unwinds them itself, as for perf record --call-graph=dwarf).  */
static void
make_attr (StPerfFromCapture *o)
{
  StPerfEventAttr attr;
  uint64_t id = CAPTURE_ATTR_ID;

  memset (&attr, 0, sizeof attr);
  attr.type = ST_PERF_TYPE_SOFTWARE;
  attr.size = sizeof attr;
  attr.config = ST_PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1;
  attr.sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                     | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_CPU
                     | ST_PERF_SAMPLE_PERIOD | ST_PERF_SAMPLE_CALLCHAIN;
  attr.flags = ST_PERF_ATTR_FLAG_MMAP | ST_PERF_ATTR_FLAG_COMM
               | ST_PERF_ATTR_FLAG_TASK | ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL
               | ST_PERF_ATTR_FLAG_MMAP2 | ST_PERF_ATTR_FLAG_COMM_EXEC;
  if (o->raw_stacks)
    {
      attr.sample_type |= ST_PERF_SAMPLE_REGS_USER
                          | ST_PERF_SAMPLE_STACK_USER;
      attr.flags |= ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER;
      attr.sample_regs_user = ST_CAPTURE_REGS_X86_64_MASK;
      attr.sample_stack_user = ST_PERF_STACK_USER_MAX;
    }
  o->sample_type = attr.sample_type;
  st_perf_writer_attr (o->writer, (const uint8_t *) &attr, sizeof attr, &id,
                       1);
  st_perf_writer_set_trailer (o->writer, attr.sample_type);
}

static StPerfSampleId
sample_id (const StEvent *ev)
{
  StPerfSampleId sid = {
    .pid = (uint32_t) ev->pid,
    .tid = (uint32_t) ev->tid,
    .time = (uint64_t) ev->time,
    .id = CAPTURE_ATTR_ID,
    .cpu = ev->cpu >= 0 ? (uint32_t) ev->cpu : 0,
  };
  return sid;
}

static void
counted (StPerfFromCapture *o)
{
  if (++o->n_records % ROUND_RECORDS == 0)
    st_perf_writer_finished_round (o->writer);
}

/* The first real address of a chain with context markers, and whether it
   is a kernel one.  */
static uint64_t
chain_ip (const uint64_t *ips, size_t n, uint16_t *misc)
{
  *misc = ST_PERF_MISC_USER;
  for (size_t i = 0; i < n; i++)
    {
      if (ips[i] == ST_CONTEXT_KERNEL)
        *misc = ST_PERF_MISC_KERNEL;
      else if (ips[i] == ST_CONTEXT_USER)
        *misc = ST_PERF_MISC_USER;
      else if (!ST_IS_CONTEXT (ips[i]))
        return ips[i];
    }
  return 0;
}

/* Before the first sample of a thread that is not its process's main
   thread (or after its process changed names): a COMM naming it as
   its process is named, as perf's own records do.  */
static void
name_thread (StPerfFromCapture *o, const StEvent *ev)
{
  const char *comm, *written;

  if (ev->tid == ev->pid || ev->tid <= 0)
    return;
  comm = g_hash_table_lookup (o->process_names, GINT_TO_POINTER (ev->pid));
  if (comm == NULL)
    return;
  written = g_hash_table_lookup (o->thread_names, GINT_TO_POINTER (ev->tid));
  if (written != NULL && strcmp (written, comm) == 0)
    return;
  if (g_hash_table_size (o->thread_names) >= NAMED_THREADS_MAX)
    g_hash_table_remove_all (o->thread_names);
  StPerfSampleId sid = sample_id (ev);
  st_perf_writer_comm (o->writer, FALSE, (uint32_t) ev->pid,
                       (uint32_t) ev->tid, comm, &sid);
  g_hash_table_insert (o->thread_names, GINT_TO_POINTER (ev->tid),
                       g_strdup (comm));
  counted (o);
}

static void
capture_sample (StPerfFromCapture *o, const StEvent *ev, const uint64_t *ips,
                size_t n_ips)
{
  StPerfSampleFields f = {
    .pid = (uint32_t) ev->pid, .tid = (uint32_t) ev->tid,
    .time = (uint64_t) ev->time,
    .cpu = ev->cpu >= 0 ? (uint32_t) ev->cpu : 0,
    .period = 1, .ips = ips, .n_ips = (uint32_t) n_ips,
  };
  uint16_t misc;

  name_thread (o, ev);
  f.ip = chain_ip (ips, n_ips, &misc);
  st_perf_writer_sample (o->writer, o->sample_type, misc, &f);
  counted (o);
}

/* A STACK_USER frame (with its kernel part, if the pipeline found it):
   a sample perf can unwind itself.  i386 register sets are the first 9
   of the x86_64 set: the rest are zeros.  */
static void
capture_raw_stack (StPerfFromCapture *o, const StEvent *ev)
{
  uint64_t regs[ST_CAPTURE_REGS_X86_64_N] = { 0 };
  size_t n_kernel = ev->stack.callchain != NULL ? ev->stack.n_callchain : 0;
  StPerfSampleFields f = {
    .pid = (uint32_t) ev->pid, .tid = (uint32_t) ev->tid,
    .time = (uint64_t) ev->time,
    .cpu = ev->cpu >= 0 ? (uint32_t) ev->cpu : 0,
    .period = 1, .ips = ev->stack.callchain, .n_ips = (uint32_t) n_kernel,
    .abi = ev->stack.abi, .regs = regs, .n_regs = G_N_ELEMENTS (regs),
    .stack = ev->stack.stack, .stack_size = ev->stack.stack_size,
  };
  uint16_t misc = ST_PERF_MISC_USER;

  name_thread (o, ev);

  if (ev->stack.regs != NULL)
    memcpy (regs, ev->stack.regs,
            MIN (ev->stack.n_regs, G_N_ELEMENTS (regs)) * sizeof (uint64_t));
  f.ip = regs[ST_CAPTURE_REGS_IP_INDEX];
  if (n_kernel > 0)
    f.ip = chain_ip (ev->stack.callchain, n_kernel, &misc);
  if (f.abi == ST_REGS_ABI_NONE)
    f.n_regs = 0;
  st_perf_writer_sample (o->writer, o->sample_type, misc, &f);
  counted (o);
}

/* Sysprof may keep a command line, perf keeps the kernel's command
   name: the program's file name when the string is a command line (it
   has a space: "./work_fp 2", "/usr/bin/python3 -m x") or a path ("/",
   "./" first), else the string itself (a thread or kernel task name,
   "kworker/0:1"), at most 15 bytes as in the kernel.  */
static char *
comm_of (const char *cmdline)
{
  const char *start = cmdline;
  const char *end = cmdline + strlen (cmdline);

  if (strchr (cmdline, ' ') != NULL || cmdline[0] == '/'
      || g_str_has_prefix (cmdline, "./") || g_str_has_prefix (cmdline, "../"))
    {
      end = cmdline + strcspn (cmdline, " ");
      start = end;
      while (start > cmdline && start[-1] != '/')
        start--;
      if (start == end)       /* "/" or "dir/": keep what there is */
        start = cmdline;
    }
  return g_strndup (start, MIN ((size_t) (end - start), 15));
}

static void
remember_build_id (StPerfFromCapture *o, const StEvent *ev)
{
  GString *key = g_string_new (NULL);

  for (guint i = 0; i < ev->map.build_id_len; i++)
    g_string_append_printf (key, "%02x", ev->map.build_id[i]);
  g_string_append_printf (key, "\t%s", ev->map.filename);
  if (g_hash_table_contains (o->build_ids, key->str))
    {
      g_string_free (key, TRUE);
      return;
    }
  g_hash_table_add (o->build_ids, g_string_free (key, FALSE));
  st_perf_writer_make_build_id (o->writer, ST_PERF_MISC_USER,
                                ev->map.build_id, ev->map.build_id_len,
                                ev->map.filename);
}

/* The LOG frame that stands for perf's LOST: "Lost N samples" in domain
   "Sampler" (Sysprof's and ours), or "N events lost by the recorder" in
   domain "stacktrace" (what stacktrace wrote before); FALSE for other
   LOG frames.  */
static gboolean
lost_count (const StEvent *ev, uint64_t *count)
{
  const StCaptureLog *l = (const StCaptureLog *) ev->raw;
  char domain[sizeof l->domain + 1];
  g_autofree char *msg = NULL;
  const char *digits, *suffix;
  char *end;

  if (ev->raw_len <= sizeof *l)
    return FALSE;
  memcpy (domain, l->domain, sizeof l->domain);
  domain[sizeof l->domain] = '\0';
  msg = g_strndup ((const char *) ev->raw + sizeof *l,
                   ev->raw_len - sizeof *l);
  if (strcmp (domain, ST_CAPTURE_LOST_DOMAIN) == 0
      && g_str_has_prefix (msg, ST_CAPTURE_LOST_PREFIX))
    {
      digits = msg + strlen (ST_CAPTURE_LOST_PREFIX);
      suffix = ST_CAPTURE_LOST_SUFFIX;
    }
  else if (strcmp (domain, ST_CAPTURE_LOST_OLD_DOMAIN) == 0)
    {
      digits = msg;
      suffix = ST_CAPTURE_LOST_OLD_SUFFIX;
    }
  else
    return FALSE;
  if (!g_ascii_isdigit (*digits))
    return FALSE;
  *count = g_ascii_strtoull (digits, &end, 10);
  return strcmp (end, suffix) == 0;
}

static gboolean
from_capture_event (void *impl, const StEvent *ev)
{
  StPerfFromCapture *o = impl;
  StPerfSampleId sid = sample_id (ev);

  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      capture_sample (o, ev, ev->sample.ips, ev->sample.n_ips);
      return TRUE;

    case ST_EVENT_STACK_USER:
      if (o->raw_stacks)
        capture_raw_stack (o, ev);
      else
        {
          /* Not unwound after all: the kernel part only.  */
          size_t n = st_unwound_chain_build (&o->chain, ev, NULL, 0);

          capture_sample (o, ev, o->chain.ips, n);
        }
      return TRUE;

    case ST_EVENT_MAP:
      /* Sysprof records executable mappings only.  */
      st_perf_writer_mmap2 (o->writer, ST_PERF_MISC_USER, (uint32_t) ev->pid,
                            (uint32_t) ev->pid, ev->map.start,
                            ev->map.end > ev->map.start
                              ? ev->map.end - ev->map.start : 0,
                            ev->map.pgoff,
                            ev->map.inode, ev->map.build_id,
                            ev->map.build_id_len, PROT_READ | PROT_EXEC,
                            MAP_PRIVATE, ev->map.filename, &sid);
      if (ev->map.build_id_len > 0 && o->build_ids != NULL)
        remember_build_id (o, ev);
      counted (o);
      return TRUE;

    case ST_EVENT_PROCESS:
      {
        char *comm = comm_of (ev->process.comm);

        st_perf_writer_comm (o->writer, ev->process.exec, (uint32_t) ev->pid,
                             (uint32_t) ev->pid, comm, &sid);
        g_hash_table_insert (o->process_names, GINT_TO_POINTER (ev->pid),
                             comm);
        counted (o);
        return TRUE;
      }

    case ST_EVENT_FORK:
      st_perf_writer_task (o->writer, ST_PERF_RECORD_FORK, (uint32_t) ev->pid,
                           (uint32_t) ev->fork.parent_pid, (uint32_t) ev->tid,
                           (uint32_t) ev->fork.parent_tid, (uint64_t) ev->time,
                           &sid);
      counted (o);
      return TRUE;

    case ST_EVENT_EXIT:
      /* The capture does not name the parent.  */
      st_perf_writer_task (o->writer, ST_PERF_RECORD_EXIT, (uint32_t) ev->pid,
                           0, (uint32_t) ev->tid, 0, (uint64_t) ev->time,
                           &sid);
      counted (o);
      return TRUE;

    case ST_EVENT_LOST:
    case ST_EVENT_OTHER:
      {
        uint64_t n;

        if (((const StCaptureFrame *) ev->raw)->type != ST_CAPTURE_LOG
            || !lost_count (ev, &n))
          return FALSE;
        st_perf_writer_lost (o->writer, CAPTURE_ATTR_ID, n, &sid);
        counted (o);
        return TRUE;
      }
    }
  return FALSE;
}

void *
st_perf_from_capture_new (StOutput *out, gboolean unwinding)
{
  StPerfFromCapture *o = g_new0 (StPerfFromCapture, 1);
  gboolean file_mode = st_perf_writer_file_mode_possible (out);

  o->writer = st_perf_writer_new (out, file_mode);
  o->unwinding = unwinding;
  o->process_names = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                            NULL, g_free);
  o->thread_names = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                           NULL, g_free);
  o->raw_stacks = !o->unwinding;
  if (file_mode)
    o->build_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          NULL);
  make_attr (o);
  if (o->raw_stacks)
    {
      /* The registers are x86's; tell perf, should it run elsewhere.  */
      static const char arch[] = "x86_64";
      uint8_t feature[4 + ST_PERF_NAME_ALIGN] = { 0 };
      uint32_t len = ST_PERF_NAME_ALIGN;

      memcpy (feature, &len, 4);
      memcpy (feature + 4, arch, sizeof arch);
      st_perf_writer_feature (o->writer, ST_PERF_FEAT_ARCH, feature,
                              sizeof feature);
    }
  return o;
}

static void
from_capture_unwound (void *impl, const StEvent *ev, const uint64_t *user,
                      uint32_t n_user)
{
  StPerfFromCapture *o = impl;
  size_t n = st_unwound_chain_build (&o->chain, ev, user, n_user);

  capture_sample (o, ev, o->chain.ips, n);
}

static gboolean
from_capture_finish (void *impl, GError **error)
{
  StPerfFromCapture *o = impl;

  return st_perf_writer_finish (o->writer, error);
}

static void
from_capture_free (void *impl)
{
  StPerfFromCapture *o = impl;

  if (o == NULL)
    return;
  st_perf_writer_free (o->writer);
  if (o->build_ids != NULL)
    g_hash_table_destroy (o->build_ids);
  st_unwound_chain_clear (&o->chain);
  g_hash_table_destroy (o->process_names);
  g_hash_table_destroy (o->thread_names);
  g_free (o);
}

const StWriterOps st_perf_from_capture_ops = {
  from_capture_event,
  from_capture_unwound,
  from_capture_finish,
  from_capture_free,
};
