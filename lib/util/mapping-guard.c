/* A fixed table of guarded ranges and the SIGBUS handler that reads it
   (see mapping-guard.h).  */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/mapping-guard.h"

/* Modules (2048 at most in the cache, each with maybe a debug file), the
   input, and room to spare.  */
#define ST_GUARD_SLOTS 8192

struct StMappingGuard
{
  uintptr_t start;          /* atomic; 0: free */
  size_t len;               /* atomic; 0 while being filled */
  uint64_t first_fault;     /* atomic; offset + 1, 0: none */
};

static StMappingGuard slots[ST_GUARD_SLOTS];
static guint slots_used;    /* high-water mark (LOCK) */
static uint64_t n_faults;   /* atomic */
static GMutex lock;

static StMappingGuard *
find_slot (uintptr_t addr)
{
  guint used = __atomic_load_n (&slots_used, __ATOMIC_ACQUIRE);

  for (guint i = 0; i < used; i++)
    {
      size_t len = __atomic_load_n (&slots[i].len, __ATOMIC_ACQUIRE);
      uintptr_t start = __atomic_load_n (&slots[i].start, __ATOMIC_ACQUIRE);
      if (len != 0 && start != 0 && addr - start < len)
        return &slots[i];
    }
  return NULL;
}

static void
die_by_default (int sig)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset (&sa.sa_mask);
  sigaction (sig, &sa, NULL);
  /* Returning re-runs the faulting read, which now kills.  */
}

static void
on_sigbus (int sig, siginfo_t *info, void *context)
{
  (void) context;
  uintptr_t addr = (uintptr_t) info->si_addr;
  StMappingGuard *g = info->si_code == BUS_ADRERR ? find_slot (addr) : NULL;
  long page = sysconf (_SC_PAGESIZE);

  if (g == NULL || page <= 0)
    {
      die_by_default (sig);
      return;
    }
  void *at = (void *) (addr & ~((uintptr_t) page - 1));
  if (mmap (at, (size_t) page, PROT_READ,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
    {
      die_by_default (sig);
      return;
    }
  uint64_t offset = (uint64_t) ((uintptr_t) at - g->start) + 1;
  uint64_t old = __atomic_load_n (&g->first_fault, __ATOMIC_RELAXED);
  while ((old == 0 || offset < old)
         && !__atomic_compare_exchange_n (&g->first_fault, &old, offset,
                                          FALSE, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED))
    ;
  __atomic_add_fetch (&n_faults, 1, __ATOMIC_RELEASE);
}

void
st_mapping_guard_install (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      struct sigaction sa;

      memset (&sa, 0, sizeof sa);
      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGBUS, &sa, NULL);
      g_once_init_leave (&done, 1);
    }
}

StMappingGuard *
st_mapping_guard_add (const void *start, size_t len)
{
  StMappingGuard *g = NULL;

  if (start == NULL || len == 0)
    return NULL;
  g_mutex_lock (&lock);
  for (guint i = 0; i < slots_used && g == NULL; i++)
    if (__atomic_load_n (&slots[i].start, __ATOMIC_RELAXED) == 0)
      g = &slots[i];
  if (g == NULL && slots_used < ST_GUARD_SLOTS)
    {
      g = &slots[slots_used];
      __atomic_store_n (&slots_used, slots_used + 1, __ATOMIC_RELEASE);
    }
  if (g != NULL)
    {
      __atomic_store_n (&g->len, 0, __ATOMIC_RELEASE);
      __atomic_store_n (&g->first_fault, 0, __ATOMIC_RELAXED);
      __atomic_store_n (&g->start, (uintptr_t) start, __ATOMIC_RELEASE);
      __atomic_store_n (&g->len, len, __ATOMIC_RELEASE);
    }
  g_mutex_unlock (&lock);
  return g;
}

void
st_mapping_guard_remove (StMappingGuard *g)
{
  if (g == NULL)
    return;
  g_mutex_lock (&lock);
  __atomic_store_n (&g->len, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&g->start, 0, __ATOMIC_RELEASE);
  g_mutex_unlock (&lock);
}

gboolean
st_mapping_guard_faulted (const StMappingGuard *g, uint64_t *first)
{
  uint64_t f = g != NULL ? __atomic_load_n (&g->first_fault, __ATOMIC_ACQUIRE)
                         : 0;

  if (f == 0)
    return FALSE;
  if (first != NULL)
    *first = f - 1;
  return TRUE;
}

uint64_t
st_mapping_guard_faults (void)
{
  return __atomic_load_n (&n_faults, __ATOMIC_ACQUIRE);
}
