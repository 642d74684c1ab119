/* The memory of a sampled thread (unwind/sample-memory.h) on stack
   copies built here and a real file mapped by the process (the
   committed fixture program), whose bytes are read back with pread:

   - inside the copy: every whole word, 64-bit and 32-bit (zero-
     extended), by the inline and the slow path alike; a word reaching
     past the copy's end, a copy shorter than a word, an empty copy, a
     copy at the top of the address space: unreadable, never read past
     the copy (ASan);
   - outside the copy: the mapped file's bytes at the mapping's page
     offset; not past the mapping's end or the file's; nothing from
     anonymous or unmapped memory, or from a file that cannot be
     opened;
   - the failures recorded: the frame of the last one, and whether one
     lay beyond the copy (what tells a walk cut by the copy's size).  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/process-table.h"
#include "unwind/sample-memory.h"

#define SP 0x7ffc1000ull

typedef struct
{
  StProcessTable *processes;
  StModuleCache *modules;
  StProcess *process;
  uint8_t *copy;        /* exactly the copy's bytes, for ASan */
  StEvent ev;
  StSampleMemory mem;
} Sample;

/* A copy of SIZE bytes at address SP, byte I = I * 7 + 1 (mod 256).  */
static void
sample_open (Sample *s, uint64_t sp, size_t size, uint32_t abi)
{
  memset (s, 0, sizeof *s);
  s->processes = st_process_table_new ();
  s->modules = st_module_cache_new (NULL);
  s->process = st_process_table_get (s->processes, 42);
  s->copy = g_malloc (size == 0 ? 1 : size);
  for (size_t i = 0; i < size; i++)
    s->copy[i] = (uint8_t) (i * 7 + 1);
  s->ev.kind = ST_EVENT_STACK_USER;
  s->ev.stack.abi = abi;
  s->ev.stack.stack = s->copy;
  s->ev.stack.stack_size = size;
  st_sample_memory_init (&s->mem, &s->ev, sp, s->process, s->modules);
}

static void
sample_close (Sample *s)
{
  st_module_cache_free (s->modules);
  st_process_table_free (s->processes);
  g_free (s->copy);
}

/* The word of WIDTH bytes at offset OFF of the copy, zero-extended.  */
static uint64_t
word_at (const Sample *s, size_t off, unsigned width)
{
  uint64_t v = 0;

  memcpy (&v, s->copy + off, width);
  return v;
}

static void
test_inside_64 (void)
{
  Sample s;
  const size_t size = 64 + 5;   /* not a multiple of the word */
  uint64_t v;

  sample_open (&s, SP, size, ST_REGS_ABI_64);
  g_assert_cmpuint (s.mem.width, ==, 8);
  for (size_t off = 0; off + 8 <= size; off++)
    {
      g_assert_true (st_sample_memory_read (&s.mem, SP + off, &v));
      g_assert_cmphex (v, ==, word_at (&s, off, 8));
      g_assert_true (st_sample_memory_read_slow (&s.mem, SP + off, &v));
      g_assert_cmphex (v, ==, word_at (&s, off, 8));
    }
  g_assert_false (s.mem.failed_read);
  /* A word reaching past the end: unreadable, and past the stack.  */
  for (size_t off = size - 7; off <= size + 8; off++)
    {
      s.mem.failed_past_stack = FALSE;
      s.mem.frame = off;
      g_assert_false (st_sample_memory_read (&s.mem, SP + off, &v));
      g_assert_cmphex (v, ==, 0);
      g_assert_true (s.mem.failed_read);
      g_assert_cmpuint (s.mem.failed_at_frame, ==, off);
      /* (Beyond the copy: only from its end on.)  */
      g_assert_cmpint (s.mem.failed_past_stack, ==, off >= size);
    }
  /* Below the stack pointer: unreadable, not past the stack.  */
  s.mem.failed_past_stack = FALSE;
  for (uint64_t below = 1; below <= 16; below++)
    g_assert_false (st_sample_memory_read (&s.mem, SP - below, &v));
  g_assert_false (s.mem.failed_past_stack);
  sample_close (&s);
}

static void
test_inside_32 (void)
{
  Sample s;
  const size_t size = 32 + 2;
  uint64_t v;

  sample_open (&s, 0xffffd000u, size, ST_REGS_ABI_32);
  g_assert_cmpuint (s.mem.width, ==, 4);
  for (size_t off = 0; off + 4 <= size; off++)
    {
      g_assert_true (st_sample_memory_read (&s.mem, 0xffffd000u + off, &v));
      g_assert_cmphex (v, ==, word_at (&s, off, 4));
    }
  for (size_t off = size - 3; off <= size + 4; off++)
    g_assert_false (st_sample_memory_read (&s.mem, 0xffffd000u + off, &v));
  sample_close (&s);
}

/* Copies too small for a word, and one at the very top of the address
   space (its end wraps to 0).  */
