/* aarch64 and i386 samples against gdb's backtraces (tests/data/arch,
   README there): every sample of each set is written as perf would
   record it (perf.data with HEADER_ARCH, MMAP2 records of the process's
   file mappings, REGS_USER and STACK_USER; the i386 ones as an x86_64
   kernel records a 32-bit process, abi 1 and perf's x86_64 mask, and as
   an i686 kernel does) and as a Sysprof capture (MAP and STACK_USER
   frames), unwound by both engines with the committed files as --symfs,
   and each chain compared with the truth frame by frame (gdb's PCs:
   frame 0's, then every caller's return address, which the chains give
   minus one; but the PC of code a signal interrupted, below the signal
   frame, is exact in both).

   Required of the fast engine: >= 99% of the samples identical to the
   truth, none wrong (a frame that differs; a chain that stops early with
   every frame right is cut, not wrong), >= 95% of the samples walked by
   itself (not handed to libdwfl).  The libdwfl engine is the reference
   elsewhere, but guesses where aarch64 code has no CFI (x29 + 16): its
   figures are printed, and only required to be right where the fast
   engine's step without CFI is not needed.  Needs no cross tools: the
   files are committed, zstd-compressed.  */
#include "config.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "capture-bytes.h"
#include "format/perf-types.h"
#include "perf-stream.h"
#include "pipeline-run.h"
#include "stats.h"

#define PID 4242
#define STACK_USER_SIZE 8192
#define MAX_FRAMES 256

/* perf's user register masks: an x86_64 kernel's (for a 32-bit process
   too), an i686 kernel's, aarch64's.  */
#define MASK_X86_64_KERNEL 0xff0fffull
#define MASK_I686_KERNEL 0x0fffull
#define MASK_AARCH64 0x1ffffffffull

typedef struct
{
  uint64_t start, end, pgoff;
  uint32_t prot;
  char *path;
} Map;

typedef struct
{
  uint64_t regs[40];
  guint n_regs;
  uint64_t truth[MAX_FRAMES];
  gboolean exact[MAX_FRAMES];   /* not a return address ("!"): the code
                                   a signal interrupted */
  guint n_truth;
  /* The call stack the code built (NAME.callstacks, call-stacks.py): the
     PC, then the return address of every call not yet returned from;
     n_calls 0 where the set has none.  */
  uint64_t calls[MAX_FRAMES];
  guint n_calls;
  GBytes *stack;
} Sample;

typedef struct
{
  char *arch;
  GArray *maps;                 /* Map */
  GPtrArray *samples;           /* Sample */
} Set;

/* --- the committed files --------------------------------------------------- */

static GBytes *
unzstd (const char *path)
{
  gchar *data;
  gsize len;
  GError *error = NULL;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  unsigned long long size = ZSTD_getFrameContentSize (data, len);
  g_assert_true (size != ZSTD_CONTENTSIZE_ERROR
                 && size != ZSTD_CONTENTSIZE_UNKNOWN);
  void *out = g_malloc (size);
  size_t got = ZSTD_decompress (out, size, data, len);
  g_assert_false (ZSTD_isError (got));
  g_assert_cmpuint (got, ==, size);
  g_free (data);
  return g_bytes_new_take (out, size);
}

/* Every file of DIR but the samples, decompressed into OUT, but those
   OUT has already.  */
static void
unpack_into (const char *dir, const char *out)
{
  GError *error = NULL;
  GDir *d = g_dir_open (dir, 0, &error);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      if (!g_str_has_suffix (name, ".zst") || strstr (name, ".samples")
          || strstr (name, ".callstacks"))
        continue;
      char *in = g_build_filename (dir, name, NULL);
      char *base = g_strndup (name, strlen (name) - 4);
      char *path = g_build_filename (out, base, NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_free (path);
          g_free (base);
          g_free (in);
          continue;
        }
      GBytes *bytes = unzstd (in);
      g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
                                          g_bytes_get_size (bytes), &error));
      g_bytes_unref (bytes);
      g_free (path);
      g_free (base);
      g_free (in);
    }
  g_dir_close (d);
}

/* The files of DIR, and of ALSO unless NULL (those DIR does not have),
   decompressed into a new directory (the --symfs).  */
