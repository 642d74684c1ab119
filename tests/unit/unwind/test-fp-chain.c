/* Continuing a DWARF chain with the recorder's frame-pointer chain
   (unwind/fp-chain.h), on chains built here whose answers follow from
   perf's callchain layout (the sampled IP, then return addresses) and
   the rule that a frame-pointer walk may skip callers of functions
   without frame pointers but never invents frames:

   - the join: frame-pointer entries as a subsequence of the DWARF
     frames (return address - 1), the last matched one DWARF's
     outermost; recursion (repeated return addresses); refused when they
     disagree on the IP, when the chain holds a frame DWARF does not,
     when DWARF's outermost is not in it;
   - what is appended: return address - 1 with stack pointer 0, while
     the address lies in code the process maps (a file mapped
     executable, or of unknown protection), stopping at data, anonymous
     memory, unmapped addresses, 0 and perf's context markers, and at
     the frame bound (a chain that loops stays bounded);
   - nothing at all without maps, frames or a chain of two.  */
#include "config.h"

#include <glib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/event.h"
#include "unwind/fp-chain.h"

#define CODE 0x400000ull        /* a program's code, mapped r-x */
#define DATA 0x600000ull        /* its data, rw- */
#define ANON 0x700000ull        /* anonymous memory, protection unknown */
#define LIB 0x7f0000000000ull   /* a library, protection unknown */
#define UNMAPPED 0x900000ull

static StAddressSpace *
make_maps (void)
{
  StAddressSpace *as = st_address_space_new ();
  StMap m = { 0 };

  m.start = CODE;
  m.end = CODE + 0x100000;
  m.filename = "/usr/bin/prog";
  m.prot = PROT_READ | PROT_EXEC;
  m.exec_known = TRUE;
  st_address_space_add (as, &m);
  m.start = DATA;
  m.end = DATA + 0x1000;
  m.prot = PROT_READ | PROT_WRITE;
  st_address_space_add (as, &m);
  m.start = ANON;
  m.end = ANON + 0x1000;
  m.filename = "";
  m.exec_known = FALSE;
  m.prot = 0;
  st_address_space_add (as, &m);
  m.start = LIB;
  m.end = LIB + 0x100000;
  m.filename = "/usr/lib/libfoo.so";
  st_address_space_add (as, &m);
  return as;
}

#define MAX_CHAIN 16

typedef struct
{
  uint64_t ips[MAX_CHAIN];
  uint64_t sps[MAX_CHAIN];
  uint32_t n;
} Chain;

/* DWARF's chain: the leaf IP, then return addresses RA[i] - 1 (0
   ends).  */
static void
dwarf_chain (Chain *c, uint64_t ip, const uint64_t *ra)
{
  memset (c, 0, sizeof *c);
  c->ips[0] = ip;
  c->sps[0] = 0x7ffc0000;
  c->n = 1;
  for (; *ra != 0; ra++, c->n++)
    {
      c->ips[c->n] = *ra - 1;
      c->sps[c->n] = 0x7ffc0000 + 0x10 * c->n;
    }
}

/* Continues DWARF chain (IP, RA...) with frame-pointer chain FP (N_FP
   entries) up to MAX_FRAMES; asserts that WANT (return addresses, 0
   ends) were appended, as RA - 1 with stack pointer 0, after an intact
   DWARF part.  */
static void
check (const StAddressSpace *maps, uint64_t ip, const uint64_t *ra,
       const uint64_t *fp, uint32_t n_fp, uint32_t max_frames,
       const uint64_t *want)
{
  Chain c, before;
  guint n_want = 0;

  dwarf_chain (&c, ip, ra);
  before = c;
  while (want[n_want] != 0)
    n_want++;
  uint32_t added = st_fp_chain_continue (fp, n_fp, maps, c.ips, c.sps, &c.n,
                                         max_frames, NULL, NULL);
  g_assert_cmpuint (added, ==, n_want);
  g_assert_cmpuint (c.n, ==, before.n + n_want);
  g_assert_true (memcmp (c.ips, before.ips, before.n * sizeof c.ips[0]) == 0);
  g_assert_true (memcmp (c.sps, before.sps, before.n * sizeof c.sps[0]) == 0);
  for (guint i = 0; i < n_want; i++)
    {
      g_assert_cmphex (c.ips[before.n + i], ==, want[i] - 1);
      g_assert_cmphex (c.sps[before.n + i], ==, 0);
    }
  /* Nothing written beyond.  */
  for (guint i = c.n; i < MAX_CHAIN; i++)
    g_assert_cmphex (c.ips[i], ==, 0);
}

#define IP (CODE + 0x100)
#define A (CODE + 0x200)
#define B (CODE + 0x300)
#define C (LIB + 0x400)
#define D (CODE + 0x500)
#define X (CODE + 0x600)
#define NONE ((const uint64_t[]) { 0 })

