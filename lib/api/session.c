/* Level 3 of the public API: a module cache shared by sessions, and a
   session per recorded machine around the per-sample unwinding service
   (sample-unwinder.h) that the command's pipeline uses too.

   The library's module cache is used from one thread at a time (its
   workers aside); a StCache shares it among threads by a lock that
   every session call touching it takes: sessions on different threads
   share the prepared modules and get exactly the chains they would get
   alone, one call at a time.  */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "api/api-private.h"
#include "format/perf-types.h"
#include "live/proc-scan.h"
#include "model/debuginfod-fetch.h"
#include "model/file-resolver.h"
#include "model/module-cache.h"
#include "model/process-table.h"
#include "report/jit-names.h"
#include "report/symbolizer.h"
#include "sample-unwinder.h"

struct StCache
{
  /* pthread rather than GMutex: ThreadSanitizer sees it (GLib's lock
     is futex-based inside libglib).  */
  pthread_mutex_t lock;
  char *symfs, *archive_dir, *perf_cache_dir, *debuginfod_urls;
  StEngine engine;
  guint max_modules;
  size_t max_bytes;
  StModuleCache *modules;    /* (LOCK) made with the first session */
  StDebuginfod *debuginfod;  /* NULL: off */
  guint sessions;            /* (LOCK) */
  char *error;
};

struct StSession
{
  StCache *cache;
  StProcessTable *processes;
  StStats *stats;
  StJitNames *jit_names;
  StSymbolizer *symbolizer;
  StSampleUnwinder *unwinder;
  GString *name;
};

StCache *
st_cache_new (void)
{
  StCache *c = g_new0 (StCache, 1);

  pthread_mutex_init (&c->lock, NULL);
  st_api_set_error (&c->error, "");
  return c;
}

void
st_cache_free (StCache *c)
{
  if (c == NULL)
    return;
  st_debuginfod_cancel (c->debuginfod);
  st_module_cache_free (c->modules);
  st_debuginfod_free (c->debuginfod);
  g_free (c->symfs);
  g_free (c->archive_dir);
  g_free (c->perf_cache_dir);
  g_free (c->debuginfod_urls);
  g_free (c->error);
  pthread_mutex_destroy (&c->lock);
  g_free (c);
}

/* Settings only before the first session.  */
#define SETTABLE(c) \
  do { if ((c) == NULL || (c)->modules != NULL) return ST_E_INVALID; } \
  while (0)

int
st_cache_set_symfs (StCache *c, const char *dir)
{
  SETTABLE (c);
  g_free (c->symfs);
  c->symfs = g_strdup (dir);
  return ST_OK;
}

int
st_cache_set_buildid_dirs (StCache *c, const char *archive_dir,
                           const char *perf_cache_dir)
{
  SETTABLE (c);
  g_free (c->archive_dir);
  c->archive_dir = g_strdup (archive_dir);
  g_free (c->perf_cache_dir);
  c->perf_cache_dir = g_strdup (perf_cache_dir);
  return ST_OK;
}

int
st_cache_set_debuginfod (StCache *c, const char *urls)
{
  SETTABLE (c);
  g_free (c->debuginfod_urls);
  c->debuginfod_urls = g_strdup (urls);
  return ST_OK;
}

int
st_cache_set_engine (StCache *c, StUnwindEngine engine)
{
  SETTABLE (c);
  if (engine != ST_ENGINE_FAST_CFI && engine != ST_ENGINE_LIBDWFL)
    return ST_E_INVALID;
  c->engine = engine == ST_ENGINE_LIBDWFL ? ST_ENGINE_DWFL : ST_ENGINE_FAST;
  return ST_OK;
}

int
st_cache_set_limits (StCache *c, unsigned max_modules, size_t max_bytes)
{
  SETTABLE (c);
  c->max_modules = max_modules;
  c->max_bytes = max_bytes;
  return ST_OK;
}

const char *
st_cache_error (const StCache *c)
{
  return c != NULL ? c->error : "";
}