static char *
unpack_files (const char *dir, const char *also)
{
  GError *error = NULL;
  char *out = g_dir_make_tmp ("st-arch-XXXXXX", &error);

  g_assert_no_error (error);
  unpack_into (dir, out);
  if (also != NULL)
    unpack_into (also, out);
  return out;
}

static void
remove_dir (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
      g_free (path);
    }
  if (d != NULL)
    g_dir_close (d);
  g_rmdir (dir);
}

static guint
parse_hex_list (const char *s, uint64_t *out, guint max)
{
  char **parts = g_strsplit (s, ",", -1);
  guint n = 0;

  for (guint i = 0; parts[i] != NULL && n < max; i++)
    if (parts[i][0] != '\0')
      out[n++] = g_ascii_strtoull (parts[i], NULL, 16);
  g_strfreev (parts);
  return n;
}

/* The truth: PCs in hex, "!" before those that are exact.  */
static guint
parse_truth (const char *s, uint64_t *out, gboolean *exact, guint max)
{
  char **parts = g_strsplit (s, ",", -1);
  guint n = 0;

  for (guint i = 0; parts[i] != NULL && n < max; i++)
    if (parts[i][0] != '\0')
      {
        exact[n] = parts[i][0] == '!';
        out[n] = g_ascii_strtoull (parts[i] + (exact[n] ? 1 : 0), NULL, 16);
        n++;
      }
  g_strfreev (parts);
  return n;
}

static void
sample_free (gpointer p)
{
  Sample *s = p;

  g_bytes_unref (s->stack);
  g_free (s);
}

static Set *
set_load (const char *path)
{
  GBytes *text = unzstd (path);
  char *copy = g_strndup (g_bytes_get_data (text, NULL),
                          g_bytes_get_size (text));
  char **lines = g_strsplit (copy, "\n", -1);
  Set *set = g_new0 (Set, 1);

  set->maps = g_array_new (FALSE, TRUE, sizeof (Map));
  set->samples = g_ptr_array_new_with_free_func (sample_free);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char **f = g_strsplit (lines[i], " ", -1);
      guint n = g_strv_length (f);
      if (n == 2 && strcmp (f[0], "arch") == 0)
        set->arch = g_strdup (f[1]);
      else if (n == 6 && strcmp (f[0], "map") == 0)
        {
          Map m = { g_ascii_strtoull (f[1], NULL, 16),
                    g_ascii_strtoull (f[2], NULL, 16),
                    g_ascii_strtoull (f[3], NULL, 16),
                    (uint32_t) g_ascii_strtoull (f[4], NULL, 10),
                    g_strdup (f[5]) };
          g_array_append_val (set->maps, m);
        }
      else if (n == 4 && strcmp (f[0], "sample") == 0)
        {
          Sample *s = g_new0 (Sample, 1);
          s->n_regs = parse_hex_list (f[1], s->regs, G_N_ELEMENTS (s->regs));
          s->n_truth = parse_truth (f[2], s->truth, s->exact, MAX_FRAMES);
          gsize len = strcmp (f[3], "-") == 0 ? 0 : strlen (f[3]) / 2;
          guint8 *stack = g_malloc0 (MAX (len, 1));
          for (gsize j = 0; j < len; j++)
            stack[j] = (guint8) (g_ascii_xdigit_value (f[3][2 * j]) << 4
                                 | g_ascii_xdigit_value (f[3][2 * j + 1]));
          s->stack = g_bytes_new_take (stack, len);
          g_ptr_array_add (set->samples, s);
        }
      g_strfreev (f);
    }
  g_strfreev (lines);
  g_free (copy);
  g_bytes_unref (text);
  g_assert_nonnull (set->arch);
  g_assert_cmpuint (set->samples->len, >, 100);
  return set;
}

/* The call stacks of SET's samples from CALLS (a .callstacks.zst: a line
   "INDEX PC,RA,RA..." per sample), if that file exists.  */
static gboolean
set_load_calls (Set *set, const char *calls)
{
  if (!g_file_test (calls, G_FILE_TEST_EXISTS))
    return FALSE;
  GBytes *text = unzstd (calls);
  char *copy = g_strndup (g_bytes_get_data (text, NULL),
                          g_bytes_get_size (text));
  char **lines = g_strsplit (copy, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char **f = g_strsplit (lines[i], " ", -1);
      if (g_strv_length (f) == 2)
        {
          guint64 index = g_ascii_strtoull (f[0], NULL, 10);
          g_assert_cmpuint (index, <, set->samples->len);
          Sample *s = g_ptr_array_index (set->samples, index);
          s->n_calls = parse_hex_list (f[1], s->calls, MAX_FRAMES);
          n++;
        }
      g_strfreev (f);
    }
  g_strfreev (lines);
  g_free (copy);
  g_bytes_unref (text);
  /* One call stack per sample.  */
  g_assert_cmpuint (n, ==, set->samples->len);
  return TRUE;
}

