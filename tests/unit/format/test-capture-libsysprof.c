/* Interoperability with libsysprof-capture-4: captures written by our
   writer, read back by Sysprof's own reader (only frame types it knows: it
   stops at types >= 16, so no STACK_USER), a capture converted from a real
   perf recording and unwound, read back whole by it, and captures written
   by Sysprof's writer, read by our reader and copied byte for byte.  */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <sysprof-capture.h>

#include "format/capture-reader.h"
#include "format/capture-writer.h"
#include "format/input.h"
#include "format/output.h"
#include "format/writer.h"
#include "pipeline-run.h"

static const uint64_t ips[] = {
  (uint64_t) -128, 0xffffffff81000010ull, (uint64_t) -512, 0x401000, 0x401234,
};
static const uint8_t build_id[20] = {
  0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

static char *
write_capture (void)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("st-libsysprof-XXXXXX", &path, &error);

  g_assert_no_error (error);
  StOutput *out = st_output_new (fd);
  StCaptureWriter *w = st_capture_writer_new (out);
  st_capture_writer_file_header (w, NULL, 1000);
  st_capture_writer_process (w, 0, 100, 1100, "/usr/bin/prog --arg");
  st_capture_writer_map (w, 0, 100, 1200, 0x400000, 0x402000, 0x1000, 42,
                         "/usr/bin/prog", build_id, sizeof build_id);
  st_capture_writer_map (w, 1, 100, 1300, 0x7f0000000000ull,
                         0x7f0000001000ull, 0, 0, "[vdso]", NULL, 0);
  g_assert_true (st_capture_writer_sample (w, 1, 100, 101, 1400, ips,
                                           G_N_ELEMENTS (ips)));
  st_capture_writer_fork (w, 0, 100, 1500, 200);
  st_capture_writer_exit (w, 0, 200, 1600);
  st_capture_writer_log (w, 1, 100, 1700, G_LOG_LEVEL_WARNING, "stacktrace",
                         "3 events lost by the recorder");
  g_assert_true (st_capture_writer_finish (w, &error));
  g_assert_no_error (error);
  st_capture_writer_free (w);
  st_output_free (out);
  close (fd);
  return path;
}

static void
test_libsysprof_reads_ours (void)
{
  char *path = write_capture ();
  SysprofCaptureReader *r = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;
  unsigned n = 0;

  g_assert_nonnull (r);
  g_assert_cmpint (sysprof_capture_reader_get_start_time (r), ==, 1000);
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), ==, 1700);

  while (sysprof_capture_reader_peek_type (r, &type))
    {
      switch (n++)
        {
        case 0:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_PROCESS);
            const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (r);
            g_assert_nonnull (p);
            g_assert_cmpint (p->frame.pid, ==, 100);
            g_assert_cmpstr (p->cmdline, ==, "/usr/bin/prog --arg");
            break;
          }
        case 1:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_MAP);
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (r);
            g_assert_nonnull (m);
            g_assert_cmphex (m->start, ==, 0x400000);
            g_assert_cmphex (m->end, ==, 0x402000);
            g_assert_cmphex (m->offset, ==, 0x1000);
            g_assert_cmpuint (m->inode, ==, 42);
            g_assert_cmpstr (m->filename, ==, "/usr/bin/prog");
            g_assert_cmpstr (m->filename + strlen (m->filename) + 1, ==,
                             "@deadbeef0102030405060708090a0b0c0d0e0f10");
            break;
          }
        case 2:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_MAP);
            const SysprofCaptureMap *m = sysprof_capture_reader_read_map (r);
            g_assert_nonnull (m);
            g_assert_cmpstr (m->filename, ==, "[vdso]");
            g_assert_cmpint (m->frame.cpu, ==, 1);
            break;
          }
        case 3:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_SAMPLE);
            const SysprofCaptureSample *s = sysprof_capture_reader_read_sample (r);
            g_assert_nonnull (s);
            g_assert_cmpint (s->frame.pid, ==, 100);
            g_assert_cmpint (s->tid, ==, 101);
            g_assert_cmpint (s->frame.time, ==, 1400);
            g_assert_cmpuint (s->n_addrs, ==, G_N_ELEMENTS (ips));
            for (unsigned i = 0; i < G_N_ELEMENTS (ips); i++)
              g_assert_cmphex (s->addrs[i], ==, ips[i]);
            break;
          }
        case 4:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_FORK);
            const SysprofCaptureFork *f = sysprof_capture_reader_read_fork (r);
            g_assert_nonnull (f);
            g_assert_cmpint (f->frame.pid, ==, 100);
            g_assert_cmpint (f->child_pid, ==, 200);
            break;
          }
        case 5:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_EXIT);
            const SysprofCaptureExit *e = sysprof_capture_reader_read_exit (r);
            g_assert_nonnull (e);
            g_assert_cmpint (e->frame.pid, ==, 200);
            break;
          }
        case 6:
          {
            g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_LOG);
            const SysprofCaptureLog *l = sysprof_capture_reader_read_log (r);
            g_assert_nonnull (l);
            g_assert_cmpuint (l->severity, ==, G_LOG_LEVEL_WARNING);
            g_assert_cmpstr (l->domain, ==, "stacktrace");
            g_assert_cmpstr (l->message, ==, "3 events lost by the recorder");
            break;
          }
        default:
          g_assert_not_reached ();
        }
    }
  g_assert_cmpuint (n, ==, 7);

  sysprof_capture_reader_unref (r);
  g_unlink (path);
  g_free (path);
}

