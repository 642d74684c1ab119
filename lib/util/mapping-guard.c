/* A fixed table of guarded ranges and the SIGBUS handler that reads it
   (see mapping-guard.h).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/mapping-guard.h"

/* Modules (2048 at most in the cache, each with maybe a debug file), the
   input, and room to spare.  */
#define ST_GUARD_SLOTS 8192

/* Separate debug files and dwz files, one per file.  */
#define ST_GUARD_FILES 4096

struct StMappingGuard
{
  uintptr_t start;          /* atomic; 0: free (files: unused) */
  size_t len;               /* atomic; 0 while being filled */
  uint64_t first_fault;     /* atomic; offset + 1, 0: none */
  uint64_t dev, ino;        /* files only; set before publishing */
};

static StMappingGuard slots[ST_GUARD_SLOTS];
static guint slots_used;    /* high-water mark (LOCK) */
static StMappingGuard files[ST_GUARD_FILES];
static guint files_used;    /* atomic; written under LOCK */
static uint64_t n_faults;   /* atomic */
/* pthread rather than GMutex: ThreadSanitizer sees it (GLib's lock is
   futex-based inside libglib).  */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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

/* The file guard of the file mapped at ADDR, from /proc/self/maps;
   *MAP_OFFSET gets the file offset of PAGE_START (ADDR's page).
   Async-signal-safe: open, read, close and arithmetic only.  */
static StMappingGuard *
find_file (uintptr_t addr, uintptr_t page_start, uint64_t *map_offset)
{
  guint used = __atomic_load_n (&files_used, __ATOMIC_ACQUIRE);
  /* A line's fields: start-end perms offset major:minor inode path.  */
  enum { START, END, PERMS, OFFSET, MAJOR, MINOR, INODE, PATH };
  uint64_t v[PATH] = { 0 };
  guint k = START;
  StMappingGuard *found = NULL;
  char buf[4096];
  ssize_t n;

  if (used == 0)
    return NULL;
  int fd = open ("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  while (found == NULL && (n = read (fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n && found == NULL; i++)
      {
        char c = buf[i];
        if (c == '\n')
          {
            if (k >= INODE && addr >= v[START] && addr < v[END] && v[INODE])
              for (guint f = 0; f < used && found == NULL; f++)
                if (files[f].ino == v[INODE]
                    && files[f].dev == makedev (v[MAJOR], v[MINOR]))
                  {
                    found = &files[f];
                    *map_offset = v[OFFSET] + (page_start - v[START]);
                  }
            memset (v, 0, sizeof v);
            k = START;
          }
        else if (k >= PATH)
          ;
        else if (c == (k == START ? '-' : k == MAJOR ? ':' : ' '))
          k++;
        else if (k == INODE && c >= '0' && c <= '9')
          v[k] = v[k] * 10 + (uint64_t) (c - '0');
        else if (k != PERMS && k != INODE)
          v[k] = v[k] * 16 + (uint64_t) (c <= '9' ? c - '0' : c - 'a' + 10);
      }
  close (fd);
  return found;
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
  void *at = (void *) (addr & ~((uintptr_t) page - 1));
  uint64_t file_offset = 0;
  gboolean is_file = FALSE;
  int saved_errno = errno;

  if (g == NULL && info->si_code == BUS_ADRERR && page > 0)
    is_file = (g = find_file (addr, (uintptr_t) at, &file_offset)) != NULL;
  errno = saved_errno;
  if (g == NULL || page <= 0)
    {
      die_by_default (sig);
      return;
    }
  if (mmap (at, (size_t) page, PROT_READ,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
    {
      die_by_default (sig);
      return;
    }
  uint64_t offset = is_file ? file_offset + 1
                            : (uint64_t) ((uintptr_t) at - g->start) + 1;
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
  pthread_mutex_lock (&lock);
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
  pthread_mutex_unlock (&lock);
  return g;
}

StMappingGuard *
st_mapping_guard_add_file (uint64_t dev, uint64_t ino)
{
  StMappingGuard *g = NULL;

  pthread_mutex_lock (&lock);
  guint used = __atomic_load_n (&files_used, __ATOMIC_RELAXED);
  for (guint i = 0; i < used && g == NULL; i++)
    if (files[i].dev == dev && files[i].ino == ino)
      g = &files[i];
  if (g == NULL && used < ST_GUARD_FILES)
    {
      g = &files[used];
      g->dev = dev;
      g->ino = ino;
      __atomic_store_n (&files_used, used + 1, __ATOMIC_RELEASE);
    }
  pthread_mutex_unlock (&lock);
  return g;
}

void
st_mapping_guard_remove (StMappingGuard *g)
{
  if (g == NULL)
    return;
  pthread_mutex_lock (&lock);
  __atomic_store_n (&g->len, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&g->start, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&lock);
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