static void
set_free (Set *set)
{
  for (guint i = 0; i < set->maps->len; i++)
    g_free (g_array_index (set->maps, Map, i).path);
  g_array_free (set->maps, TRUE);
  g_ptr_array_unref (set->samples);
  g_free (set->arch);
  g_free (set);
}

/* --- the samples as perf and Sysprof record them ------------------------------ */

typedef enum
{
  AS_AARCH64,           /* aarch64: perf's 33 registers, abi 2 */
  AS_X86_64_KERNEL,     /* i386 on x86_64: abi 1, the x86_64 mask */
  AS_I686_KERNEL,       /* i386 on i686: abi 1, the x86_32 mask */
} Kernel;

/* The sample's registers by perf number, as MASK selects them.  gdb's
   i386 order (eax ebx ecx edx esi edi ebp esp eip eflags cs ss) is
   perf's 0..11.  */
static guint
perf_registers (const Sample *s, uint64_t mask, uint64_t *out)
{
  guint n = 0;

  for (guint r = 0; r < 64; r++)
    if (mask >> r & 1)
      out[n++] = r < s->n_regs ? s->regs[r] : 0;
  return n;
}

static uint64_t
kernel_mask (Kernel k)
{
  return k == AS_AARCH64 ? MASK_AARCH64
         : k == AS_X86_64_KERNEL ? MASK_X86_64_KERNEL : MASK_I686_KERNEL;
}

static GByteArray *
perf_data (const Set *set, Kernel k)
{
  AttrSpec attr = {
    .sample_type = ST_PERF_SAMPLE_IP | ST_PERF_SAMPLE_TID
                   | ST_PERF_SAMPLE_TIME | ST_PERF_SAMPLE_REGS_USER
                   | ST_PERF_SAMPLE_STACK_USER,
    .flags = ST_PERF_ATTR_FLAG_SAMPLE_ID_ALL | ST_PERF_ATTR_FLAG_MMAP2
             | ST_PERF_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER,
    .regs_user = kernel_mask (k),
    .stack_user = STACK_USER_SIZE,
  };
  static const uint64_t ids[] = { 1 };
  AttrEntry entry = { &attr, ids, 1 };
  GByteArray *d = g_byte_array_new ();
  Trailer t = { .pid = PID, .tid = PID, .time = 1 };

  put_comm (d, &attr, &t, TRUE, "st-arch");
  /* perf (without -d) and Sysprof record the code mappings.  */
  for (guint i = 0; i < set->maps->len; i++)
    {
      const Map *m = &g_array_index (set->maps, Map, i);
      if (!(m->prot & 1))
        continue;
      put_mmap2 (d, &attr, &t, m->start, m->end - m->start, m->pgoff,
                 1000 + i, -1, 0, m->prot, m->path);
    }
  for (guint i = 0; i < set->samples->len; i++)
    {
      const Sample *s = g_ptr_array_index (set->samples, i);
      uint64_t regs[64];
      guint n_regs = perf_registers (s, attr.regs_user, regs);
      gsize len;
      const guint8 *stack = g_bytes_get_data (s->stack, &len);
      guint at = begin_record (d, ST_PERF_RECORD_SAMPLE, ST_PERF_MISC_USER);

      put_u64 (d, k == AS_AARCH64 ? s->regs[32] : s->regs[8]);
      put_u32 (d, PID);
      put_u32 (d, PID);
      put_u64 (d, 1000 + i);
      put_u64 (d, k == AS_AARCH64 ? ST_REGS_ABI_64 : ST_REGS_ABI_32);
      put (d, regs, n_regs * 8);
      /* perf copies STACK_USER_SIZE bytes, the valid ones first.  */
      put_u64 (d, STACK_USER_SIZE);
      put (d, stack, MIN (len, STACK_USER_SIZE));
      put_zeros (d, STACK_USER_SIZE - MIN (len, STACK_USER_SIZE));
      put_u64 (d, MIN (len, STACK_USER_SIZE));
      end_record (d, at);
    }

  /* HEADER_ARCH: perf's string, its length padded to 64.  */
  Feature arch = { ST_PERF_FEAT_ARCH, g_byte_array_new () };
  const char *name = k == AS_AARCH64 ? "aarch64"
                     : k == AS_X86_64_KERNEL ? "x86_64" : "i686";
  put_u32 (arch.bytes, 64);
  put (arch.bytes, name, strlen (name));
  put_zeros (arch.bytes, 64 - strlen (name));
  GByteArray *file = make_file (&entry, 1, d, &arch, 1, 0);
  g_byte_array_unref (arch.bytes);
  g_byte_array_unref (d);
  return file;
}