static int
fill_backtrace (SysprofCaptureAddress *addrs, unsigned int n_addrs,
                void *user_data)
{
  for (unsigned int i = 0; i < n_addrs && i < 3; i++)
    addrs[i] = 0x500000 + i;
  return MIN (n_addrs, 3u);
}

/* Every frame type Sysprof's writer makes.  */
static char *
write_sysprof_capture (void)
{
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("st-sysprof-writer-XXXXXX", &path, &error);
  SysprofCaptureWriter *w;
  SysprofCaptureCounter ctr;
  SysprofCaptureCounterValue val;
  unsigned int id;
  const uint8_t chunk[] = "file contents";

  g_assert_no_error (error);
  close (fd);
  w = sysprof_capture_writer_new (path, 0);
  g_assert_nonnull (w);

  g_assert_true (sysprof_capture_writer_add_timestamp (w, 2000, 0, 10));
  g_assert_true (sysprof_capture_writer_add_process (w, 2001, 0, 10, "prog"));
  g_assert_true (sysprof_capture_writer_add_map (w, 2002, 1, 10, 0x400000,
                                                 0x401000, 0, 9, "/bin/prog"));
  g_assert_true (sysprof_capture_writer_add_sample (w, 2003, 1, 10, 11, ips,
                                                    G_N_ELEMENTS (ips)));
  g_assert_true (sysprof_capture_writer_add_fork (w, 2004, 0, 10, 20));
  g_assert_true (sysprof_capture_writer_add_exit (w, 2005, 0, 20));
  g_assert_true (sysprof_capture_writer_add_log (w, 2006, 0, 10,
                                                 G_LOG_LEVEL_MESSAGE, "dom",
                                                 "message"));
  g_assert_true (sysprof_capture_writer_add_mark (w, 2007, 0, 10, 5, "group",
                                                  "name", "mark message"));
  g_assert_true (sysprof_capture_writer_add_metadata (w, 2008, 0, 10, "id",
                                                      "key=value", -1));
  g_assert_true (sysprof_capture_writer_add_file (w, 2009, 0, 10, "/etc/x",
                                                  true, chunk, sizeof chunk));
  g_assert_true (sysprof_capture_writer_add_allocation (w, 2010, 0, 10, 11,
                                                        0x1234, 64,
                                                        fill_backtrace, NULL));
  g_assert_true (sysprof_capture_writer_add_overlay (w, 2011, 0, 10, 0,
                                                     "/src", "/dst"));
  memset (&ctr, 0, sizeof ctr);
  id = sysprof_capture_writer_request_counter (w, 1);
  g_strlcpy (ctr.category, "cat", sizeof ctr.category);
  g_strlcpy (ctr.name, "ctr", sizeof ctr.name);
  ctr.id = id;
  ctr.type = SYSPROF_CAPTURE_COUNTER_INT64;
  g_assert_true (sysprof_capture_writer_define_counters (w, 2012, 0, 10, &ctr,
                                                         1));
  val.v64 = 77;
  g_assert_true (sysprof_capture_writer_set_counters (w, 2013, 0, 10, &id,
                                                      &val, 1));
  g_assert_cmphex (sysprof_capture_writer_add_jitmap (w, "jitted"), !=, 0);
  g_assert_true (sysprof_capture_writer_flush (w));
  sysprof_capture_writer_unref (w);
  return path;
}