/* The library's module cache, made at the first session (LOCK held).  */
static StModuleCache *
modules (StCache *c)
{
  if (c->modules != NULL)
    return c->modules;
  c->modules = st_module_cache_new_with_resolver
    (st_file_resolver_new_full (c->symfs, c->archive_dir,
                                c->perf_cache_dir));
  st_module_cache_set_limits (c->modules, c->max_modules, c->max_bytes);
  c->debuginfod = st_debuginfod_new (c->debuginfod_urls);
  st_module_cache_set_finder (c->modules, st_debuginfod_module_finder,
                              c->debuginfod);
  /* Downloads only for the files samples need.  */
  st_module_cache_set_lazy_fetch (c->modules, TRUE);
  return c->modules;
}

StSession *
st_session_new (StCache *c, unsigned flags)
{
  if (c == NULL)
    return NULL;
  StSession *s = g_new0 (StSession, 1);
  StSampleUnwinderOptions o = {
    .engine = c->engine,
    .stitch = (flags & ST_SESSION_STITCH) != 0,
  };

  s->cache = c;
  s->processes = st_process_table_new ();
  s->stats = st_stats_new ();
  s->jit_names = st_jit_names_new (c->symfs, NULL, NULL, NULL);
  s->symbolizer = st_symbolizer_new ();
  st_symbolizer_set_demangle (s->symbolizer, TRUE);
  st_symbolizer_set_jit_names (s->symbolizer, s->jit_names);
  s->name = g_string_sized_new (128);
  pthread_mutex_lock (&c->lock);
  s->unwinder = st_sample_unwinder_new (s->processes, modules (c), s->stats,
                                        NULL, NULL, s->jit_names, &o);
  c->sessions++;
  pthread_mutex_unlock (&c->lock);
  return s;
}

void
st_session_free (StSession *s)
{
  if (s == NULL)
    return;
  StCache *c = s->cache;

  pthread_mutex_lock (&c->lock);
  /* Processes hold Dwfls that reference the cached Elfs: first.  */
  st_process_table_free (s->processes);
  st_sample_unwinder_free (s->unwinder);
  c->sessions--;
  pthread_mutex_unlock (&c->lock);
  st_symbolizer_free (s->symbolizer);
  st_jit_names_free (s->jit_names);
  st_stats_free (s->stats);
  g_string_free (s->name, TRUE);
  g_free (s);
}

int
st_session_add (StSession *s, const StRecord *rec)
{
  StEvent ev;

  if (s == NULL || rec == NULL)
    return ST_E_INVALID;
  if (!st_api_event (rec, &ev) || ev.kind == ST_EVENT_STACK_USER)
    return ST_OK;
  pthread_mutex_lock (&s->cache->lock);
  st_sample_unwinder_apply (s->unwinder, &ev);
  st_stats_event (s->stats, &ev, FALSE);
  pthread_mutex_unlock (&s->cache->lock);
  return ST_OK;
}

/* A record of the /proc walk (proc-scan.h), kept for applying.  */
static void
keep_scanned (const uint8_t *rec, size_t len, void *data)
{
  g_byte_array_append (data, rec, (guint) len);
}

/* A COMM or MMAP2 record of the /proc walk applied to the session's
   model (others are left).  */
static void
apply_scanned (StSession *s, const uint8_t *rec, size_t len)
{
  const StPerfEventHeader *h = (const StPerfEventHeader *) rec;
  StEvent ev;

  memset (&ev, 0, sizeof ev);
  if (h->type == ST_PERF_RECORD_COMM && len > sizeof (StPerfComm))
    {
      const StPerfComm *c = (const StPerfComm *) rec;
      ev.kind = ST_EVENT_PROCESS;
      ev.pid = (int32_t) c->pid;
      ev.tid = (int32_t) c->tid;
      ev.process.comm = c->comm;
    }
  else if (h->type == ST_PERF_RECORD_MMAP2 && len > sizeof (StPerfMmap2))
    {
      const StPerfMmap2 *m = (const StPerfMmap2 *) rec;
      ev.kind = ST_EVENT_MAP;
      ev.pid = (int32_t) m->pid;
      ev.tid = (int32_t) m->tid;
      ev.map.start = m->addr;
      ev.map.end = m->addr + m->len;
      ev.map.pgoff = m->pgoff;
      ev.map.inode = m->ino;
      ev.map.dev_major = m->maj;
      ev.map.dev_minor = m->min;
      ev.map.prot = m->prot;
      ev.map.exec_known = TRUE;
      ev.map.filename = m->filename;
    }
  else
    return;
  /* (The walk pads each name with NULs inside the record.)  */
  st_sample_unwinder_apply (s->unwinder, &ev);
  st_stats_event (s->stats, &ev, FALSE);
}