static void
test_small_copies (void)
{
  Sample s;
  uint64_t v;

  for (size_t size = 0; size < 8; size++)
    {
      sample_open (&s, SP, size, ST_REGS_ABI_64);
      for (size_t off = 0; off <= 8; off++)
        g_assert_false (st_sample_memory_read (&s.mem, SP + off, &v));
      g_assert_true (s.mem.failed_past_stack);
      sample_close (&s);
    }
  sample_open (&s, 4, 4, ST_REGS_ABI_32);
  g_assert_true (st_sample_memory_read (&s.mem, 4, &v));
  g_assert_cmphex (v, ==, word_at (&s, 0, 4));
  sample_close (&s);

  uint64_t top = G_MAXUINT64 - 15;
  sample_open (&s, top, 16, ST_REGS_ABI_64);
  g_assert_true (st_sample_memory_read (&s.mem, top, &v));
  g_assert_cmphex (v, ==, word_at (&s, 0, 8));
  g_assert_true (st_sample_memory_read (&s.mem, top + 8, &v));
  g_assert_cmphex (v, ==, word_at (&s, 8, 8));
  g_assert_false (st_sample_memory_read (&s.mem, top + 9, &v));
  g_assert_false (st_sample_memory_read (&s.mem, 0, &v));
  sample_close (&s);
}

#define FILE_MAP 0x400000ull
#define FIXTURE ST_FIXTURE_DIR "/st-fixture"

/* Maps [START, END) of the process to PATH at page offset PGOFF.  */
static void
map_file (Sample *s, uint64_t start, uint64_t end, uint64_t pgoff,
          const char *path)
{
  StMap m = { 0 };

  m.start = start;
  m.end = end;
  m.pgoff = pgoff;
  m.filename = path;
  st_address_space_add (s->process->maps, &m);
  s->process->maps_seen = TRUE;
}

static void
test_from_file (void)
{
  Sample s;
  struct stat st;
  int fd = open (FIXTURE, O_RDONLY);
  uint64_t v, want;

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 0x3000);
  sample_open (&s, SP, 64, ST_REGS_ABI_64);
  /* The file from page 1 on, the mapping reaching 0x1000 past the file's
     end (as a last page, or .bss, does).  */
  uint64_t map_len = ((st.st_size - 0x1000 + 0xfff) & ~0xfffull) + 0x1000;
  map_file (&s, FILE_MAP, FILE_MAP + map_len, 0x1000, FIXTURE);
  map_file (&s, 0x500000, 0x501000, 0, "");
  map_file (&s, 0x600000, 0x601000, 0, "/nonexistent/st-no-such-file");

  static const uint64_t offsets[] = { 0, 8, 0x123, 0x1ff8 };
  for (guint i = 0; i < G_N_ELEMENTS (offsets); i++)
    {
      g_assert_cmpint (pread (fd, &want, 8, 0x1000 + offsets[i]), ==, 8);
      g_assert_true (st_sample_memory_read (&s.mem, FILE_MAP + offsets[i],
                                            &v));
      g_assert_cmphex (v, ==, want);
    }
  g_assert_false (s.mem.failed_read);

  /* The file's last word, and one reaching past its end.  */
  uint64_t last = st.st_size - 8 - 0x1000;
  g_assert_cmpint (pread (fd, &want, 8, st.st_size - 8), ==, 8);
  g_assert_true (st_sample_memory_read (&s.mem, FILE_MAP + last, &v));
  g_assert_cmphex (v, ==, want);
  g_assert_false (st_sample_memory_read (&s.mem, FILE_MAP + last + 1, &v));
  g_assert_true (s.mem.failed_read);
  /* Beyond the file, in the mapping: nothing.  */
  g_assert_false (st_sample_memory_read (&s.mem, FILE_MAP + map_len - 8,
                                         &v));
  /* A mapping ending inside the file: a word may not cross its end.  */
  map_file (&s, 0x800000, 0x800100, 0, FIXTURE);
  g_assert_cmpint (pread (fd, &want, 8, 0xf8), ==, 8);
  g_assert_true (st_sample_memory_read (&s.mem, 0x8000f8, &v));
  g_assert_cmphex (v, ==, want);
  g_assert_false (st_sample_memory_read (&s.mem, 0x8000fc, &v));
  /* Before it, anonymous memory, a file that is not there, unmapped
     memory: nothing, and none of it past the stack.  */
  s.mem.failed_past_stack = FALSE;
  g_assert_false (st_sample_memory_read (&s.mem, FILE_MAP - 8, &v));
  g_assert_false (st_sample_memory_read (&s.mem, 0x500000, &v));
  g_assert_false (st_sample_memory_read (&s.mem, 0x600000, &v));
  g_assert_false (st_sample_memory_read (&s.mem, 0x700000, &v));
  g_assert_false (s.mem.failed_past_stack);
  g_assert_false (s.mem.unready_read);
  close (fd);
  sample_close (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sample-memory/inside-64", test_inside_64);
  g_test_add_func ("/sample-memory/inside-32", test_inside_32);
  g_test_add_func ("/sample-memory/small-copies", test_small_copies);
  g_test_add_func ("/sample-memory/from-file", test_from_file);
  return g_test_run ();
}