static void
test_ours_reads_libsysprof (void)
{
  char *path = write_sysprof_capture ();
  char *in_path = NULL;
  GError *error = NULL;
  char *contents = NULL;
  char *copy = NULL;
  gsize len = 0, copy_len = 0;
  StEvent ev;
  int rc;
  unsigned n = 0, n_sample = 0, n_map = 0, n_process = 0, n_fork = 0;
  unsigned n_exit = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  g_assert_no_error (error);

  int in_fd = open (path, O_RDONLY);
  int out_fd = g_file_open_tmp ("st-sysprof-copy-XXXXXX", &in_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (in_fd, >=, 0);

  StInput *in = st_input_new (in_fd);
  StCaptureReader *r = st_capture_reader_new (in, &error);
  g_assert_no_error (error);
  StOutput *out = st_output_new (out_fd);
  StCaptureWriter *w = st_capture_writer_new (out);
  st_capture_writer_file_header (w, st_capture_reader_header (r), 0);

  while ((rc = st_capture_reader_next (r, &ev, &error)) > 0)
    {
      n++;
      switch (ev.kind)
        {
        case ST_EVENT_SAMPLE:
          n_sample++;
          g_assert_cmpint (ev.tid, ==, 11);
          g_assert_cmpmem (ev.sample.ips, ev.sample.n_ips * 8, ips,
                           sizeof ips);
          break;
        case ST_EVENT_MAP:
          n_map++;
          g_assert_cmpstr (ev.map.filename, ==, "/bin/prog");
          g_assert_cmpuint (ev.map.build_id_len, ==, 0);
          break;
        case ST_EVENT_PROCESS:
          n_process++;
          g_assert_cmpstr (ev.process.comm, ==, "prog");
          break;
        case ST_EVENT_FORK:
          n_fork++;
          g_assert_cmpint (ev.pid, ==, 20);
          g_assert_cmpint (ev.fork.parent_pid, ==, 10);
          break;
        case ST_EVENT_EXIT:
          n_exit++;
          g_assert_cmpint (ev.pid, ==, 20);
          break;
        default:
          g_assert_cmpint (ev.kind, ==, ST_EVENT_OTHER);
          break;
        }
      st_capture_writer_raw (w, ev.raw, ev.raw_len, ev.time);
    }
  g_assert_no_error (error);
  g_assert_cmpint (rc, ==, 0);
  g_assert_cmpuint (n, ==, 15);
  g_assert_cmpuint (n_sample, ==, 1);
  g_assert_cmpuint (n_map, ==, 1);
  g_assert_cmpuint (n_process, ==, 1);
  g_assert_cmpuint (n_fork, ==, 1);
  g_assert_cmpuint (n_exit, ==, 1);
  g_assert_cmpuint (st_input_offset (in), ==, len);

  g_assert_true (st_capture_writer_finish (w, &error));
  g_assert_no_error (error);
  st_capture_writer_free (w);
  st_output_free (out);
  st_capture_reader_free (r);
  st_input_free (in);
  close (in_fd);
  close (out_fd);

  g_assert_true (g_file_get_contents (in_path, &copy, &copy_len, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (copy, copy_len, contents, len);

  g_free (copy);
  g_free (contents);
  g_unlink (in_path);
  g_unlink (path);
  g_free (in_path);
  g_free (path);
}

/* The unwinding counters of a capture output: one CTRDEF, then CTRSETs,
   as Sysprof reads them.  */
static void
test_libsysprof_reads_counters (void)
{
  static const char *const names[] = {
    "Samples", "Unwound to root", "Success rate", "Truncated", "Failed",
    "Stitched", "Unprimed",
  };
  const StProgressCounters first = { 10, 8, 1, 1, 0, 0 };
  const StProgressCounters second = { 40, 39, 1, 0, 3, 0 };
  GError *error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("st-counters-XXXXXX", &path, &error);

  g_assert_no_error (error);
  StWriter *w = st_writer_new (fd, ST_FORMAT_SYSPROF, NULL, TRUE, &error);
  g_assert_no_error (error);
  g_assert_true (st_writer_counters (w, 5000, &first));
  g_assert_true (st_writer_counters (w, 1000005000, &second));
  g_assert_true (st_writer_finish (w, &error));
  g_assert_no_error (error);
  st_writer_free (w);
  close (fd);

  SysprofCaptureReader *r = sysprof_capture_reader_new (path);
  SysprofCaptureFrameType type;
  g_assert_nonnull (r);
  g_assert_cmpint (sysprof_capture_reader_get_end_time (r), ==, 1000005000);

  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_CTRDEF);
  const SysprofCaptureCounterDefine *def =
    sysprof_capture_reader_read_counter_define (r);
  g_assert_nonnull (def);
  g_assert_cmpint (def->frame.time, ==, 5000);
  g_assert_cmpuint (def->n_counters, ==, G_N_ELEMENTS (names));
  guint ids[G_N_ELEMENTS (names)];
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const SysprofCaptureCounter *c = &def->counters[i];

      g_assert_cmpstr (c->category, ==, "Unwinding");
      g_assert_cmpstr (c->name, ==, names[i]);
      g_assert_cmpuint (strlen (c->description), >, 0);
      /* Far from Sysprof's own ids, which count up from 1.  */
      g_assert_cmphex (c->id, >=, 0xF00000);
      ids[i] = c->id;
      for (guint j = 0; j < i; j++)
        g_assert_cmpuint (ids[j], !=, ids[i]);
      if (i == 2)
        {
          g_assert_cmpuint (c->type, ==, SYSPROF_CAPTURE_COUNTER_DOUBLE);
          g_assert_cmpfloat_with_epsilon (c->value.vdbl, 80.0, 1e-9);
        }
      else
        g_assert_cmpuint (c->type, ==, SYSPROF_CAPTURE_COUNTER_INT64);
    }
  g_assert_cmpint (def->counters[0].value.v64, ==, 10);
  g_assert_cmpint (def->counters[1].value.v64, ==, 8);

  /* Each set also as a line in Sysprof's Logs (its window graphs no
     counters of ours).  */
  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_LOG);
  const SysprofCaptureLog *log = sysprof_capture_reader_read_log (r);
  g_assert_nonnull (log);
  g_assert_cmpint (log->frame.time, ==, 5000);
  g_assert_cmpstr (log->domain, ==, "stacktrace");
  g_assert_cmpstr (log->message, ==, "Unwinding: 8 of 10 samples unwound to "
                   "the root (80.0% success), 1 truncated, 1 failed");

  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_CTRSET);
  const SysprofCaptureCounterSet *set =
    sysprof_capture_reader_read_counter_set (r);
  g_assert_nonnull (set);
  g_assert_cmpint (set->frame.time, ==, 1000005000);
  g_assert_cmpuint (set->n_values, ==, 1);   /* one group of 8 slots */
  const SysprofCaptureCounterValues *g = &set->values[0];
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpuint (g->ids[i], ==, ids[i]);
  g_assert_cmpuint (g->ids[7], ==, 0);       /* unused slot */
  g_assert_cmpint (g->values[0].v64, ==, 40);
  g_assert_cmpint (g->values[1].v64, ==, 39);
  g_assert_cmpfloat_with_epsilon (g->values[2].vdbl, 97.5, 1e-9);
  g_assert_cmpint (g->values[3].v64, ==, 1);
  g_assert_cmpint (g->values[4].v64, ==, 0);
  g_assert_cmpint (g->values[5].v64, ==, 3);
  g_assert_cmpint (g->values[6].v64, ==, 0);
  g_assert_true (sysprof_capture_reader_peek_type (r, &type));
  g_assert_cmpint (type, ==, SYSPROF_CAPTURE_FRAME_LOG);
  log = sysprof_capture_reader_read_log (r);
  g_assert_nonnull (log);
  g_assert_cmpstr (log->message, ==, "Unwinding: 39 of 40 samples unwound "
                   "to the root (97.5% success), 1 truncated, 0 failed");
  g_assert_false (sysprof_capture_reader_peek_type (r, &type));

  sysprof_capture_reader_unref (r);
  g_unlink (path);
  g_free (path);
}

