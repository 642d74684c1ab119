/* perf.data output.

   From perf.data: every record is copied as it is, except that, when
   raw stacks are unwound, the attributes with raw stacks lose them in
   every copy (attribute section, HEADER_ATTR, EVENT_DESC) and all their
   samples are re-serialized without REGS_USER and STACK_USER, the
   raw-stack ones with their unwound chain as CALLCHAIN.  What only one
   mode has is converted: a file-mode input's attributes and feature
   sections become HEADER_ATTR/HEADER_FEATURE/... records in pipe mode,
   and a pipe-mode input's such records become the attribute and feature
   sections of a file.

   From a Sysprof capture: one synthesized attribute (see make_attr) and a
   record per frame that has a perf counterpart.  */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "format/capture-types.h"
#include "format/perf-attr.h"
#include "format/perf-output.h"
#include "format/perf-reader.h"
#include "format/perf-sample.h"
#include "format/perf-writer.h"

/* A capture is time-ordered: a FINISHED_ROUND this often lets perf
   process the records as they come instead of sorting them all.  */
#define ROUND_RECORDS 4096

/* The sample id of the synthesized attribute.  */
#define CAPTURE_ATTR_ID 1

typedef struct
{
  StPerfWriter *writer;
  StPerfReader *perf_in;        /* perf.data input, else NULL */
  gboolean unwinding;
  gboolean features_carried;    /* the input's feature sections */

  /* perf.data input: where the AUXTRACE records went (input offset ->
     output offset), for the AUXTRACE feature's index.  */
  GHashTable *auxtrace_moves;

  /* Capture input.  */
  uint64_t sample_type;
  gboolean raw_stacks;          /* samples carry REGS_USER + STACK_USER */
  uint64_t n_records;
  GHashTable *build_ids;        /* "HEX\tfilename", file mode */

  uint64_t *chain;              /* scratch */
  size_t chain_cap;
} PerfOutput;

static uint64_t *
chain_room (PerfOutput *o, size_t n)
{
  if (n > o->chain_cap)
    {
      o->chain_cap = MAX (n, 2 * o->chain_cap);
      o->chain = g_renew (uint64_t, o->chain, o->chain_cap);
    }
  return o->chain;
}

/* The unwound chain: the kernel part, PERF_CONTEXT_USER, the user
   addresses.  Returns its length; the chain is in o->chain.  */
static size_t
unwound_chain (PerfOutput *o, const StEvent *ev, const uint64_t *user,
               size_t n_user)
{
  size_t n_kernel = ev->stack.callchain != NULL ? ev->stack.n_callchain : 0;
  uint64_t *chain = chain_room (o, n_kernel + 1 + n_user);

  if (n_kernel > 0)
    memcpy (chain, ev->stack.callchain, n_kernel * sizeof (uint64_t));
  chain[n_kernel] = ST_CONTEXT_USER;
  if (n_user > 0)
    memcpy (chain + n_kernel + 1, user, n_user * sizeof (uint64_t));
  return n_kernel + 1 + n_user;
}

static uint16_t
record_type (const StEvent *ev)
{
  uint32_t type;

  memcpy (&type, ev->raw, 4);
  return (uint16_t) type;
}

static uint16_t
record_misc (const StEvent *ev)
{
  uint16_t misc;

  memcpy (&misc, ev->raw + 4, 2);
  return misc;
}

/* --- from perf.data ------------------------------------------------------ */

/* Whether samples of A lose their raw stacks in the output.  */
static gboolean
patched (const PerfOutput *o, const StPerfAttr *a)
{
  return o->unwinding && a != NULL
         && st_perf_attr_has_raw_stacks (a->sample_type);
}

/* An attribute into the output, patched when its raw stacks go.  */
static void
add_attr (PerfOutput *o, const uint8_t *attr, size_t size,
          const uint64_t *ids, size_t n_ids)
{
  uint8_t *copy = g_memdup2 (attr, size);

  if (o->unwinding)
    st_perf_attr_patch_unwound (copy, size);
  st_perf_writer_attr (o->writer, copy, size, ids, n_ids);
  g_free (copy);
}

/* The AUXTRACE feature is an index of the AUXTRACE records by file
   offset (u64 count, then {u64 offset, u64 size} each): point it at the
   records' new places, leaving out those that are not in the output.  */
static uint8_t *
moved_auxtrace_index (PerfOutput *o, const uint8_t *data, size_t size,
                      size_t *out_size)
{
  uint64_t n, kept = 0;
  uint8_t *out;

  *out_size = 0;
  if (size < 8)
    return NULL;
  memcpy (&n, data, 8);
  if (n > (size - 8) / 16)
    return NULL;
  out = g_malloc (8 + 16 * n);
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t entry[2], *to;

      memcpy (entry, data + 8 + 16 * i, 16);
      to = o->auxtrace_moves != NULL
           ? g_hash_table_lookup (o->auxtrace_moves, &entry[0]) : NULL;
      if (to == NULL)
        continue;
      entry[0] = to[1];
      memcpy (out + 8 + 16 * kept++, entry, 16);
    }
  memcpy (out, &kept, 8);
  *out_size = 8 + 16 * kept;
  return out;
}

