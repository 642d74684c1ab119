/* Level 2 of the public API: a recording read record by record, through
   the library's own readers (format/reader.h).  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "api/api-private.h"
#include "format/reader.h"
#include "reorder.h"

/* perf.data: records held to put a round in time order, at most.  */
#define REORDER_MAX_BYTES (512u << 20)

struct StRecords
{
  StReader *reader;
  int own_fd;               /* opened from a path: closed with it */
  uint64_t damaged;
  StReorder *reorder;       /* perf.data: time order (as the command) */
  gboolean at_end;          /* the reader gave its last event */
  guint since_release;      /* records handed out since the last
                               st_reader_release */
  /* perf.data: the window's own copies are handed out, no other copy.
     The next event in time order is held back (ST_REORDER_LATER) until
     it is handed out, and the one handed out until the next call.  */
  const StEvent *next;      /* in time order, not handed out yet */
  const StEvent *handed;    /* what RECORD points into */
  StEvent event;            /* the last read (capture: RECORD's source) */
  StRecord record;
  char *error;
};

/* In time order: the handed-out event, done with now, is processed;
   the next one waits until the caller has seen it.  */
static void *
take_ordered (const StEvent *ev, gboolean force, void *user)
{
  StRecords *r = user;

  if (ev == r->handed)
    {
      r->handed = NULL;
      return NULL;
    }
  r->next = ev;
  return ST_REORDER_LATER;
}

static void
ignore_emit (const StEvent *ev, void *result, void *user)
{
}

static void
on_damage (const StDamage *d, void *user)
{
  StRecords *r = user;

  r->damaged++;
}

StRecords *
st_records_new (void)
{
  StRecords *r = g_new0 (StRecords, 1);

  r->own_fd = -1;
  st_api_set_error (&r->error, "");
  return r;
}

void
st_records_free (StRecords *r)
{
  if (r == NULL)
    return;
  st_reorder_free (r->reorder);
  st_reader_free (r->reader);
  if (r->own_fd >= 0)
    close (r->own_fd);
  g_free (r->error);
  g_free (r);
}

int
st_records_open_fd (StRecords *r, int fd, StFileFormat format)
{
  g_autoptr (GError) error = NULL;

  if (r == NULL || fd < 0 || r->reader != NULL)
    return ST_E_INVALID;
  r->reader = st_reader_new (fd, st_api_format (format), &error);
  if (r->reader == NULL)
    {
      st_api_set_error (&r->error, error->message);
      return ST_E_FORMAT;
    }
  StDamageHandler h = { on_damage, r };
  st_reader_set_damage_handler (r->reader, &h);
  /* perf orders records only per CPU: they come in time order, as
     perf and the command process them (reorder.h).  */
  if (st_reader_format (r->reader) == ST_FORMAT_PERF)
    {
      /* Emitted (forgotten) as soon as processed: in time order.  */
      r->reorder = st_reorder_new (take_ordered, ignore_emit, r,
                                   REORDER_MAX_BYTES, TRUE);
      st_reorder_set_stable (r->reorder, st_reader_stable, r->reader);
    }
  return ST_OK;
}

int
st_records_open_path (StRecords *r, const char *path, StFileFormat format)
{
  if (r == NULL || path == NULL || r->reader != NULL)
    return ST_E_INVALID;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      g_autofree char *msg = g_strdup_printf ("cannot open %s: %s", path,
                                              g_strerror (errno));
      st_api_set_error (&r->error, msg);
      return ST_E_IO;
    }
  int rc = st_records_open_fd (r, fd, format);
  if (rc != ST_OK)
    close (fd);
  else
    r->own_fd = fd;
  return rc;
}

int
st_records_next (StRecords *r, const StRecord **record)
{
  g_autoptr (GError) error = NULL;

  if (r == NULL || r->reader == NULL || record == NULL)
    return ST_E_INVALID;
  if (r->reorder == NULL)
    {
      /* What the last record pointed into may go now.  */
      st_reader_release (r->reader, st_reader_offset (r->reader));
      int rc = st_reader_next (r->reader, &r->event, &error);
      if (rc < 0)
        {
          st_api_set_error (&r->error, error->message);
          return ST_E_IO;
        }
      if (rc == 0)
        return ST_END;
      st_api_record (&r->event, &r->record);
      *record = &r->record;
      return ST_OK;
    }
  /* The last one handed out is done: processed (forgotten), and the
     window goes on to the next, which waits.  */
  if (r->handed != NULL)
    st_reorder_resume (r->reorder, FALSE);
  while (r->next == NULL && !r->at_end)
    {
      int rc = st_reader_next (r->reader, &r->event, &error);
      if (rc < 0)
        {
          st_api_set_error (&r->error, error->message);
          return ST_E_IO;
        }
      if (rc == 0)
        {
          r->at_end = TRUE;
          st_reorder_flush (r->reorder);
        }
      else
        st_reorder_push (r->reorder, &r->event);
    }
  if (r->next == NULL)
    return ST_END;
  r->handed = r->next;
  r->next = NULL;
  /* A mapped input gives back what no held record points into (now and
     then: not free).  The one handed out is held too.  */
  if (++r->since_release >= 256)
    {
      r->since_release = 0;
      st_reader_release (r->reader,
                         st_reorder_oldest_offset (r->reorder));
    }
  st_api_record (r->handed, &r->record);
  *record = &r->record;
  return ST_OK;
}

StFileFormat
st_records_format (const StRecords *r)
{
  return r != NULL && r->reader != NULL
         ? st_api_file_format (st_reader_format (r->reader))
         : ST_FILE_FORMAT_AUTO;
}

uint64_t
st_records_damaged (const StRecords *r)
{
  return r != NULL ? r->damaged : 0;
}

const char *
st_records_error (const StRecords *r)
{
  return r != NULL ? r->error : "";
}