int
st_session_scan_process (StSession *s, int32_t pid)
{
  StProcScanCounts counts = { 0 };

  if (s == NULL || pid <= 0)
    return ST_E_INVALID;
  /* Read first, then applied under the lock: the sessions sharing the
     cache do not wait for this process's /proc.  */
  g_autoptr (GByteArray) records = g_byte_array_new ();
  if (!st_proc_scan_one ("/proc", (uint32_t) pid, keep_scanned, records, 0, 0,
                         &counts))
    return ST_E_NOT_FOUND;
  pthread_mutex_lock (&s->cache->lock);
  for (size_t at = 0; at + sizeof (StPerfEventHeader) <= records->len;)
    {
      const StPerfEventHeader *h
        = (const StPerfEventHeader *) (records->data + at);
      if (h->size < sizeof *h || h->size > records->len - at)
        break;
      apply_scanned (s, records->data + at, h->size);
      at += h->size;
    }
  pthread_mutex_unlock (&s->cache->lock);
  return ST_OK;
}

int
st_session_unwind (StSession *s, const StRecord *sample, uint64_t *frames,
                   uint32_t max_frames, StChainInfo *info)
{
  StEvent ev;

  if (s == NULL || sample == NULL || info == NULL
      || (frames == NULL && max_frames > 0)
      || sample->kind != ST_RECORD_STACK_SAMPLE || !st_api_event (sample, &ev))
    return ST_E_INVALID;
  pthread_mutex_lock (&s->cache->lock);
  st_sample_unwinder_apply (s->unwinder, &ev);
  StUnwound *u = st_sample_unwinder_unwind (s->unwinder, &ev, FALSE);
  st_stats_event (s->stats, &ev, FALSE);
  pthread_mutex_unlock (&s->cache->lock);

  memset (info, 0, sizeof *info);
  info->status = (StChainStatus) u->status;
  info->cause = (StStopCause) u->cause;
  info->n_frames = MIN (u->n_ips, max_frames);
  info->n_stitched = MIN (u->n_stitched, info->n_frames);
  info->unprimed = u->unprimed;
  if (info->n_frames > 0)
    memcpy (frames, u->ips, info->n_frames * sizeof (uint64_t));
  st_sample_unwinder_release (s->unwinder, u);
  return ST_OK;
}

int
st_session_symbolize (StSession *s, int32_t pid, uint64_t addr, char *buf,
                      size_t size)
{
  if (s == NULL || (buf == NULL && size > 0))
    return ST_E_INVALID;
  pthread_mutex_lock (&s->cache->lock);
  StProcess *proc = st_process_table_lookup (s->processes, pid);
  Dwfl *dwfl = st_sample_unwinder_dwfl (s->unwinder, pid);
  st_symbolizer_set_process (s->symbolizer, pid,
                             proc != NULL ? proc->maps : NULL);
  g_string_truncate (s->name, 0);
  st_symbolize (s->symbolizer, dwfl, addr, s->name);
  pthread_mutex_unlock (&s->cache->lock);
  if (size > 0)
    {
      size_t n = MIN (s->name->len, size - 1);
      memcpy (buf, s->name->str, n);
      buf[n] = '\0';
    }
  return (int) MIN (s->name->len, (gsize) G_MAXINT);
}

int
st_session_get_counters (StSession *s, StCounters *out)
{
  if (s == NULL || out == NULL)
    return ST_E_INVALID;
  st_api_counters (s->stats, out);
  return ST_OK;
}