/* A capture: MAP frames, then a STACK_USER frame per sample (aarch64:
   its 33 registers; i386: the 9 of Sysprof's i386 set).  */
static GByteArray *
capture (const Set *set, Kernel k)
{
  GByteArray *b = g_byte_array_new ();
  uint64_t mask = k == AS_AARCH64 ? MASK_AARCH64 : 0x1ffull;

  capture_put_file_header (b, 1, 0);
  capture_put_process (b, 0, PID, 1, "st-arch");
  for (guint i = 0; i < set->maps->len; i++)
    {
      const Map *m = &g_array_index (set->maps, Map, i);
      if (m->prot & 1)
        capture_put_map (b, 0, PID, 1, m->start, m->end, m->pgoff, 1000 + i,
                         m->path, NULL, 0);
    }
  for (guint i = 0; i < set->samples->len; i++)
    {
      const Sample *s = g_ptr_array_index (set->samples, i);
      uint64_t regs[64];
      guint n_regs = perf_registers (s, mask, regs);
      gsize len;
      const guint8 *stack = g_bytes_get_data (s->stack, &len);
      capture_put_stack_user (b, 0, PID, PID, 1000 + i, stack,
                              MIN (len, STACK_USER_SIZE),
                              k == AS_AARCH64 ? ST_REGS_ABI_64
                                              : ST_REGS_ABI_32,
                              regs, n_regs);
    }
  return b;
}

/* --- unwinding and comparing ------------------------------------------------ */

typedef struct
{
  guint samples, identical, cut, wrong;
  guint no_truth;               /* gdb's own backtrace went astray */
  guint gdb_stopped;            /* gdb's chain is a part of ours */
  guint gdb_repeated;           /* gdb's has a frame twice where they part */
  /* Against the call stacks (where the set has them): every sample.  */
  guint calls_identical, calls_cut, calls_wrong;
  /* The samples gdb's backtrace is excused from (no_truth, gdb_stopped,
     gdb_repeated) that are identical to their call stack.  */
  guint excused_confirmed;
  uint64_t by_rules;            /* samples the fast engine walked itself */
} Score;

static char *
unwind (GByteArray *input, const char *symfs, StEngine engine,
        StUnwindCounters *total)
{
  char in_path[] = "/tmp/st-arch-in-XXXXXX";
  int in = g_mkstemp (in_path);
  g_assert_cmpint (in, >=, 0);
  g_assert_cmpint (write (in, input->data, input->len), ==, input->len);
  g_assert_cmpint (lseek (in, 0, SEEK_SET), ==, 0);
  int out = open ("/dev/null", O_WRONLY);
  char *chains = NULL;
  size_t chains_len = 0;
  FILE *chains_file = open_memstream (&chains, &chains_len);
  StPipelineOptions opts = {
    .mode = ST_MODE_UNWIND,
    .engine = engine,
    .symfs = symfs,
    .chains = chains_file,
    .output_format = ST_FORMAT_SYSPROF,
    .stitch = FALSE,
  };

  g_free (run_pipeline_full (in, out, &opts, total, NULL));
  fclose (chains_file);
  close (out);
  close (in);
  g_unlink (in_path);
  return chains;
}

/* Whether gdb's backtrace of S stayed in the mapped files: where it
   does not (it ran into code it had no symbols or CFI for, and guessed),
   there is no truth to compare with.  */