/* The file-mode input's feature sections into the output: all of them
   into a file (at the end, where the AUXTRACE records' places are
   known), those perf carries in pipe mode into a pipe.  */
static void
carry_features (PerfOutput *o)
{
  if (o->features_carried || !st_perf_reader_features_known (o->perf_in)
      || st_perf_reader_is_pipe (o->perf_in))
    return;
  o->features_carried = TRUE;
  for (guint bit = 0; bit < ST_PERF_FEATURE_BITS; bit++)
    {
      uint64_t size = 0;
      const uint8_t *data = st_perf_reader_feature (o->perf_in, bit, &size);
      uint8_t *copy = NULL;
      size_t copy_size = size;

      if (data == NULL)
        continue;
      if (bit == ST_PERF_FEAT_EVENT_DESC && o->unwinding)
        {
          copy = g_memdup2 (data, size);
          st_perf_event_desc_patch_unwound (copy, size);
        }
      else if (bit == ST_PERF_FEAT_AUXTRACE)
        {
          copy = moved_auxtrace_index (o, data, size, &copy_size);
          if (copy == NULL)
            continue;
        }
      st_perf_writer_feature (o->writer, bit, copy != NULL ? copy : data,
                              copy_size);
      g_free (copy);
    }
}

/* A sample of a patched attribute, with CHAIN as its callchain (NULL:
   the one it has).  */
