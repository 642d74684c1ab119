/* The common event's copies (model/event.c).

   An event points into its reader's buffer; a copy must own what it
   points to, in one block of st_event_copy_size bytes: pointers into the
   frame follow the copied frame (same offset), the others get room after
   it, 8-aligned; what the STABLE callback accepts stays in place.  The
   sizes are computed by hand here from that layout; the copies are
   checked after the source buffers were overwritten, in blocks of the
   exact size (ASan sees any byte written past them).  Also: the kind and
   format names the statistics print.  */
#include "config.h"

#include <glib.h>
#include <string.h>

#include "model/event.h"

#define HEAD ((sizeof (StEvent) + 7) & ~(size_t) 7)

/* The exact block st_event_copy_size asks for, copied into.  */
static StEvent *
copy_exact (const StEvent *ev, StEventStable stable, void *user,
            size_t *size)
{
  *size = st_event_copy_size (ev, stable, user);
  return st_event_copy_to (ev, g_malloc (*size), stable, user);
}

static gboolean
inside (const void *p, const void *block, size_t size)
{
  return (const uint8_t *) p >= (const uint8_t *) block
         && (const uint8_t *) p < (const uint8_t *) block + size;
}

/* A SAMPLE whose addresses lie in its frame (as a reader gives it): the
   copy's point at the same offset of the copied frame.  */
static void
test_sample_in_frame (void)
{
  uint64_t frame[6] = { 0x1111, 0x2222, 0, ST_CONTEXT_USER, 0x401000,
                        0x401234 };
  StEvent ev = { .kind = ST_EVENT_SAMPLE, .pid = 7, .tid = 8, .time = 99,
                 .raw = (const uint8_t *) frame, .raw_len = sizeof frame };
  ev.sample.ips = &frame[3];
  ev.sample.n_ips = 3;

  size_t size;
  StEvent *c = copy_exact (&ev, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 48);
  memset (frame, 0xee, sizeof frame);

  g_assert_true (inside (c->raw, c, size));
  g_assert_cmpuint (c->raw_len, ==, 48);
  g_assert_true (c->sample.ips == (const uint64_t *) c->raw + 3);
  g_assert_cmphex (c->sample.ips[0], ==, ST_CONTEXT_USER);
  g_assert_cmphex (c->sample.ips[2], ==, 0x401234);
  g_assert_cmphex (((const uint64_t *) c->raw)[1], ==, 0x2222);
  g_assert_cmpint (c->pid, ==, 7);
  g_assert_cmpint (c->time, ==, 99);
  g_free (c);

  /* st_event_copy is the same in a block of its own.  */
  uint64_t again[2] = { 5, 6 };
  ev.raw = (const uint8_t *) again;
  ev.raw_len = sizeof again;
  ev.sample.ips = again;
  ev.sample.n_ips = 2;
  c = st_event_copy (&ev);
  again[0] = 0;
  g_assert_cmphex (c->sample.ips[0], ==, 5);
  g_assert_true (c->sample.ips == (const uint64_t *) c->raw);
  g_free (c);
}

/* A raw-stack sample whose parts lie outside the frame (a reader that
   decoded them into buffers of its own), with an odd stack size and an
   odd frame length: each gets its own 8-aligned room.  */
