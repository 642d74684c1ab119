/* Format detection and dispatch to the capture or perf.data reader.  */
#include "config.h"

#include <string.h>

#include "format/capture-reader.h"
#include "format/capture-types.h"
#include "util/domain.h"
#include "format/perf-reader.h"
#include "format/reader.h"

struct StReader
{
  StFormat format;
  StInput *input;
  StCaptureReader *capture;
  StPerfReader *perf;
};

static StFormat
detect (StInput *in, GError **error)
{
  size_t avail = 0;
  const uint8_t *p = st_input_peek (in, 8, &avail, error);

  if (p == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, ST_ERROR, ST_ERROR_TRUNCATED,
                     "input too short (%zu bytes) to hold a capture or "
                     "perf.data header", avail);
      return ST_FORMAT_AUTO;
    }
  if (memcmp (p, "PERFILE2", 8) == 0 || memcmp (p, "2ELIFREP", 8) == 0)
    return ST_FORMAT_PERF;

  uint32_t magic;
  memcpy (&magic, p, 4);
  if (magic == ST_CAPTURE_MAGIC || magic == GUINT32_SWAP_LE_BE (ST_CAPTURE_MAGIC))
    return ST_FORMAT_SYSPROF;

  /* Say what was there: a text file, a compressed archive, an ELF
     file are told apart at a glance.  */
  GString *seen = g_string_new (NULL);
  for (int i = 0; i < 8; i++)
    g_string_append_printf (seen, "%s%02x", i > 0 ? " " : "", p[i]);
  g_string_append (seen, " \"");
  for (int i = 0; i < 8; i++)
    g_string_append_c (seen, g_ascii_isprint (p[i]) ? (char) p[i] : '.');
  g_string_append_c (seen, '"');
  g_set_error (error, ST_ERROR, ST_ERROR_FORMAT,
               "offset 0: neither a Sysprof capture nor perf.data: the "
               "first bytes are %s, where perf.data begins with "
               "\"PERFILE2\" and a capture with its magic %08x",
               seen->str, ST_CAPTURE_MAGIC);
  g_string_free (seen, TRUE);
  return ST_FORMAT_AUTO;
}

StReader *
st_reader_new (int fd, StFormat format, GError **error)
{
  return st_reader_new_full (fd, format, 0, NULL, NULL, error);
}

StReader *
st_reader_new_full (int fd, StFormat format, unsigned wait_ms,
                    StInputWaitFunc wait_func, void *wait_data,
                    GError **error)
{
  return st_reader_new_pulled (fd, NULL, NULL, format, wait_ms, wait_func,
                               wait_data, error);
}

StReader *
st_reader_new_pulled (int fd, StInputReadFunc read_func, void *read_data,
                      StFormat format, unsigned wait_ms,
                      StInputWaitFunc wait_func, void *wait_data,
                      GError **error)
{
  StReader *r = g_new0 (StReader, 1);

  r->input = st_input_new (fd);
  if (read_func != NULL)
    st_input_set_read_func (r->input, read_func, read_data);
  st_input_set_wait_func (r->input, wait_ms, wait_func, wait_data);
  if (format == ST_FORMAT_AUTO)
    format = detect (r->input, error);
  r->format = format;
  switch (format)
    {
    case ST_FORMAT_SYSPROF:
      r->capture = st_capture_reader_new (r->input, error);
      if (r->capture != NULL)
        return r;
      break;
    case ST_FORMAT_PERF:
      r->perf = st_perf_reader_new (r->input, error);
      if (r->perf != NULL)
        return r;
      break;
    case ST_FORMAT_AUTO:
      break;
    }
  st_reader_free (r);
  return NULL;
}

void
st_reader_free (StReader *r)
{
  if (r == NULL)
    return;
  if (r->capture != NULL)
    st_capture_reader_free (r->capture);
  if (r->perf != NULL)
    st_perf_reader_free (r->perf);
  st_input_free (r->input);
  g_free (r);
}

int
st_reader_next (StReader *r, StEvent *ev, GError **error)
{
  /* Events given out before may be held; what this call skips is not.  */
  st_input_mark_held (r->input);
  if (r->capture != NULL)
    return st_capture_reader_next (r->capture, ev, error);
  return st_perf_reader_next (r->perf, ev, error);
}

void
st_reader_set_damage_handler (StReader *r, const StDamageHandler *handler)
{
  if (r->capture != NULL)
    st_capture_reader_set_damage_handler (r->capture, handler);
  else
    st_perf_reader_set_damage_handler (r->perf, handler);
}

StFormat
st_reader_format (const StReader *r)
{
  return r->format;
}

const uint8_t *
st_reader_capture_header (const StReader *r)
{
  return r->capture != NULL ? st_capture_reader_header (r->capture) : NULL;
}

StPerfReader *
st_reader_perf (const StReader *r)
{
  return r->perf;
}

int
st_reader_fd (const StReader *r)
{
  return st_input_fd (r->input);
}

void
st_reader_set_wait_func (StReader *r, unsigned interval_ms,
                         StInputWaitFunc func, void *user)
{
  st_input_set_wait_func (r->input, interval_ms, func, user);
}

void
st_reader_set_wake_fd (StReader *r, int fd)
{
  st_input_set_wake_fd (r->input, fd);
}

uint64_t
st_reader_offset (const StReader *r)
{
  return st_input_offset (r->input);
}

uint64_t
st_reader_intact_end (const StReader *r)
{
  return st_input_intact_end (r->input);
}

bool
st_reader_stable (const void *ptr, size_t len, void *reader)
{
  return st_input_stable (((StReader *) reader)->input, ptr, len);
}

void
st_reader_hold (StReader *r)
{
  st_input_hold (r->input);
}

gboolean
st_reader_page_on_thread (StReader *r)
{
  return st_input_page_on_thread (r->input);
}

void
st_reader_release (StReader *r, uint64_t offset)
{
  st_input_release (r->input, offset);
}

void
st_reader_trim (StReader *r)
{
  st_input_trim (r->input);
}