static void
rewrite_sample (PerfOutput *o, const StPerfAttr *a, const StEvent *ev,
                const uint64_t *chain, size_t n_chain)
{
  StPerfSample s;
  char *why = st_perf_sample_parse (a, ev->raw, ev->raw_len, &s);

  if (why != NULL)
    {
      /* The reader parsed this same record: not reached.  */
      g_free (why);
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  st_perf_writer_unwound_sample (o->writer, ev->raw, ev->raw_len,
                                 a->sample_type, &s, chain, n_chain);
}

/* HEADER_ATTR: attr (its own size) then ids.  */
static void
header_attr (PerfOutput *o, const StEvent *ev)
{
  const uint8_t *attr = ev->raw + sizeof (StPerfEventHeader);
  uint32_t size;
  size_t avail = ev->raw_len - sizeof (StPerfEventHeader);

  memcpy (&size, attr + ST_PERF_ATTR_SIZE, 4);
  if (size == 0)
    size = ST_PERF_ATTR_SIZE_VER0;
  /* The reader checked that SIZE fits.  */
  size = MIN (size, avail);
  add_attr (o, attr, size, (const uint64_t *) (attr + size),
            (avail - size) / 8);
}

/* A pipe-mode input's own records: into the header parts of a file, as
   they are into a pipe (attributes and EVENT_DESC patched).  */
static gboolean
pipe_header_record (PerfOutput *o, const StEvent *ev)
{
  gboolean file = st_perf_writer_file_mode (o->writer);
  size_t body_len = ev->raw_len - MIN (ev->raw_len,
                                       sizeof (StPerfFeatureRecord));

  switch (record_type (ev))
    {
    case ST_PERF_RECORD_HEADER_ATTR:
      header_attr (o, ev);
      return TRUE;

    case ST_PERF_RECORD_HEADER_FEATURE:
      {
        const StPerfFeatureRecord *f = (const StPerfFeatureRecord *) ev->raw;
        uint8_t *copy;

        if (ev->raw_len < sizeof *f)
          break;
        /* Without data: perf's end-of-features mark, a pipe thing.  */
        if (file && (body_len == 0 || f->feat_id >= ST_PERF_FEATURE_BITS))
          return body_len == 0;
        copy = g_memdup2 (ev->raw, ev->raw_len);
        if (f->feat_id == ST_PERF_FEAT_EVENT_DESC && o->unwinding)
          st_perf_event_desc_patch_unwound (copy + sizeof *f, body_len);
        if (file)
          st_perf_writer_feature (o->writer, (guint) f->feat_id,
                                  copy + sizeof *f, body_len);
        else
          st_perf_writer_record (o->writer, copy, ev->raw_len);
        g_free (copy);
        return TRUE;
      }

    case ST_PERF_RECORD_HEADER_BUILD_ID:
      st_perf_writer_build_id (o->writer, ev->raw, ev->raw_len);
      return TRUE;

    case ST_PERF_RECORD_HEADER_TRACING_DATA:
      if (!file)
        break;
      st_perf_writer_feature (o->writer, ST_PERF_FEAT_TRACING_DATA,
                              ev->raw + sizeof (StPerfTracingData),
                              ev->raw_len - sizeof (StPerfTracingData));
      return TRUE;

    case ST_PERF_RECORD_HEADER_EVENT_TYPE:
      /* Obsolete; a file has no place for it.  */
      if (file)
        return FALSE;
      break;
    }
  st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
  return TRUE;
}

static gboolean
perf_event (PerfOutput *o, const StEvent *ev)
{
  uint16_t type = record_type (ev);

  if (ev->kind == ST_EVENT_SAMPLE || ev->kind == ST_EVENT_STACK_USER)
    {
      const StPerfAttr *a = st_perf_reader_record_attr (o->perf_in, ev->raw,
                                                        ev->raw_len);

      if (patched (o, a))
        rewrite_sample (o, a, ev, NULL, 0);
      else
        st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return TRUE;
    }
  if (st_perf_reader_is_pipe (o->perf_in)
      && type >= ST_PERF_RECORD_HEADER_ATTR)
    return pipe_header_record (o, ev);
  if (type == ST_PERF_RECORD_HEADER_ATTR && o->unwinding)
    {
      uint8_t *copy = g_memdup2 (ev->raw, ev->raw_len);

      st_perf_attr_patch_unwound (copy + sizeof (StPerfEventHeader),
                                  ev->raw_len - sizeof (StPerfEventHeader));
      st_perf_writer_record (o->writer, copy, ev->raw_len);
      g_free (copy);
      return TRUE;
    }
  if (type == ST_PERF_RECORD_AUXTRACE)
    {
      uint64_t *move = g_new (uint64_t, 2);

      move[0] = ev->offset;
      move[1] = st_perf_writer_offset (o->writer);
      if (o->auxtrace_moves == NULL)
        o->auxtrace_moves = g_hash_table_new_full (g_int64_hash,
                                                   g_int64_equal, g_free,
                                                   NULL);
      g_hash_table_replace (o->auxtrace_moves, move, move);
    }
  st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
  return TRUE;
}

static void
perf_unwound (PerfOutput *o, const StEvent *ev, const uint64_t *user,
              uint32_t n_user)
{
  const StPerfAttr *a = st_perf_reader_record_attr (o->perf_in, ev->raw,
                                                    ev->raw_len);
  uint64_t ip;
  size_t n_chain;

  if (a == NULL)
    {
      st_perf_writer_record (o->writer, ev->raw, ev->raw_len);
      return;
    }
  /* Nothing unwound: at least the sampled user IP, as perf shows it when
     its own unwinding fails.  */
  if (n_user == 0 && (a->sample_type & ST_PERF_SAMPLE_IP)
      && (record_misc (ev) & ST_PERF_MISC_CPUMODE_MASK) == ST_PERF_MISC_USER)
    {
      memcpy (&ip, ev->raw + sizeof (StPerfEventHeader)
                    + ((a->sample_type & ST_PERF_SAMPLE_IDENTIFIER) ? 8 : 0),
              8);
      user = &ip;
      n_user = 1;
    }
  n_chain = unwound_chain (o, ev, user, n_user);
  rewrite_sample (o, a, ev, o->chain, n_chain);
}

/* --- from a Sysprof capture ---------------------------------------------- */

/* The attribute of converted samples.  A capture does not say which event
   drove the sampling; Sysprof samples on the cpu-clock software event, so
   that is what the attribute says, with a period of 1 (each sample
   counts once, as in Sysprof).  Raw stacks kept as REGS_USER and
   STACK_USER samples carry the capture's x86_64 register set (perf then
   unwinds them itself, as for perf record --call-graph=dwarf).  */
static void
make_attr (PerfOutput *o)
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
counted (PerfOutput *o)
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

static void
capture_sample (PerfOutput *o, const StEvent *ev, const uint64_t *ips,
                size_t n_ips)
{
  StPerfSampleFields f = {
    .pid = (uint32_t) ev->pid, .tid = (uint32_t) ev->tid,
    .time = (uint64_t) ev->time,
    .cpu = ev->cpu >= 0 ? (uint32_t) ev->cpu : 0,
    .period = 1, .ips = ips, .n_ips = (uint32_t) n_ips,
  };
  uint16_t misc;

  f.ip = chain_ip (ips, n_ips, &misc);
  st_perf_writer_sample (o->writer, o->sample_type, misc, &f);
  counted (o);
}

/* A STACK_USER frame (with its kernel part, if the pipeline found it):
   a sample perf can unwind itself.  i386 register sets are the first 9
   of the x86_64 set: the rest are zeros.  */
static void
capture_raw_stack (PerfOutput *o, const StEvent *ev)
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

/* Sysprof keeps a command line, perf a command name: the name of the
   program when the string looks like a path or a command line, else the
   string (a thread or kernel task name), at most 15 bytes as in the
   kernel.  */
static char *
comm_of (const char *cmdline)
{
  char *comm;

  if (cmdline[0] == '/' || strlen (cmdline) > 15)
    {
      const char *end = cmdline + strcspn (cmdline, " ");
      const char *start = end;

      while (start > cmdline && start[-1] != '/')
        start--;
      comm = g_strndup (start, MIN ((size_t) (end - start), 15));
    }
  else
    comm = g_strdup (cmdline);
  return comm;
}

static void
remember_build_id (PerfOutput *o, const StEvent *ev)
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

/* The "N events lost by the recorder" LOG frame that stands for perf's
   LOST; FALSE for other LOG frames.  */
static gboolean
lost_count (const StEvent *ev, uint64_t *count)
{
  const StCaptureLog *l = (const StCaptureLog *) ev->raw;
  char domain[sizeof l->domain + 1];
  char *msg, *end;
  gboolean ok;

  if (ev->raw_len <= sizeof *l)
    return FALSE;
  memcpy (domain, l->domain, sizeof l->domain);
  domain[sizeof l->domain] = '\0';
  if (strcmp (domain, ST_CAPTURE_LOST_DOMAIN) != 0)
    return FALSE;
  msg = g_strndup ((const char *) ev->raw + sizeof *l,
                   ev->raw_len - sizeof *l);
  *count = g_ascii_strtoull (msg, &end, 10);
  ok = end != msg && strcmp (end, ST_CAPTURE_LOST_MESSAGE) == 0;
  g_free (msg);
  return ok;
}

static gboolean
capture_event (PerfOutput *o, const StEvent *ev)
{
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
          size_t n = unwound_chain (o, ev, NULL, 0);

          capture_sample (o, ev, o->chain, n);
        }
      return TRUE;

    case ST_EVENT_MAP:
      /* Sysprof records executable mappings only.  */
      st_perf_writer_mmap2 (o->writer, ST_PERF_MISC_USER, (uint32_t) ev->pid,
                            (uint32_t) ev->pid, ev->map.start,
                            ev->map.end - ev->map.start, ev->map.pgoff,
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
        g_free (comm);
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

/* --- StWriterOps --------------------------------------------------------- */

void *
st_perf_output_new (StOutput *out, StReader *reader, gboolean unwinding)
{
  PerfOutput *o = g_new0 (PerfOutput, 1);
  gboolean file_mode = st_perf_writer_file_mode_possible (out);

  o->writer = st_perf_writer_new (out, file_mode);
  o->unwinding = unwinding;
  o->perf_in = reader != NULL ? st_reader_perf (reader) : NULL;
  if (o->perf_in != NULL)
    {
      /* A file-mode input's attributes are all known now.  */
      for (guint i = 0; !st_perf_reader_is_pipe (o->perf_in)
                        && i < st_perf_reader_n_attrs (o->perf_in); i++)
        {
          const StPerfAttr *a = st_perf_reader_attr (o->perf_in, i);

          add_attr (o, a->raw, a->raw_size, a->ids, a->n_ids);
        }
      if (!file_mode)
        carry_features (o);
      return o;
    }
  o->raw_stacks = !unwinding;
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

static gboolean
perf_output_event (void *impl, const StEvent *ev)
{
  PerfOutput *o = impl;

  if (ev->source == ST_FORMAT_PERF && o->perf_in != NULL)
    return perf_event (o, ev);
  return capture_event (o, ev);
}

static void
perf_output_unwound (void *impl, const StEvent *ev, const uint64_t *user_ips,
                     uint32_t n_user_ips)
{
  PerfOutput *o = impl;

  if (ev->source == ST_FORMAT_PERF && o->perf_in != NULL)
    perf_unwound (o, ev, user_ips, n_user_ips);
  else
    {
      size_t n = unwound_chain (o, ev, user_ips, n_user_ips);

      capture_sample (o, ev, o->chain, n);
    }
}

static gboolean
perf_output_finish (void *impl, GError **error)
{
  PerfOutput *o = impl;

  /* Into a file, and into a pipe when they could not be read before the
     data (a file-mode input through a pipe): late, but not lost.  */
  if (o->perf_in != NULL)
    carry_features (o);
  return st_perf_writer_finish (o->writer, error);
}

static void
perf_output_free (void *impl)
{
  PerfOutput *o = impl;

  if (o == NULL)
    return;
  st_perf_writer_free (o->writer);
  if (o->auxtrace_moves != NULL)
    g_hash_table_destroy (o->auxtrace_moves);
  if (o->build_ids != NULL)
    g_hash_table_destroy (o->build_ids);
  g_free (o->chain);
  g_free (o);
}

const StWriterOps st_perf_output_ops = {
  perf_output_event,
  perf_output_unwound,
  perf_output_finish,
  perf_output_free,
};
