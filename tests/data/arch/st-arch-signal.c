/* The program of the signal sets of tests/data/arch (README): signal
   handlers that run a few calls deep, entered from a system call
   (raise (SIGUSR1), a handler without SA_SIGINFO: i386's sigreturn
   frame) and from a fault in a leaf function (a store to a page made
   writable by the SIGSEGV handler, SA_SIGINFO: the rt_sigframe), each
   a few frames down a recursion.  Built static; the handlers return
   through the kernel's trampoline (aarch64: the vDSO's
   __kernel_rt_sigreturn, here qemu-user's page of the same code) or
   libc's (i386: __restore, __restore_rt).  At exit it copies
   /proc/self/maps to the file named by ST_ARCH_MAPS.  */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile int sink;
static char *fault_page;

__attribute__ ((noinline)) static int
st_handler_leaf (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i * sink;
  return s;
}

__attribute__ ((noinline)) static int
st_handler_work (int n)
{
  char buf[64];
  memset (buf, n, sizeof buf);
  return st_handler_leaf (n) + buf[3];
}

static void
st_on_usr1 (int sig)
{
  sink += st_handler_work (4 + sig % 8);
}

static void
st_on_segv (int sig, siginfo_t *info, void *context)
{
  char *page = (char *) ((uintptr_t) info->si_addr & ~(uintptr_t) 4095);
  sink += st_handler_work (4 + sig % 8);
  mprotect (page, 4096, PROT_READ | PROT_WRITE);
}

/* A leaf: on aarch64 its caller is in the link register.  */
__attribute__ ((noinline)) static void
st_fault (int *p)
{
  *p = sink;
}

__attribute__ ((noinline)) int
st_signal_recurse (int depth)
{
  if (depth == 0)
    {
      raise (SIGUSR1);
      mprotect (fault_page, 4096, PROT_NONE);
      st_fault ((int *) (fault_page + 64));
      return 1;
    }
  return st_signal_recurse (depth - 1) + 1;
}

/* The mappings as the emulator shows them, for pack-samples.py.  */
static void
save_maps (const char *out)
{
  int in = open ("/proc/self/maps", O_RDONLY);
  int o = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[4096];
  ssize_t n;

  while (in >= 0 && o >= 0 && (n = read (in, buf, sizeof buf)) > 0)
    if (write (o, buf, (size_t) n) != n)
      break;
  close (in);
  close (o);
}

int
main (void)
{
  struct sigaction sa;
  int sum = 0;

  fault_page = mmap (NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = st_on_usr1;
  sigaction (SIGUSR1, &sa, NULL);
  sa.sa_sigaction = st_on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction (SIGSEGV, &sa, NULL);
  for (int i = 0; i < 3; i++)
    sum += st_signal_recurse (i + 1);
  if (getenv ("ST_ARCH_MAPS") != NULL)
    save_maps (getenv ("ST_ARCH_MAPS"));
  return sum == 12345;
}