static gboolean
truth_usable (const Set *set, const Sample *s)
{
  for (guint i = 0; i < s->n_truth; i++)
    {
      gboolean mapped = FALSE;
      for (guint m = 0; m < set->maps->len && !mapped; m++)
        {
          const Map *map = &g_array_index (set->maps, Map, m);
          mapped = (map->prot & 1) && s->truth[i] >= map->start
                   && s->truth[i] < map->end;
        }
      if (!mapped)
        return FALSE;
    }
  return TRUE;
}

/* How many of the N frames IPS of a chain agree with TRUTH[0..N_TRUTH)
   (PCs: frame 0's, then return addresses, which the chain gives minus
   one, unless EXACT says the PC is exact).  */
static guint
frames_agreeing (const uint64_t *ips, guint n, const uint64_t *truth,
                 const gboolean *exact, guint n_truth)
{
  guint same = 0;

  while (same < n && same < n_truth
         && ips[same] == truth[same] - (same > 0 && !exact[same]))
    same++;
  return same;
}

/* Scores the --chains lines CHAINS (pid, tid, time, PCs, names) against
   the truth of SET's samples (time 1000 + index): gdb's backtraces, and
   the call stacks where the set has them.  */
static void
score (const Set *set, const char *chains, const char *label, Score *sc)
{
  char **lines = g_strsplit (chains, "\n", -1);
  guint shown = 0;

  memset (sc, 0, sizeof *sc);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char **f = g_strsplit (lines[i], "\t", 5);
      if (g_strv_length (f) < 4)
        {
          g_strfreev (f);
          continue;
        }
      guint64 index = g_ascii_strtoull (f[2], NULL, 10) - 1000;
      g_assert_cmpuint (index, <, set->samples->len);
      const Sample *s = g_ptr_array_index (set->samples, index);
      uint64_t ips[MAX_FRAMES];
      guint n = parse_hex_list (f[3], ips, MAX_FRAMES);
      gboolean calls_identical = FALSE;
      sc->samples++;
      if (s->n_calls > 0)
        {
          /* The call stacks hold return addresses only (the signal sets
             have none).  */
          static const gboolean not_exact[MAX_FRAMES];
          guint agree = frames_agreeing (ips, n, s->calls, not_exact,
                                         s->n_calls);
          calls_identical = agree == n && n == s->n_calls;
          if (calls_identical)
            sc->calls_identical++;
          else if (agree == n)
            sc->calls_cut++;
          else
            {
              sc->calls_wrong++;
              g_test_message ("%s: sample %" G_GUINT64_FORMAT " differs from "
                              "its call stack at frame %u: %s", label, index,
                              agree, lines[i]);
            }
        }
      if (!truth_usable (set, s))
        {
          sc->no_truth++;
          sc->excused_confirmed += calls_identical;
          if (g_getenv ("ST_ARCH_SHOW") != NULL)
            printf ("#! %s no truth: %s\n", label, lines[i]);
          g_strfreev (f);
          continue;
        }
      /* No frame is named after an ARM mapping symbol ($x, $d).  */
      if (f[4] != NULL)
        g_assert_true (f[4][0] != '$' && strstr (f[4], ";$") == NULL);
      guint same = frames_agreeing (ips, n, s->truth, s->exact, s->n_truth);
      if (same == n && n == s->n_truth)
        sc->identical++;
      else if (same == n)
        sc->cut++;
      else if (same == s->n_truth)
        {
          sc->gdb_stopped++;
          sc->excused_confirmed += calls_identical;
        }
      else if (same > 0 && same < s->n_truth
               && s->truth[same] == s->truth[same - 1])
        {
          /* Where the chains part, gdb gave a frame twice: what it does
             past aarch64's lazy-binding trampoline, whose CFI leaves out
             the 16 bytes the PLT pushed (its frames after that are read
             16 bytes off); the chain here goes on to the root.  */
          sc->gdb_repeated++;
          sc->excused_confirmed += calls_identical;
        }
      else
        {
          sc->wrong++;
          if (shown++ < 3)
            g_test_message ("%s: sample %" G_GUINT64_FORMAT " differs at "
                            "frame %u: %s", label, index, same, lines[i]);
        }
      /* ST_ARCH_SHOW=1: every sample that is not identical.  */
      if (g_getenv ("ST_ARCH_SHOW") != NULL
          && !(same == n && n == s->n_truth))
        {
          GString *t = g_string_new (NULL);
          for (guint j = 0; j < s->n_truth; j++)
            g_string_append_printf (t, " %" G_GINT64_MODIFIER "x",
                                    s->truth[j]);
          printf ("#! %s %s at %u\n#!   truth%s\n#!   got   %s\n", label,
                  same == n ? "cut" : "not identical", same, t->str,
                  lines[i]);
          g_string_free (t, TRUE);
        }
      g_strfreev (f);
    }
  g_strfreev (lines);
  g_assert_cmpuint (sc->samples, ==, set->samples->len);
}

