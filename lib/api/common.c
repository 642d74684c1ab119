/* The public API's small parts: version, results, causes, the mapped-file
   guard, and the conversions between public and library types.  */
#include "config.h"

#include <string.h>

#include "api/api-private.h"
#include "model/debuginfod-library.h"
#include "unwind/unwind-result.h"
#include "util/mapping-guard.h"
#include "util/printable.h"

/* The public numbers are the library's, checked here.  */
G_STATIC_ASSERT ((int) ST_STOP_STACK_END == (int) ST_CAUSE_STACK_END);
G_STATIC_ASSERT ((int) ST_STOP_NOT_AFTER_CALL
                 == (int) ST_CAUSE_NOT_AFTER_CALL);
G_STATIC_ASSERT ((int) ST_CAUSE_N <= (int) ST_STOP_CAUSES);
G_STATIC_ASSERT ((int) ST_CHAIN_TRUNCATED == (int) ST_UNWIND_TRUNCATED);
G_STATIC_ASSERT ((int) ST_CHAIN_FAILED == (int) ST_UNWIND_FAILED);
G_STATIC_ASSERT (ST_MAX_FRAMES == ST_UNWIND_MAX_FRAMES);
G_STATIC_ASSERT (ST_BUILD_ID_MAX_BYTES == ST_BUILD_ID_MAX);

const char *
st_version (void)
{
  return PACKAGE_VERSION;
}

const char *
st_result_name (int result)
{
  switch (result)
    {
    case ST_OK: return "success";
    case ST_END: return "end of the recording";
    case ST_E_INVALID: return "invalid argument";
    case ST_E_IO: return "input/output error";
    case ST_E_FORMAT: return "not a recording";
    case ST_E_CANCELLED: return "cancelled";
    case ST_E_UNSUPPORTED: return "unsupported";
    case ST_E_NOT_FOUND: return "no such process";
    default: return "unknown result";
    }
}

const char *
st_stop_cause_name (int cause)
{
  if (cause < 0 || cause >= ST_CAUSE_N)
    return "?";
  return st_unwind_cause_name ((StUnwindCause) cause);
}

void
st_install_mapped_file_guard (void)
{
  st_mapping_guard_install ();
}

int
st_load_debuginfod (void)
{
  return st_debuginfod_library (NULL) != NULL ? ST_OK : ST_E_UNSUPPORTED;
}

StFormat
st_api_format (StFileFormat format)
{
  return format == ST_FILE_FORMAT_CAPTURE ? ST_FORMAT_SYSPROF
         : format == ST_FILE_FORMAT_PERF ? ST_FORMAT_PERF : ST_FORMAT_AUTO;
}

StFileFormat
st_api_file_format (StFormat format)
{
  return format == ST_FORMAT_SYSPROF ? ST_FILE_FORMAT_CAPTURE
         : format == ST_FORMAT_PERF ? ST_FILE_FORMAT_PERF
         : ST_FILE_FORMAT_AUTO;
}

