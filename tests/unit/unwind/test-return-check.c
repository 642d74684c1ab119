/* The table of return-address answers: the same answers as reading the
   code each time (st_return_follows_call), the code read once per
   address however often it is asked and whatever else the table holds,
   and afresh after it is emptied.  On a module made in memory: code with
   calls at known places, between runs of NOPs.  */
#include "config.h"

#include <elf.h>
#include <string.h>

#include <glib.h>

#include "model/module-cache.h"
#include "unwind/fast-arch.h"
#include "unwind/return-check.h"

#define CODE_SIZE 65536
#define BIAS 0x7f0000000000ull      /* runtime - ELF address */
#define CODE_VADDR 0x1000

static guint reads;
static const StFastArch *x86;

/* x86_64's answer, counted: each is one read of the code.  */
static gboolean
counting_follows_call (const uint8_t *before, size_t len)
{
  reads++;
  return x86->follows_call (before, len);
}

typedef struct
{
  uint8_t code[CODE_SIZE];
  StLoadSegment load;
  StModule module;
  StProcessModule pmod;
  StProcessModules pm;
  StFastArch arch;
  GHashTable *calls;      /* return addresses (runtime) that follow one */
} Module;

/* NOPs, with a `call rel32` or a `call *%rax` (FF D0) every so often.  */
static void
module_init (Module *m)
{
  memset (m, 0, sizeof *m);
  memset (m->code, 0x90, sizeof m->code);
  m->calls = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (size_t at = 16; at + 8 < CODE_SIZE; at += 16 + (at % 7))
    {
      size_t len = (at / 16) % 2 ? 5 : 2;
      if (len == 5)
        memcpy (m->code + at, "\xe8\x10\x20\x30\x40", 5);
      else
        memcpy (m->code + at, "\xff\xd0", 2);
      uint64_t *ra = g_new (uint64_t, 1);
      *ra = BIAS + CODE_VADDR + at + len;
      g_hash_table_add (m->calls, ra);
    }
  m->load = (StLoadSegment) { CODE_VADDR, 0, CODE_SIZE, CODE_SIZE,
                              PF_R | PF_X };
  m->module.data = m->code;
  m->module.size = CODE_SIZE;
  m->module.loads = &m->load;
  m->module.n_loads = 1;
  m->pmod = (StProcessModule) { &m->module, BIAS + CODE_VADDR,
                                BIAS + CODE_VADDR + CODE_SIZE, BIAS };
  m->pm.mods = &m->pmod;
  m->pm.n = m->pm.cap = 1;
  x86 = st_fast_arch (EM_X86_64);
  g_assert_nonnull (x86);
  m->arch = *x86;
  m->arch.follows_call = counting_follows_call;
}

static void
module_clear (Module *m)
{
  g_hash_table_foreach (m->calls, (GHFunc) g_free, NULL);
  g_hash_table_destroy (m->calls);
}

static gboolean
is_call (Module *m, uint64_t ra)
{
  return g_hash_table_contains (m->calls, &ra);
}

/* Every address of the code as a return address, asked three times
   (the table grows from 64 slots to 65,536 on the way): the answers
   are the code's, and the code is read once per address.  */
static void
test_answers (void)
{
  Module *m = g_new (Module, 1);
  module_init (m);
  StReturnCheck *rc = st_return_check_new ();
  size_t small = st_return_check_bytes (rc);
  uint64_t first = BIAS + CODE_VADDR + 1, end = BIAS + CODE_VADDR + CODE_SIZE;

  reads = 0;
  for (int round = 0; round < 3; round++)
    for (uint64_t ra = first; ra <= end; ra++)
      {
        gboolean ok = st_return_check_keyed (rc, ra - 1 - BIAS, &m->arch,
                                             &m->pm, ra);
        g_assert_cmpint (ok, ==, is_call (m, ra));
      }
  g_assert_cmpuint (reads, ==, end - first + 1);
  g_assert_cmpuint (st_return_check_bytes (rc), >, small);

  /* Emptied: back to its first size, and the code is read again.  */
  st_return_check_clear (rc);
  g_assert_cmpuint (st_return_check_bytes (rc), ==, small);
  reads = 0;
  uint64_t call = BIAS + CODE_VADDR + 16 + 5;   /* after the first call */
  g_assert_true (is_call (m, call));
  g_assert_true (st_return_check (rc, &m->arch, &m->pm, call));
  g_assert_false (st_return_check (rc, &m->arch, &m->pm, call - 2));
  g_assert_true (st_return_check (rc, &m->arch, &m->pm, call));
  g_assert_cmpuint (reads, ==, 2);

  st_return_check_free (rc);
  module_clear (m);
  g_free (m);
}

/* Outside the module (no code: not checked), 0 (the outermost frame)
   and keys too big to keep: answered, never kept wrongly.  */
static void
test_edges (void)
{
  Module *m = g_new (Module, 1);
  module_init (m);
  StReturnCheck *rc = st_return_check_new ();
  uint64_t call = BIAS + CODE_VADDR + 16 + 5, not_call = call - 2;

  reads = 0;
  g_assert_true (st_return_check (rc, &m->arch, &m->pm, 0x1234));
  g_assert_true (st_return_check (rc, &m->arch, &m->pm, 0));
  g_assert_true (st_return_check (NULL, &m->arch, &m->pm, not_call));
  g_assert_cmpuint (reads, ==, 0);
  for (int i = 0; i < 2; i++)
    g_assert_false (st_return_check_keyed (rc, G_MAXUINT64 - i, &m->arch,
                                           &m->pm, not_call));
  g_assert_cmpuint (reads, ==, 2);
  /* The key is the caller's: the same address under two keys is read
     twice, and each key keeps its own answer.  */
  g_assert_false (st_return_check_keyed (rc, 1, &m->arch, &m->pm, not_call));
  g_assert_true (st_return_check_keyed (rc, 2, &m->arch, &m->pm, call));
  g_assert_false (st_return_check_keyed (rc, 1, &m->arch, &m->pm, 0x1234));
  g_assert_cmpuint (reads, ==, 4);

  st_return_check_free (rc);
  module_clear (m);
  g_free (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/return-check/answers", test_answers);
  g_test_add_func ("/return-check/edges", test_edges);
  return g_test_run ();
}
