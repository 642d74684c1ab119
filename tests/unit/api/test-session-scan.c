/* st_session_scan_process (session.h): a live process the session was
   told nothing of, its name and mappings read from /proc, then one of
   its stacks unwound as a profiler in the same machine would.

   The child is ours, forked from the test: st_scan_outer -> st_scan_middle ->
   st_scan_leaf, which blocks in read().  The parent stops it with
   ptrace, takes its registers (PTRACE_GETREGSET, NT_PRSTATUS) and a
   copy of its stack (process_vm_readv) as perf would sample them, and
   asks the session for the chain: the known path must be there, in
   order, named.  No perf events needed.  Skips (77) where ptrace is not
   allowed, or on an architecture whose register layout the test does
   not know.  */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stacktrace-1/stacktrace.h>

/* As much as perf can copy: ASan's frames are large.  */
#define STACK_COPY 65528

/* The child's known path.  noinline and work after each call: no
   inlining, no tail call.  */
static int go_fd = -1, ready_fd = -1;
static volatile int sink;

__attribute__ ((noinline)) static int
st_scan_leaf (int n)
{
  char c = 'r';

  if (write (ready_fd, &c, 1) != 1)
    _exit (3);
  /* Blocks here until the parent is done (the pipe is closed).  */
  if (read (go_fd, &c, 1) < 0)
    _exit (4);
  sink = n;
  return n + sink;
}

__attribute__ ((noinline)) static int
st_scan_middle (int n)
{
  int r = st_scan_leaf (n + 1);
  sink = r;
  return r + 1;
}

__attribute__ ((noinline)) static int
st_scan_outer (int n)
{
  int r = st_scan_middle (n + 1);
  sink = r;
  return r + 1;
}

/* The registers of a stopped thread as perf's PERF_SAMPLE_REGS_USER
   gives them (ascending perf register numbers) and their mask; FALSE
   for an architecture not known here.  */
static gboolean
sample_regs (pid_t pid, uint64_t *regs, uint32_t *n_regs, uint64_t *mask)
{
#if defined(__x86_64__)
  struct user_regs_struct r;
  struct iovec iov = { &r, sizeof r };

  g_assert_cmpint (ptrace (PTRACE_GETREGSET, pid, (void *) NT_PRSTATUS, &iov),
                   ==, 0);
  /* AX BX CX DX SI DI BP SP IP FLAGS CS SS, R8-R15 (perf leaves out
     DS ES FS GS: mask 0xff0fff).  */
  const uint64_t v[] = { r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp,
                         r.rsp, r.rip, r.eflags, r.cs, r.ss, r.r8, r.r9,
                         r.r10, r.r11, r.r12, r.r13, r.r14, r.r15 };
  memcpy (regs, v, sizeof v);
  *n_regs = G_N_ELEMENTS (v);
  *mask = 0xff0fff;
  return TRUE;
#elif defined(__aarch64__)
  struct user_regs_struct r;
  struct iovec iov = { &r, sizeof r };

  g_assert_cmpint (ptrace (PTRACE_GETREGSET, pid, (void *) NT_PRSTATUS, &iov),
                   ==, 0);
  /* X0-X30, SP, PC.  */
  for (int i = 0; i < 31; i++)
    regs[i] = r.regs[i];
  regs[31] = r.sp;
  regs[32] = r.pc;
  *n_regs = 33;
  *mask = (UINT64_C (1) << 33) - 1;
  return TRUE;
#else
  (void) pid, (void) regs, (void) n_regs, (void) mask;
  return FALSE;
#endif
}

static uint64_t
stack_pointer (const uint64_t *regs)
{
#if defined(__x86_64__)
  return regs[7];
#elif defined(__aarch64__)
  return regs[31];
#else
  (void) regs;
  return 0;
#endif
}