static void
test_join (void)
{
  StAddressSpace *maps = make_maps ();

  /* Both agree, the chain goes on: C, D appended.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP, A, B, C, D }, 5, MAX_CHAIN,
         (const uint64_t[]) { C, D, 0 });
  /* The frame-pointer walk skipped X's caller frame (no frame pointer
     there): still a subsequence.  */
  check (maps, IP, (const uint64_t[]) { A, X, B, 0 },
         (const uint64_t[]) { IP, A, B, C }, 4, MAX_CHAIN,
         (const uint64_t[]) { C, 0 });
  /* Recursion: A twice in both; and A twice in DWARF, once in FP.  */
  check (maps, IP, (const uint64_t[]) { A, A, B, 0 },
         (const uint64_t[]) { IP, A, A, B, C }, 5, MAX_CHAIN,
         (const uint64_t[]) { C, 0 });
  check (maps, IP, (const uint64_t[]) { A, A, B, 0 },
         (const uint64_t[]) { IP, A, B, C }, 4, MAX_CHAIN,
         (const uint64_t[]) { C, 0 });
  /* DWARF has only the leaf: everything after the IP.  */
  check (maps, IP, NONE, (const uint64_t[]) { IP, A, B }, 3, MAX_CHAIN,
         (const uint64_t[]) { A, B, 0 });
  /* The walk skipped A; what follows DWARF's outermost (B) is taken as
     is, even an address DWARF saw earlier.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP, B, A, C }, 4, MAX_CHAIN,
         (const uint64_t[]) { A, C, 0 });
  /* The chain ends where DWARF does: nothing to add.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP, A, B }, 3, MAX_CHAIN, NONE);
  st_address_space_free (maps);
}

static void
test_refused (void)
{
  StAddressSpace *maps = make_maps ();

  /* Another IP.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP + 1, A, B, C }, 4, MAX_CHAIN, NONE);
  /* A frame DWARF does not have (X): the walks went different ways.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP, X, B, C }, 4, MAX_CHAIN, NONE);
  /* DWARF's outermost frame (B) is not in the chain.  */
  check (maps, IP, (const uint64_t[]) { A, B, 0 },
         (const uint64_t[]) { IP, A, C, D }, 4, MAX_CHAIN, NONE);
  /* No frame in common beyond the IP.  */
  check (maps, IP, (const uint64_t[]) { A, 0 },
         (const uint64_t[]) { IP, C, D }, 3, MAX_CHAIN, NONE);
  /* A chain of one entry, or none.  */
  check (maps, IP, NONE, (const uint64_t[]) { IP }, 1, MAX_CHAIN, NONE);
  check (maps, IP, NONE, (const uint64_t[]) { IP, A }, 0, MAX_CHAIN, NONE);

  /* No maps, no DWARF frames.  */
  Chain c;
  static const uint64_t fp[] = { IP, A, B };
  dwarf_chain (&c, IP, NONE);
  g_assert_cmpuint (st_fp_chain_continue (fp, 3, NULL, c.ips, c.sps, &c.n,
                                          MAX_CHAIN, NULL, NULL), ==, 0);
  g_assert_cmpuint (c.n, ==, 1);
  c.n = 0;
  g_assert_cmpuint (st_fp_chain_continue (fp, 3, maps, c.ips, c.sps, &c.n,
                                          MAX_CHAIN, NULL, NULL), ==, 0);
  g_assert_cmpuint (c.n, ==, 0);
  st_address_space_free (maps);
}

/* What is appended stops at the first entry that is not code.  */
static void
test_stops (void)
{
  StAddressSpace *maps = make_maps ();
  static const uint64_t not_code[] = {
    DATA + 8, ANON + 8, UNMAPPED, 0, ST_CONTEXT_USER, ST_CONTEXT_KERNEL,
    ST_CONTEXT_MAX, G_MAXUINT64,
  };

  for (guint i = 0; i < G_N_ELEMENTS (not_code); i++)
    {
      uint64_t fp[] = { IP, A, C, not_code[i], D };
      check (maps, IP, (const uint64_t[]) { A, 0 }, fp, 5, MAX_CHAIN,
             (const uint64_t[]) { C, 0 });
    }
  /* A library of unknown protection is code, like C above; the end of
     a mapping is not in it.  */
  check (maps, IP, NONE, (const uint64_t[]) { IP, LIB, LIB + 0x100000 }, 3,
         MAX_CHAIN, (const uint64_t[]) { LIB, 0 });
  st_address_space_free (maps);
}

/* The frame bound: a chain that loops (the same return address over and
   over, as a corrupt frame pointer pointing at itself gives) stops at
   MAX_FRAMES; a chain already full gets nothing.  */
static void
test_bound (void)
{
  StAddressSpace *maps = make_maps ();
  uint64_t loop[40];

  loop[0] = IP;
  loop[1] = A;
  for (guint i = 2; i < G_N_ELEMENTS (loop); i++)
    loop[i] = C;
  check (maps, IP, (const uint64_t[]) { A, 0 }, loop, G_N_ELEMENTS (loop), 5,
         (const uint64_t[]) { C, C, C, 0 });
  check (maps, IP, (const uint64_t[]) { A, 0 }, loop, G_N_ELEMENTS (loop), 2,
         NONE);
  check (maps, IP, (const uint64_t[]) { A, 0 }, loop, 4, MAX_CHAIN,
         (const uint64_t[]) { C, C, 0 });
  st_address_space_free (maps);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fp-chain/join", test_join);
  g_test_add_func ("/fp-chain/refused", test_refused);
  g_test_add_func ("/fp-chain/stops", test_stops);
  g_test_add_func ("/fp-chain/bound", test_bound);
  return g_test_run ();
}