/* Reads the frame at R's position with the reader of its type; FALSE
   when that fails.  Types without a reader here are skipped.  */
static gboolean
read_frame (SysprofCaptureReader *r, SysprofCaptureFrameType type,
            const SysprofCaptureSample **sample)
{
  *sample = NULL;
  switch (type)
    {
    case SYSPROF_CAPTURE_FRAME_SAMPLE:
      return (*sample = sysprof_capture_reader_read_sample (r)) != NULL;
    case SYSPROF_CAPTURE_FRAME_MAP:
      return sysprof_capture_reader_read_map (r) != NULL;
    case SYSPROF_CAPTURE_FRAME_PROCESS:
      return sysprof_capture_reader_read_process (r) != NULL;
    case SYSPROF_CAPTURE_FRAME_FORK:
      return sysprof_capture_reader_read_fork (r) != NULL;
    case SYSPROF_CAPTURE_FRAME_EXIT:
      return sysprof_capture_reader_read_exit (r) != NULL;
    case SYSPROF_CAPTURE_FRAME_LOG:
      return sysprof_capture_reader_read_log (r) != NULL;
    case SYSPROF_CAPTURE_FRAME_TIMESTAMP:
      return sysprof_capture_reader_read_timestamp (r) != NULL;
    default:
      return sysprof_capture_reader_skip (r);
    }
}

