/* The unwinder on synthetic stacks: the committed fixture binary mapped
   as in its recording, 17 x86_64 registers and a stack copy from the
   bytes.  Whatever the stack holds, the walk must end, within its frame
   bound, with a cause.  */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/capture-types.h"
#include "fuzz-common.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "unwind/dwfl-unwinder.h"

#ifndef ST_FIXTURE_DIR
#error "ST_FIXTURE_DIR must name tests/data/fixture"
#endif

#define PID 16165

static StProcessTable *processes;
static StModuleCache *modules;
static StDwflUnwinder *unwinder;

static void
add_map (uint64_t start, uint64_t end, uint64_t offset, uint64_t inode,
         const char *name)
{
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_MAP;
  ev.pid = PID;
  ev.tid = PID;
  ev.map.start = start;
  ev.map.end = end;
  ev.map.pgoff = offset;
  ev.map.inode = inode;
  ev.map.filename = name;
  st_process_table_apply (processes, &ev);
}

static void
set_up (void)
{
  processes = st_process_table_new ();
  /* --symfs: the recorded path is gone, the basename is found here.  */
  modules = st_module_cache_new (ST_FIXTURE_DIR);
  unwinder = st_dwfl_unwinder_new (modules);
  add_map (0x401000, 0x477000, 0x1000, 10954281,
           "/tmp/st-fixture.zUq1pC/st-fixture");
  add_map (0x7faea5249000, 0x7faea524b000, 0, 0, "[vdso]");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static uint64_t ips[ST_UNWIND_MAX_FRAMES], sps[ST_UNWIND_MAX_FRAMES];
  uint64_t regs[17] = { 0 };
  StUnwindResult res;
  StEvent ev;

  if (unwinder == NULL)
    set_up ();
  memcpy (regs, data, MIN (size, sizeof regs));
  memset (&ev, 0, sizeof ev);
  ev.kind = ST_EVENT_STACK_USER;
  ev.pid = PID;
  ev.tid = PID;
  ev.stack.abi = ST_REGS_ABI_64;
  ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  ev.stack.regs = regs;
  ev.stack.n_regs = 17;
  if (size > sizeof regs)
    {
      ev.stack.stack = data + sizeof regs;
      ev.stack.stack_size = size - sizeof regs;
    }

  StProcess *p = st_process_table_get (processes, PID);
  st_dwfl_unwinder_unwind (unwinder, p, &ev, ips, sps, ST_UNWIND_MAX_FRAMES,
                           &res);
  if (getenv ("ST_FUZZ_VERBOSE") != NULL)
    fprintf (stderr, "unwind: %u frame(s), status %d, cause %s\n", res.n_ips,
             res.status, st_unwind_cause_name (res.cause));
  if (res.n_ips > ST_UNWIND_MAX_FRAMES || res.cause >= ST_CAUSE_N
      || (res.status == ST_UNWIND_COMPLETE) != (res.cause == ST_CAUSE_NONE))
    abort ();
  return 0;
}
