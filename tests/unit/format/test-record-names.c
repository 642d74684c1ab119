/* Names of wire types (format/record-names.c), for messages.

   Every Sysprof capture frame type and every perf record type, kernel
   and user, against the numbers in the format facts (Sysprof's
   capture-types, perf's perf_event.h and perf's event.h as listed in
   /work/shared/reference/formats.md), the raw bytes laid out by hand:
   the capture type is the byte at 16 of the frame header, the perf type
   the u32 at 0 of the record header.  Unknown and unreadable types, and
   events without raw bytes.  */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "format/record-names.h"

typedef struct
{
  unsigned type;
  const char *name;
} Known;

/* formats.md, "Sysprof capture", Types; 18 is the eu-stacktrace
   convention.  */
static const Known capture_types[] = {
  { 1, "TIMESTAMP" }, { 2, "SAMPLE" }, { 3, "MAP" }, { 4, "PROCESS" },
  { 5, "FORK" }, { 6, "EXIT" }, { 7, "JITMAP" }, { 8, "CTRDEF" },
  { 9, "CTRSET" }, { 10, "MARK" }, { 11, "METADATA" }, { 12, "LOG" },
  { 13, "FILE_CHUNK" }, { 14, "ALLOCATION" }, { 15, "OVERLAY" },
  { 16, "TRACE" }, { 17, "DBUS_MESSAGE" }, { 18, "STACK_USER" },
};

/* perf_event.h (kernel records, as of Linux 6.1) and perf's event.h
   (user records), formats.md "perf.data".  */
static const Known perf_types[] = {
  { 1, "MMAP" }, { 2, "LOST" }, { 3, "COMM" }, { 4, "EXIT" },
  { 5, "THROTTLE" }, { 6, "UNTHROTTLE" }, { 7, "FORK" }, { 8, "READ" },
  { 9, "SAMPLE" }, { 10, "MMAP2" }, { 11, "AUX" }, { 12, "ITRACE_START" },
  { 13, "LOST_SAMPLES" }, { 14, "SWITCH" }, { 15, "SWITCH_CPU_WIDE" },
  { 16, "NAMESPACES" }, { 17, "KSYMBOL" }, { 18, "BPF_EVENT" },
  { 19, "CGROUP" }, { 20, "TEXT_POKE" }, { 21, "AUX_OUTPUT_HW_ID" },
  { 64, "HEADER_ATTR" }, { 65, "HEADER_EVENT_TYPE" },
  { 66, "HEADER_TRACING_DATA" }, { 67, "HEADER_BUILD_ID" },
  { 68, "FINISHED_ROUND" }, { 69, "ID_INDEX" }, { 70, "AUXTRACE_INFO" },
  { 71, "AUXTRACE" }, { 72, "AUXTRACE_ERROR" }, { 73, "THREAD_MAP" },
  { 74, "CPU_MAP" }, { 75, "STAT_CONFIG" }, { 76, "STAT" },
  { 77, "STAT_ROUND" }, { 78, "EVENT_UPDATE" }, { 79, "TIME_CONV" },
  { 80, "HEADER_FEATURE" }, { 81, "COMPRESSED" }, { 82, "FINISHED_INIT" },
  { 83, "COMPRESSED2" }, { 84, "BPF_METADATA" }, { 85, "SCHEDSTAT_CPU" },
  { 86, "SCHEDSTAT_DOMAIN" },
};

/* A 24-byte capture frame header of TYPE.  */
static const char *
capture_name (unsigned type)
{
  uint8_t frame[24];
  StEvent ev = { 0 };

  memset (frame, 0xee, sizeof frame);
  frame[0] = 24;
  frame[1] = 0;
  frame[16] = (uint8_t) type;
  ev.source = ST_FORMAT_SYSPROF;
  ev.raw = frame;
  ev.raw_len = sizeof frame;
  return st_record_type_name (&ev);
}

/* An 8-byte perf record header of TYPE.  */
static const char *
perf_name (uint32_t type)
{
  uint8_t rec[8] = { 0, 0, 0, 0, 0x02, 0x00, 0x08, 0x00 };
  StEvent ev = { 0 };

  memcpy (rec, &type, 4);
  ev.source = ST_FORMAT_PERF;
  ev.raw = rec;
  ev.raw_len = sizeof rec;
  return st_record_type_name (&ev);
}

static void
test_capture_types (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (capture_types); i++)
    g_assert_cmpstr (capture_name (capture_types[i].type), ==,
                     capture_types[i].name);
  g_assert_cmpstr (capture_name (0), ==, "type 0");
  g_assert_cmpstr (capture_name (19), ==, "type 19");
  g_assert_cmpstr (capture_name (255), ==, "type 255");
}

static void
test_perf_types (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (perf_types); i++)
    g_assert_cmpstr (perf_name (perf_types[i].type), ==, perf_types[i].name);
}

static void
test_perf_unknown_types (void)
{
  /* Between the kernel's and perf's ranges, and past both.  */
  g_assert_cmpstr (perf_name (0), ==, "type 0");
  g_assert_cmpstr (perf_name (22), ==, "type 22");
  g_assert_cmpstr (perf_name (63), ==, "type 63");
  g_assert_cmpstr (perf_name (87), ==, "type 87");
  g_assert_cmpstr (perf_name (G_MAXUINT32), ==, "type 4294967295");
  /* Interned: the same string for the same number, good for counting by
     pointer.  */
  g_assert_true (perf_name (1000) == perf_name (1000));
  g_assert_true (perf_name (1000) != perf_name (1001));
}

static void
test_short_and_missing_raw (void)
{
  uint8_t frame[24] = { 0 };
  StEvent ev = { 0 };

  /* No raw bytes (an event made by the library): the event kind.  */
  ev.kind = ST_EVENT_FORK;
  ev.source = ST_FORMAT_PERF;
  g_assert_cmpstr (st_record_type_name (&ev), ==,
                   st_event_kind_name (ST_EVENT_FORK));

  /* Too short to hold the type: no type read (0), whatever the bytes.  */
  frame[16] = 3;   /* MAP */
  ev.source = ST_FORMAT_SYSPROF;
  ev.raw = frame;
  ev.raw_len = 23;
  g_assert_cmpstr (st_record_type_name (&ev), ==, "type 0");
  frame[0] = 9;
  ev.source = ST_FORMAT_PERF;
  ev.raw_len = 3;
  g_assert_cmpstr (st_record_type_name (&ev), ==, "type 0");
  ev.raw_len = 4;
  g_assert_cmpstr (st_record_type_name (&ev), ==, "SAMPLE");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/record-names/capture-types", test_capture_types);
  g_test_add_func ("/record-names/perf-types", test_perf_types);
  g_test_add_func ("/record-names/perf-unknown-types",
                   test_perf_unknown_types);
  g_test_add_func ("/record-names/short-and-missing-raw",
                   test_short_and_missing_raw);
  return g_test_run ();
}