/* The set NAME of DIR (ALSO: more of its files, or NULL), samples of
   ARCH as kernel K records them.  */
static void
check_set_in (const char *dir, const char *also, const char *arch,
              const char *name, Kernel k)
{
  char *path = g_strdup_printf ("%s/%s.samples.zst", dir, name);
  char *symfs = unpack_files (dir, also);
  Set *set = set_load (path);
  char *calls_path = g_strdup_printf ("%s/%s.callstacks.zst", dir, name);
  gboolean has_calls = set_load_calls (set, calls_path);
  GByteArray *inputs[2] = { perf_data (set, k), capture (set, k) };
  const char *formats[2] = { "perf.data", "capture" };

  g_assert_cmpstr (set->arch, ==, arch);
  /* ST_ARCH_KEEP=DIR: the inputs and their files are kept there.  */
  if (g_getenv ("ST_ARCH_KEEP") != NULL)
    for (guint f = 0; f < 2; f++)
      {
        char *keep = g_strdup_printf ("%s/%s-%s-%u.%s",
                                      g_getenv ("ST_ARCH_KEEP"), arch, name,
                                      (unsigned) k, f ? "syscap" : "data");
        g_assert_true (g_file_set_contents (keep,
                                            (const char *) inputs[f]->data,
                                            inputs[f]->len, NULL));
        g_free (keep);
      }
  for (guint f = 0; f < 2; f++)
    for (int e = 0; e < 2; e++)
      {
        StEngine engine = e == 0 ? ST_ENGINE_FAST : ST_ENGINE_DWFL;
        StUnwindCounters total;
        char *label = g_strdup_printf ("%s %s %s%s, %s engine", arch, name,
                                       formats[f],
                                       k == AS_I686_KERNEL ? " (i686 kernel)"
                                       : k == AS_X86_64_KERNEL
                                       ? " (x86_64 kernel)" : "",
                                       e == 0 ? "fast" : "dwfl");
        char *chains = unwind (inputs[f], symfs, engine, &total);
        Score sc;
        score (set, chains, label, &sc);
        guint with_truth = sc.samples - sc.no_truth;
        printf ("# %s: %u samples (%u where gdb's backtrace went astray), "
                "%u identical to gdb's, %u cut short, %u where gdb stopped "
                "earlier, %u where gdb repeated a frame, %u wrong; %"
                G_GUINT64_FORMAT " walked by the fast engine itself\n", label,
                sc.samples, sc.no_truth, sc.identical, sc.cut, sc.gdb_stopped,
                sc.gdb_repeated, sc.wrong, total.by_path[ST_PATH_RULES]);
        guint excused = sc.no_truth + sc.gdb_stopped + sc.gdb_repeated;
        if (has_calls)
          printf ("# %s: against the call stacks: %u identical, %u cut "
                  "short, %u wrong; of the %u samples gdb is excused from, "
                  "%u identical to their call stack\n", label,
                  sc.calls_identical, sc.calls_cut, sc.calls_wrong, excused,
                  sc.excused_confirmed);
        /* ST_ARCH_NO_ASSERT=1: the figures of every set, whatever they
           are.  */
        if (engine == ST_ENGINE_FAST && g_getenv ("ST_ARCH_NO_ASSERT") == NULL)
          {
            /* gdb leaves few samples without a truth (it goes astray
               in and past the lazy-binding trampoline).  */
            g_assert_cmpuint (sc.no_truth * 100, <=, sc.samples * 10);
            g_assert_cmpuint ((sc.identical + sc.gdb_stopped
                               + sc.gdb_repeated) * 100, >=, with_truth * 99);
            g_assert_cmpuint (sc.wrong, ==, 0);
            g_assert_cmpuint (total.by_path[ST_PATH_RULES] * 100, >=,
                              sc.samples * 95);
            /* Where the set has its call stacks, gdb's excuses are not
               our word: every sample, excused or not, is judged by its
               call stack too (none wrong, >= 99% identical).  */
            if (has_calls)
              {
                g_assert_cmpuint (sc.calls_wrong, ==, 0);
                g_assert_cmpuint (sc.calls_identical * 100, >=,
                                  sc.samples * 99);
              }
          }
        free (chains);
        g_free (label);
      }
  g_byte_array_unref (inputs[0]);
  g_byte_array_unref (inputs[1]);
  set_free (set);
  g_free (calls_path);
  remove_dir (symfs);
  g_free (symfs);
  g_free (path);
}