static void
test_stack_outside_frame (void)
{
  uint8_t frame[13];
  uint64_t kernel[2] = { ST_CONTEXT_KERNEL, 0xffffffff81000000ull };
  uint64_t user[3] = { 0x401000, 0x401100, 0x401200 };
  uint64_t regs[3] = { 0x7ffd0000, 0x7ffd1000, 0x401000 };
  uint8_t stack[21];

  for (guint i = 0; i < sizeof frame; i++)
    frame[i] = (uint8_t) i;
  for (guint i = 0; i < sizeof stack; i++)
    stack[i] = (uint8_t) (0x80 + i);
  StEvent ev = { .kind = ST_EVENT_STACK_USER, .raw = frame,
                 .raw_len = sizeof frame };
  ev.stack.callchain = kernel;
  ev.stack.n_callchain = 2;
  ev.stack.user_callchain = user;
  ev.stack.n_user_callchain = 3;
  ev.stack.regs = regs;
  ev.stack.n_regs = 3;
  ev.stack.regs_mask = 0x1c0;
  ev.stack.abi = ST_REGS_ABI_64;
  ev.stack.stack = stack;
  ev.stack.stack_size = sizeof stack;

  size_t size;
  StEvent *c = copy_exact (&ev, NULL, NULL, &size);
  /* 13 -> 16, 16, 24, 24, 21 -> 24.  */
  g_assert_cmpuint (size, ==, HEAD + 16 + 16 + 24 + 24 + 24);
  memset (frame, 0, sizeof frame);
  memset (kernel, 0, sizeof kernel);
  memset (user, 0, sizeof user);
  memset (regs, 0, sizeof regs);
  memset (stack, 0, sizeof stack);

  const void *parts[] = { c->raw, c->stack.callchain, c->stack.user_callchain,
                          c->stack.regs, c->stack.stack };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_assert_true (inside (parts[i], c, size));
      g_assert_cmpuint (((uintptr_t) parts[i] - (uintptr_t) c) % 8, ==, 0);
    }
  g_assert_cmpuint (c->raw[12], ==, 12);
  g_assert_cmphex (c->stack.callchain[1], ==, 0xffffffff81000000ull);
  g_assert_cmphex (c->stack.user_callchain[2], ==, 0x401200);
  g_assert_cmphex (c->stack.regs[0], ==, 0x7ffd0000);
  g_assert_cmpuint (c->stack.stack[20], ==, 0x80 + 20);
  g_assert_cmpuint (c->stack.stack_size, ==, 21);
  g_assert_cmphex (c->stack.regs_mask, ==, 0x1c0);
  g_free (c);

  /* No kernel part, no user chain: nothing to copy for them.  */
  ev.stack.callchain = NULL;
  ev.stack.n_callchain = 0;
  ev.stack.user_callchain = NULL;
  ev.stack.n_user_callchain = 0;
  c = copy_exact (&ev, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 16 + 24 + 24);
  g_assert_null (c->stack.callchain);
  g_assert_null (c->stack.user_callchain);
  g_free (c);
}

/* A block that starts in the frame and runs past its end is not in the
   frame: it is copied whole, never read beyond the frame's copy.  */
static void
test_straddling_frame_end (void)
{
  uint64_t buf[4] = { 1, 2, 3, 4 };
  StEvent ev = { .kind = ST_EVENT_SAMPLE, .raw = (const uint8_t *) buf,
                 .raw_len = 16 };
  ev.sample.ips = &buf[1];
  ev.sample.n_ips = 3;

  size_t size;
  StEvent *c = copy_exact (&ev, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 16 + 24);
  memset (buf, 0, sizeof buf);
  g_assert_cmphex (c->sample.ips[0], ==, 2);
  g_assert_cmphex (c->sample.ips[2], ==, 4);
  g_assert_false (c->sample.ips >= (const uint64_t *) c->raw
                  && c->sample.ips < (const uint64_t *) c->raw + 2);
  g_free (c);
}

/* Names: MAP's file name and PROCESS's comm with their NUL; a NULL comm
   and an event without a frame.  */
