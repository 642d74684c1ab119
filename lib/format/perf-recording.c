/* perf.data feature sections about the recording: CMDLINE, SAMPLE_TIME,
   CLOCK_DATA (layouts in perf-types.h's feature list).  */
#include "config.h"

#include <string.h>

#include "format/perf-recording.h"
#include "format/perf-types.h"

void
st_perf_recording_clear (StPerfRecording *rec)
{
  g_strfreev (rec->argv);
  memset (rec, 0, sizeof *rec);
}

/* CMDLINE: u32 nr; then nr times {u32 len; char s[len]}, s NUL-padded.  */
static char **
parse_cmdline (const uint8_t *data, uint64_t size)
{
  uint32_t nr;
  uint64_t pos = 4;
  GPtrArray *args;

  if (size < 4)
    return NULL;
  memcpy (&nr, data, 4);
  if (nr > size / 4)
    return NULL;
  args = g_ptr_array_new_with_free_func (g_free);
  for (uint32_t i = 0; i < nr; i++)
    {
      uint32_t len;

      if (size - pos < 4)
        goto bad;
      memcpy (&len, data + pos, 4);
      pos += 4;
      if (len > size - pos)
        goto bad;
      g_ptr_array_add (args, g_strndup ((const char *) data + pos, len));
      pos += len;
    }
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (args, FALSE);

bad:
  g_ptr_array_unref (args);
  return NULL;
}

void
st_perf_recording_feature (StPerfRecording *rec, guint bit,
                           const uint8_t *data, uint64_t size)
{
  switch (bit)
    {
    case ST_PERF_FEAT_CMDLINE:
      {
        char **argv = parse_cmdline (data, size);

        if (argv != NULL)
          {
            g_strfreev (rec->argv);
            rec->argv = argv;
          }
        break;
      }
    case ST_PERF_FEAT_SAMPLE_TIME:
      if (size >= 16)
        {
          uint64_t first, last;

          memcpy (&first, data, 8);
          memcpy (&last, data + 8, 8);
          if (first > 0 && first <= last && last <= G_MAXINT64)
            {
              rec->first_sample = (int64_t) first;
              rec->last_sample = (int64_t) last;
            }
        }
      break;
    case ST_PERF_FEAT_CLOCK_DATA:
      /* u32 version, clockid; u64 wall_clock_ns, clockid_time_ns.  */
      if (size >= 24)
        {
          memcpy (&rec->wall_clock_ns, data + 8, 8);
          memcpy (&rec->clock_ns, data + 16, 8);
          rec->has_clock = rec->wall_clock_ns > 0;
        }
      break;
    default:
      break;
    }
}

void
st_perf_recording_feature_record (StPerfRecording *rec, const uint8_t *raw,
                                  size_t len)
{
  StPerfFeatureRecord f;

  if (len < sizeof f)
    return;
  memcpy (&f, raw, sizeof f);
  if (f.header.type != ST_PERF_RECORD_HEADER_FEATURE
      || f.feat_id >= ST_PERF_FEATURE_BITS)
    return;
  st_perf_recording_feature (rec, (guint) f.feat_id, raw + sizeof f,
                             len - sizeof f);
}

void
st_perf_recording_from_reader (StPerfRecording *rec,
                               const StPerfReader *reader)
{
  static const guint bits[] = {
    ST_PERF_FEAT_CMDLINE, ST_PERF_FEAT_SAMPLE_TIME, ST_PERF_FEAT_CLOCK_DATA
  };

  for (guint i = 0; i < G_N_ELEMENTS (bits); i++)
    {
      uint64_t size = 0;
      const uint8_t *data = st_perf_reader_feature (reader, bits[i], &size);

      if (data != NULL)
        st_perf_recording_feature (rec, bits[i], data, size);
    }
}