static void
check_set (const char *arch, const char *name, Kernel k)
{
  char *dir = g_build_filename (ST_ARCH_DATA_DIR, arch, NULL);

  check_set_in (dir, NULL, arch, name, k);
  g_free (dir);
}

static void
test_aarch64_static (void)
{
  check_set ("aarch64", "static", AS_AARCH64);
}

static void
test_aarch64_dynamic (void)
{
  check_set ("aarch64", "dyn", AS_AARCH64);
}

static void
test_i386_static (void)
{
  check_set ("i386", "static", AS_X86_64_KERNEL);
}

static void
test_i386_dynamic (void)
{
  check_set ("i386", "dyn", AS_X86_64_KERNEL);
}

static void
test_i386_on_i686_kernel (void)
{
  check_set ("i386", "dyn", AS_I686_KERNEL);
}

/* Samples in signal handlers, through the signal frame to the code it
   interrupted: aarch64's vDSO trampoline, i386's libc trampolines
   (sigreturn and rt_sigreturn frames).  */
static void
test_aarch64_signal (void)
{
  check_set ("aarch64", "signal", AS_AARCH64);
}

static void
test_i386_signal (void)
{
  check_set ("i386", "signal", AS_X86_64_KERNEL);
}

/* The aarch64 linker matrix (tests/data/arch/aarch64-linkers, README
   there): the dynamic program linked by bfd, gold, lld and mold in each
   layout, sampled while st_recurse runs; the loader and libc are
   aarch64/'s.  */
static void
test_aarch64_linker (gconstpointer data)
{
  const char *variant = data;
  char *dir = g_build_filename (ST_ARCH_DATA_DIR, "aarch64-linkers", variant,
                                NULL);
  char *libc = g_build_filename (ST_ARCH_DATA_DIR, "aarch64", NULL);

  check_set_in (dir, libc, "aarch64", "dyn", AS_AARCH64);
  g_free (libc);
  g_free (dir);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The variants' names, the tests' data: freed by the caller after the
   tests ran.  */
static GPtrArray *
add_linker_tests (void)
{
  char *top = g_build_filename (ST_ARCH_DATA_DIR, "aarch64-linkers", NULL);
  GDir *d = g_dir_open (top, 0, NULL);
  const char *name;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  /* bfd, gold, lld and mold, as the fixture was made.  */
  g_assert_cmpuint (names->len, >=, 4);
  for (guint i = 0; i < names->len; i++)
    {
      char *path = g_strdup_printf ("/arch-samples/aarch64-linker/%s",
                                    (char *) names->pdata[i]);
      g_test_add_data_func (path, names->pdata[i], test_aarch64_linker);
      g_free (path);
    }
  g_free (top);
  return names;
}

/* System calls through a copy of __kernel_vsyscall (the kernel's code
   and CFI) and through the same code without CFI, sampled at each of
   their instructions.  */
static void
test_i386_vsyscall (void)
{
  check_set ("i386", "vsyscall", AS_X86_64_KERNEL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/arch-samples/aarch64-static", test_aarch64_static);
  g_test_add_func ("/arch-samples/aarch64-dynamic", test_aarch64_dynamic);
  g_test_add_func ("/arch-samples/i386-static", test_i386_static);
  g_test_add_func ("/arch-samples/i386-dynamic", test_i386_dynamic);
  g_test_add_func ("/arch-samples/i386-on-i686-kernel",
                   test_i386_on_i686_kernel);
  g_test_add_func ("/arch-samples/aarch64-signal", test_aarch64_signal);
  g_test_add_func ("/arch-samples/i386-signal", test_i386_signal);
  g_test_add_func ("/arch-samples/i386-vsyscall", test_i386_vsyscall);
  GPtrArray *linker_variants = add_linker_tests ();
  int status = g_test_run ();
  g_ptr_array_unref (linker_variants);
  return status;
}