static void
test_names (void)
{
  char name[] = "/usr/lib/libfoo.so";          /* 19 bytes with NUL */
  StEvent map = { .kind = ST_EVENT_MAP };
  map.map.filename = name;
  map.map.start = 0x1000;
  map.map.build_id_len = 20;
  memset (map.map.build_id, 0xab, 20);

  size_t size;
  StEvent *c = copy_exact (&map, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 24);
  name[1] = 'X';
  g_assert_cmpstr (c->map.filename, ==, "/usr/lib/libfoo.so");
  g_assert_null (c->raw);
  g_assert_cmpuint (c->raw_len, ==, 0);
  g_assert_cmpuint (c->map.build_id[19], ==, 0xab);
  g_free (c);

  StEvent comm = { .kind = ST_EVENT_PROCESS };
  comm.process.comm = "12345678";              /* 9 bytes: 16 */
  comm.process.exec = true;
  c = copy_exact (&comm, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 16);
  g_assert_cmpstr (c->process.comm, ==, "12345678");
  g_assert_true (c->process.exec);
  g_free (c);

  comm.process.comm = NULL;
  c = copy_exact (&comm, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD);
  g_assert_null (c->process.comm);
  g_free (c);

  /* Kinds without pointers: the struct alone (plus the frame).  */
  uint8_t frame[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  StEvent lost = { .kind = ST_EVENT_LOST, .raw = frame, .raw_len = 8 };
  lost.lost.count = 12;
  c = copy_exact (&lost, NULL, NULL, &size);
  g_assert_cmpuint (size, ==, HEAD + 8);
  g_assert_cmpuint (c->lost.count, ==, 12);
  g_assert_cmpmem (c->raw, 8, frame, 8);
  g_free (c);
}

/* Memory that outlives the event (a mapped input file).  */
typedef struct
{
  const uint8_t *start;
  size_t len;
  guint asked;
} Region;

static bool
in_region (const void *ptr, size_t len, void *user)
{
  Region *r = user;

  r->asked++;
  return (const uint8_t *) ptr >= r->start
         && (const uint8_t *) ptr + len <= r->start + r->len;
}

/* With a stable frame, the copy is the struct alone: every pointer into
   the frame stays where it was; one outside it is still copied.  */
static void
test_stable (void)
{
  uint64_t mapped[8] = { 0, 0, 0, 0x10, 0x20, 0x30, 0, 0 };
  uint64_t decoded[2] = { 0x40, 0x50 };
  Region region = { (const uint8_t *) mapped, sizeof mapped, 0 };
  StEvent ev = { .kind = ST_EVENT_STACK_USER,
                 .raw = (const uint8_t *) &mapped[2], .raw_len = 32 };
  ev.stack.regs = &mapped[3];
  ev.stack.n_regs = 3;
  ev.stack.stack = (const uint8_t *) decoded;
  ev.stack.stack_size = 16;

  size_t size;
  StEvent *c = copy_exact (&ev, in_region, &region, &size);
  g_assert_cmpuint (region.asked, >, 0);
  g_assert_cmpuint (size, ==, HEAD + 16);
  g_assert_true (c->raw == ev.raw);
  g_assert_true (c->stack.regs == &mapped[3]);
  g_assert_true (inside (c->stack.stack, c, size));
  decoded[0] = 0;
  g_assert_cmphex (((const uint64_t *) c->stack.stack)[0], ==, 0x40);
  g_free (c);

  /* A frame outside the region is copied; a block inside the region
     but outside the frame stays in place.  */
  uint64_t frame[2] = { 7, 8 };
  ev.raw = (const uint8_t *) frame;
  ev.raw_len = 16;
  ev.stack.stack = (const uint8_t *) &mapped[6];
  c = copy_exact (&ev, in_region, &region, &size);
  g_assert_cmpuint (size, ==, HEAD + 16);
  g_assert_true (inside (c->raw, c, size));
  g_assert_true (c->stack.regs == &mapped[3]);
  g_assert_true (c->stack.stack == (const uint8_t *) &mapped[6]);
  g_free (c);
}

static void
test_kind_names (void)
{
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  const StEventKind kinds[] = { ST_EVENT_OTHER, ST_EVENT_SAMPLE,
                                ST_EVENT_STACK_USER, ST_EVENT_MAP,
                                ST_EVENT_PROCESS, ST_EVENT_FORK,
                                ST_EVENT_EXIT, ST_EVENT_LOST };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const char *name = st_event_kind_name (kinds[i]);
      g_assert_cmpstr (name, !=, "unknown");
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, (gpointer) name);
    }
  g_assert_cmpstr (st_event_kind_name (ST_EVENT_STACK_USER), ==, "stack-user");
  g_assert_cmpstr (st_event_kind_name ((StEventKind) 1000), ==, "unknown");
  g_assert_cmpstr (st_format_name (ST_FORMAT_SYSPROF), ==, "sysprof");
  g_assert_cmpstr (st_format_name (ST_FORMAT_PERF), ==, "perf");
  g_assert_cmpstr (st_format_name ((StFormat) 77), ==, "unknown");
  g_hash_table_destroy (seen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/event/sample-in-frame", test_sample_in_frame);
  g_test_add_func ("/event/stack-outside-frame", test_stack_outside_frame);
  g_test_add_func ("/event/straddling-frame-end", test_straddling_frame_end);
  g_test_add_func ("/event/names", test_names);
  g_test_add_func ("/event/stable", test_stable);
  g_test_add_func ("/event/kind-names", test_kind_names);
  return g_test_run ();
}