/* The committed real recording (perf record --call-graph=dwarf of a
   static program, tests/data/fixture), unwound into a capture by the
   library, read back by libsysprof-capture: every frame readable, and
   each unwound SAMPLE with the user addresses of its --chains line.  */
static void
test_libsysprof_reads_unwound_recording (void)
{
  const char *data_dir = g_getenv ("TESTS_DATA");
  GError *error = NULL;
  char *symfs, *input, *path = NULL, *chains = NULL, **lines;
  size_t chains_len = 0;
  FILE *mem;
  int in_fd, out_fd;
  SysprofCaptureReader *r;
  SysprofCaptureFrameType type;
  guint n_frames = 0, n_ours = 0, n_unwound = 0, n_line = 0, n_rooted = 0;
  StEvent ev;

  if (data_dir == NULL)
    {
      g_test_skip ("TESTS_DATA not set (run through make check)");
      return;
    }
  symfs = g_build_filename (data_dir, "fixture", NULL);
  input = g_build_filename (symfs, "fixture.data", NULL);
  in_fd = open (input, O_RDONLY);
  g_assert_cmpint (in_fd, >=, 0);
  out_fd = g_file_open_tmp ("st-libsysprof-unwound-XXXXXX", &path, &error);
  g_assert_no_error (error);
  mem = open_memstream (&chains, &chains_len);
  {
    StPipelineOptions opts = { .mode = ST_MODE_UNWIND, .symfs = symfs,
                               .chains = mem, .stitch = TRUE,
                               .output_format = ST_FORMAT_SYSPROF };

    g_free (run_pipeline (in_fd, out_fd, &opts));
  }
  fclose (mem);
  close (in_fd);
  close (out_fd);

  /* How many frames our own reader sees.  */
  in_fd = open (path, O_RDONLY);
  {
    StInput *in = st_input_new (in_fd);
    StCaptureReader *cr = st_capture_reader_new (in, &error);

    g_assert_no_error (error);
    while (st_capture_reader_next (cr, &ev, &error) > 0)
      n_ours++;
    g_assert_no_error (error);
    st_capture_reader_free (cr);
    st_input_free (in);
  }
  close (in_fd);

  lines = g_strsplit (chains, "\n", -1);
  r = sysprof_capture_reader_new (path);
  g_assert_nonnull (r);
  while (sysprof_capture_reader_peek_type (r, &type))
    {
      const SysprofCaptureSample *s;
      char **fields, **addrs;
      guint user = 0;

      g_assert_true (read_frame (r, type, &s));
      n_frames++;
      if (s == NULL)
        continue;
      while (user < s->n_addrs && s->addrs[user] != (uint64_t) -512)
        user++;
      if (user == s->n_addrs)
        continue;               /* not a raw-stack sample */
      user++;
      n_unwound++;
      g_assert_nonnull (lines[n_line]);
      fields = g_strsplit (lines[n_line++], "\t", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, 5);
      g_assert_cmpint (g_ascii_strtoll (fields[1], NULL, 10), ==, s->tid);
      g_assert_cmpint (g_ascii_strtoll (fields[2], NULL, 10), ==,
                       s->frame.time);
      addrs = g_strsplit (fields[3], ",", -1);
      g_assert_cmpuint (fields[3][0] ? g_strv_length (addrs) : 0, ==,
                        s->n_addrs - user);
      for (guint k = 0; fields[3][0] && addrs[k] != NULL; k++)
        g_assert_cmphex (g_ascii_strtoull (addrs[k], NULL, 16), ==,
                         s->addrs[user + k]);
      n_rooted += g_str_has_suffix (fields[4], "_start");
      g_strfreev (addrs);
      g_strfreev (fields);
    }
  g_test_message ("libsysprof-capture read %u frames (ours: %u), %u unwound "
                  "samples, %u of them down to _start", n_frames, n_ours,
                  n_unwound, n_rooted);
  /* Every frame, every unwound sample.  */
  g_assert_cmpuint (n_frames, ==, n_ours);
  g_assert_cmpuint (n_unwound, ==, n_line);
  g_assert_true (lines[n_line] == NULL || lines[n_line][0] == '\0');
  g_assert_cmpuint (n_unwound, >, 200);
  g_assert_cmpuint (n_rooted * 100, >=, n_unwound * 95);

  sysprof_capture_reader_unref (r);
  g_strfreev (lines);
  free (chains);
  g_unlink (path);
  g_free (path);
  g_free (input);
  g_free (symfs);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/capture/libsysprof-reads-ours",
                   test_libsysprof_reads_ours);
  g_test_add_func ("/capture/libsysprof-reads-counters",
                   test_libsysprof_reads_counters);
  g_test_add_func ("/capture/ours-reads-libsysprof",
                   test_ours_reads_libsysprof);
  g_test_add_func ("/capture/libsysprof-reads-unwound-recording",
                   test_libsysprof_reads_unwound_recording);
  return g_test_run ();
}