static void
test_unwind_scanned (void)
{
  uint64_t regs[64];
  uint32_t n_regs;
  uint64_t mask;
  int go[2], ready[2];

#if !defined(__x86_64__) && !defined(__aarch64__)
  g_test_skip ("no register layout for this architecture in the test");
  return;
#endif
  g_assert_cmpint (pipe (go), ==, 0);
  g_assert_cmpint (pipe (ready), ==, 0);
  pid_t child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      close (go[1]);
      close (ready[0]);
      go_fd = go[0];
      ready_fd = ready[1];
      _exit (st_scan_outer (1) > 0 ? 0 : 1);
    }
  close (go[0]);
  close (ready[1]);
  char c;
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);

  if (ptrace (PTRACE_SEIZE, child, NULL, NULL) != 0)
    {
      int err = errno;
      kill (child, SIGKILL);
      waitpid (child, NULL, 0);
      g_test_skip_printf ("ptrace not allowed here: %s", g_strerror (err));
      return;
    }
  g_assert_cmpint (ptrace (PTRACE_INTERRUPT, child, NULL, NULL), ==, 0);
  int status;
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFSTOPPED (status));

  g_assert_true (sample_regs (child, regs, &n_regs, &mask));
  static uint8_t stack[STACK_COPY];
  struct iovec local = { stack, sizeof stack };
  struct iovec remote = { (void *) (uintptr_t) stack_pointer (regs),
                          sizeof stack };
  ssize_t got = process_vm_readv (child, &local, 1, &remote, 1, 0);
  g_assert_cmpint (got, >, 256);

  StCache *cache = st_cache_new ();
  StSession *session = st_session_new (cache, 0);
  g_assert_cmpint (st_session_scan_process (session, child), ==, ST_OK);

  StRecord rec;
  memset (&rec, 0, sizeof rec);
  rec.kind = ST_RECORD_STACK_SAMPLE;
  rec.pid = child;
  rec.tid = child;
  rec.cpu = -1;
  rec.u.stack.abi = ST_REGS_ABI_64BIT;
  rec.u.stack.n_regs = n_regs;
  rec.u.stack.regs_mask = mask;
  rec.u.stack.regs = regs;
  rec.u.stack.stack = stack;
  rec.u.stack.stack_size = (uint64_t) got;

  uint64_t frames[ST_MAX_FRAMES];
  StChainInfo info;
  char name[256];
  g_assert_cmpint (st_session_unwind (session, &rec, frames, ST_MAX_FRAMES,
                                      &info), ==, ST_OK);
  /* The known path, in order, below libc's write or read (the child
     may not have left write yet) and above GLib's test runner, main
     and _start.  */
  static const char *const path[] = { "st_scan_leaf", "st_scan_middle",
                                      "st_scan_outer", "test_unwind_scanned",
                                      "main", "_start" };
  guint at = 0;
  GString *chain = g_string_new (NULL);
  for (uint32_t i = 0; i < info.n_frames; i++)
    {
      g_assert_cmpint (st_session_symbolize (session, child, frames[i], name,
                                             sizeof name), >=, 0);
      g_string_append_printf (chain, " %s", name);
      /* (A compiler's clone keeps its name: NAME.constprop.0.)  */
      size_t len = at < G_N_ELEMENTS (path) ? strlen (path[at]) : 0;
      if (len > 0 && strncmp (name, path[at], len) == 0
          && (name[len] == '\0' || name[len] == '.'))
        at++;
    }
  g_test_message ("chain (%d, %u frames):%s", (int) info.status,
                  info.n_frames, chain->str);
  g_assert_cmpuint (at, ==, G_N_ELEMENTS (path));
  /* The process's name from /proc (the kernel's comm).  */
  StCounters counters;
  g_assert_cmpint (st_session_get_counters (session, &counters), ==, ST_OK);
  g_assert_cmpuint (counters.samples, ==, 1);
  g_string_free (chain, TRUE);

  st_session_free (session);
  st_cache_free (cache);
  /* Let the child go: detach, close its pipe, reap it.  */
  ptrace (PTRACE_DETACH, child, NULL, NULL);
  close (go[1]);
  close (ready[0]);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* A pid no process has: ST_E_NOT_FOUND, the session unchanged.  */
static void
test_gone (void)
{
  pid_t child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    _exit (0);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);

  StCache *cache = st_cache_new ();
  StSession *session = st_session_new (cache, 0);
  /* (The pid could be taken again meanwhile, in theory: then found.)  */
  int rc = st_session_scan_process (session, child);
  g_assert_true (rc == ST_E_NOT_FOUND || rc == ST_OK);
  g_assert_cmpint (st_session_scan_process (session, 0), ==, ST_E_INVALID);
  g_assert_cmpint (st_session_scan_process (session, -5), ==, ST_E_INVALID);
  g_assert_cmpint (st_session_scan_process (NULL, 1), ==, ST_E_INVALID);
  g_assert_cmpstr (st_result_name (ST_E_NOT_FOUND), ==, "no such process");
  st_session_free (session);
  st_cache_free (cache);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/api/session/scan-and-unwind", test_unwind_scanned);
  g_test_add_func ("/api/session/scan-gone", test_gone);
  return g_test_run ();
}
