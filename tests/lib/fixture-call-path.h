/* The committed fixture's known call path (tests/data/fixture,
   st-fixture.c): every sample of its recording unwound to _start, and
   those whose leaf is st_leaf_work exactly

     st_leaf_work, st_recurse x 6..61, st_run, main,
     __libc_start_call_main, __libc_start_main, _start

   Functions are told by st-fixture's own symbol table, read with libelf
   (an address is in function NAME when a symbol NAME covers it), not
   by anything of lib/.  */
#ifndef ST_TEST_FIXTURE_CALL_PATH_H
#define ST_TEST_FIXTURE_CALL_PATH_H

#include <glib.h>
#include <stdint.h>

#include "model/event.h"
#include "model/process-table.h"
#include "unwind/unwind-result.h"

typedef struct FixtureSymbols FixtureSymbols;

/* The function symbols of the ELF file PATH.  */
FixtureSymbols *fixture_symbols_load (const char *path);
void fixture_symbols_free (FixtureSymbols *s);

/* Whether a function symbol named NAME covers ADDR.  */
gboolean fixture_symbols_in (const FixtureSymbols *s, uint64_t addr,
                             const char *name);
/* The address of the function symbol NAME (0 if none).  */
uint64_t fixture_symbols_address (const FixtureSymbols *s, const char *name);
/* The name of a function symbol covering ADDR, or "?".  */
const char *fixture_symbols_name (const FixtureSymbols *s, uint64_t addr);

/* Checks the chain IPS[0..N) (leaf first, callers as return address - 1)
   of a fixture sample against the known path: NULL when it follows it,
   else what is wrong (newly allocated).  *IN_WORK: whether the leaf is
   in st_leaf_work (the exact path was checked).  */
char *fixture_call_path_check (const FixtureSymbols *s, const uint64_t *ips,
                               guint n, gboolean *in_work);

/* The chain as "name;name;..." (newly allocated), for messages.  */
char *fixture_call_path_describe (const FixtureSymbols *s,
                                  const uint64_t *ips, guint n);

/* Fails the test, naming the sample EV and its chain, unless the walk
   RES (frames IPS) is complete along the known path.  Returns whether
   the leaf is in st_leaf_work.  */
gboolean fixture_call_path_assert (const FixtureSymbols *s, const StEvent *ev,
                                   const uint64_t *ips,
                                   const StUnwindResult *res);

/* An engine's unwind function (as st_unwinder_unwind).  */
typedef void (*FixtureUnwind) (void *engine, StProcess *p, const StEvent *ev,
                               uint64_t *ips, uint64_t *sps, uint32_t max_ips,
                               StUnwindResult *res);

/* Checks the walks of sample EV of P cut short, given its full walk
   (IPS, SPS, N frames, N > 11): with the stack copy ending at frame
   10's stack pointer, which holds the return addresses of frames 1..10
   (each just below its frame's stack pointer, x86_64's CFA), exactly
   frames 0..10, stopped at the end of the stack; with no stack, the
   leaf alone, the same; with a limit of 7 frames, the first 7, stopped
   by the limit.  */
void fixture_check_cut_walks (FixtureUnwind unwind, void *engine,
                              StProcess *p, const StEvent *ev,
                              const uint64_t *ips, const uint64_t *sps,
                              uint32_t n);

/* Reads the recording PATH (a capture or perf.data): applies every
   mapping and process event to PROCESSES and calls SAMPLE for each
   raw-stack sample, with its process.  Returns the samples seen.  */
guint fixture_for_each_sample (const char *path, StProcessTable *processes,
                               void (*sample) (StProcess *p,
                                               const StEvent *ev,
                                               void *user),
                               void *user);

#endif /* ST_TEST_FIXTURE_CALL_PATH_H */