void
st_api_record (const StEvent *ev, StRecord *out)
{
  memset (out, 0, sizeof *out);
  out->pid = ev->pid;
  out->tid = ev->tid;
  out->cpu = ev->cpu;
  out->time = ev->time;
  out->offset = ev->offset;
  switch (ev->kind)
    {
    case ST_EVENT_SAMPLE:
      out->kind = ST_RECORD_CALLCHAIN;
      out->u.callchain.ips = ev->sample.ips;
      out->u.callchain.n_ips = ev->sample.n_ips;
      break;
    case ST_EVENT_STACK_USER:
      out->kind = ST_RECORD_STACK_SAMPLE;
      out->u.stack.abi = ev->stack.abi;
      out->u.stack.n_regs = ev->stack.n_regs;
      out->u.stack.regs_mask = ev->stack.regs_mask;
      out->u.stack.regs = ev->stack.regs;
      out->u.stack.stack = ev->stack.stack;
      out->u.stack.stack_size = ev->stack.stack_size;
      out->u.stack.kernel_ips = ev->stack.callchain;
      out->u.stack.n_kernel_ips = ev->stack.n_callchain;
      out->u.stack.user_ips = ev->stack.user_callchain;
      out->u.stack.n_user_ips = ev->stack.n_user_callchain;
      break;
    case ST_EVENT_MAP:
      out->kind = ST_RECORD_MAP;
      out->u.map.start = ev->map.start;
      out->u.map.end = ev->map.end;
      out->u.map.pgoff = ev->map.pgoff;
      out->u.map.inode = ev->map.inode;
      out->u.map.dev_major = ev->map.dev_major;
      out->u.map.dev_minor = ev->map.dev_minor;
      out->u.map.prot = ev->map.prot;
      out->u.map.exec_known = ev->map.exec_known;
      out->u.map.filename = ev->map.filename;
      memcpy (out->u.map.build_id, ev->map.build_id, ST_BUILD_ID_MAX);
      out->u.map.build_id_len = ev->map.build_id_len;
      break;
    case ST_EVENT_PROCESS:
      out->kind = ST_RECORD_COMM;
      out->u.comm.comm = ev->process.comm;
      out->u.comm.exec = ev->process.exec;
      break;
    case ST_EVENT_FORK:
      out->kind = ST_RECORD_FORK;
      out->u.fork.parent_pid = ev->fork.parent_pid;
      out->u.fork.parent_tid = ev->fork.parent_tid;
      break;
    case ST_EVENT_EXIT:
      out->kind = ST_RECORD_EXIT;
      break;
    case ST_EVENT_LOST:
      out->kind = ST_RECORD_LOST;
      out->u.lost.count = ev->lost.count;
      break;
    default:
      out->kind = ST_RECORD_OTHER;
      break;
    }
}

gboolean
st_api_event (const StRecord *rec, StEvent *ev)
{
  memset (ev, 0, sizeof *ev);
  ev->pid = rec->pid;
  ev->tid = rec->tid;
  ev->cpu = rec->cpu;
  ev->time = rec->time;
  ev->offset = rec->offset;
  switch (rec->kind)
    {
    case ST_RECORD_STACK_SAMPLE:
      ev->kind = ST_EVENT_STACK_USER;
      ev->stack.abi = rec->u.stack.abi;
      ev->stack.n_regs = rec->u.stack.n_regs;
      ev->stack.regs_mask = rec->u.stack.regs_mask;
      ev->stack.regs = rec->u.stack.regs;
      ev->stack.stack = rec->u.stack.stack;
      ev->stack.stack_size = rec->u.stack.stack_size;
      ev->stack.callchain = rec->u.stack.kernel_ips;
      ev->stack.n_callchain = rec->u.stack.n_kernel_ips;
      ev->stack.user_callchain = rec->u.stack.user_ips;
      ev->stack.n_user_callchain = rec->u.stack.n_user_ips;
      return TRUE;
    case ST_RECORD_MAP:
      ev->kind = ST_EVENT_MAP;
      ev->map.start = rec->u.map.start;
      ev->map.end = rec->u.map.end;
      ev->map.pgoff = rec->u.map.pgoff;
      ev->map.inode = rec->u.map.inode;
      ev->map.dev_major = rec->u.map.dev_major;
      ev->map.dev_minor = rec->u.map.dev_minor;
      ev->map.prot = rec->u.map.prot;
      ev->map.exec_known = rec->u.map.exec_known != 0;
      ev->map.filename = rec->u.map.filename;
      ev->map.build_id_len = (uint8_t) MIN (rec->u.map.build_id_len,
                                            ST_BUILD_ID_MAX);
      memcpy (ev->map.build_id, rec->u.map.build_id, ST_BUILD_ID_MAX);
      return TRUE;
    case ST_RECORD_COMM:
      ev->kind = ST_EVENT_PROCESS;
      ev->process.comm = rec->u.comm.comm;
      ev->process.exec = rec->u.comm.exec != 0;
      return TRUE;
    case ST_RECORD_FORK:
      ev->kind = ST_EVENT_FORK;
      ev->fork.parent_pid = rec->u.fork.parent_pid;
      ev->fork.parent_tid = rec->u.fork.parent_tid;
      return TRUE;
    case ST_RECORD_EXIT:
      ev->kind = ST_EVENT_EXIT;
      return TRUE;
    default:
      return FALSE;
    }
}

void
st_api_set_error (char **slot, const char *message)
{
  g_free (*slot);
  *slot = g_strdup (message != NULL ? message : "");
}

char *
st_printable_name (const char *name)
{
  /* (GLib allocates with malloc: free() frees it.)  */
  return name != NULL ? st_printable (name) : NULL;
}
