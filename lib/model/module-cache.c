/* Module cache: one StModule per file, found by the file resolver or
   through the fallback finder, verified against what was recorded,
   bounded with LRU eviction of the modules no process state uses, and
   prepared inline or on worker threads.

   Every structure of the cache (the two hash tables, the LRU list, the
   byte total, the users counts) belongs to the main thread.  A worker
   touches only the one module it prepares, and only while that module
   is PREPARING; the main thread then reads nothing of it but its name
   and key, never evicts it, and takes it back (finish) when the worker
   pool hands back the job: from then on it is READY.  */
#include "config.h"

#include <string.h>

#include "util/mapping-guard.h"
#include "model/code-pages.h"
#include "model/module-cache.h"
#include "model/module-cache-private.h"
#include "model/file-report.h"
#include "model/module-file.h"
#include "util/worker-pool.h"

/* What the stream recorded for a mapping: the cheap first lookup.  */
typedef struct
{
  const char *filename;     /* interned ref string (held): compared by
                               pointer */
  uint64_t inode;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint8_t build_id_len;
  uint8_t build_id[ST_BUILD_ID_MAX];
} Recorded;

/* Descriptors a cache keeps open at most for files pinned through their
   process (file-resolver.h), until their modules are prepared.  */
#define MAX_PINNED_FILES 256

/* A module the cache made: both in one allocation, MODULE first (freed
   with g_free of the module).  */
typedef struct
{
  StModule module;
  struct StModuleCacheEntry entry;
} StCachedModule;

struct StModuleCache
{
  StModuleSources src;      /* read by workers: fixed once modules open */
  /* The modules' tables' budget: theirs, so that it lives as long as
     they do, whichever of the unwinders sharing the cache (sessions)
     prepared them or is gone.  */
  StByteBudget table_budget;
  GHashTable *by_key;       /* key string -> StModule* (owns them) */
  GHashTable *by_recorded;  /* Recorded* -> StModule* */
  GQueue lru;               /* unused ready modules, most recent first */
  guint max_modules;
  size_t max_bytes;
  guint max_unused;         /* modules in LRU (no user) */
  size_t bytes;             /* of the ready modules */
  guint64 evictions;
  StModulePrepare prepare;
  void *prepare_data;

  StWorkerPool *workers;    /* NULL: modules are prepared inline */
  gboolean reads_wait;      /* st_module_cache_get_ready waits */
  uint64_t ready_generation;
  guint64 prepared_by_workers;
  gint pinned;              /* atomic: descriptors of pinned files open */
  StPinShelf *pin_shelf;    /* --jobs: first-sight pins lent (not owned) */
  int pin_taker;            /* -1: this cache lends its pins, else takes */
  gboolean lazy_fetch;      /* the finder waits for a sample's need */
  uint64_t retry_generation;
  StFileReport *report;     /* what every module's file was */
};

/* A preparation handed to a worker: the module and a copy of the
   mapping that made it (its name referenced).  */
typedef struct
{
  StModule *module;
  StMap map;
  gboolean fetch;           /* only ask the finder (st_module_cache_fetch) */
} Job;

/* REC as a string.  */
static char *
recorded_name (const Recorded *rec)
{
  g_autofree char *id = st_build_id_hex (rec->build_id, rec->build_id_len);

  return g_strdup_printf ("%s#%" G_GUINT64_FORMAT ":%u:%u:%s", rec->filename,
                          rec->inode, rec->dev_major, rec->dev_minor, id);
}

static guint
recorded_hash (gconstpointer key)
{
  const Recorded *r = key;
  guint h = g_direct_hash (r->filename) ^ (guint) (r->inode * 0x9e3779b1u);

  /* Looked up for most samples: eight bytes of a build ID tell files
     apart as well as all of it.  */
  if (r->build_id_len >= 8)
    {
      uint64_t w;
      memcpy (&w, r->build_id, 8);
      return h * 31 + (guint) (w ^ (w >> 32)) + r->build_id_len;
    }
  for (guint i = 0; i < r->build_id_len; i++)
    h = h * 31 + r->build_id[i];
  return h;
}

static gboolean
recorded_equal (gconstpointer a, gconstpointer b)
{
  const Recorded *x = a, *y = b;

  return x->filename == y->filename && x->inode == y->inode
         && x->dev_major == y->dev_major && x->dev_minor == y->dev_minor
         && x->build_id_len == y->build_id_len
         && memcmp (x->build_id, y->build_id, x->build_id_len) == 0;
}

static void
recorded_free (gpointer data)
{
  Recorded *r = data;

  g_ref_string_release ((char *) r->filename);
  g_free (r);
}

static void
module_free (gpointer data)
{
  StModule *m = data;

  if (m->tables_free != NULL)
    m->tables_free (m->tables);
  /* Before the mapping goes: a stale guard would claim its addresses.  */
  st_mapping_guard_remove (m->guard);
  if (m->elf != NULL)
    elf_end (m->elf);
  st_module_file_close_fd (m);
  st_file_pins_close (&m->cached->pins);
  g_ref_string_release ((char *) m->name);
  g_free (m->path);
  g_free (m->loads);
  g_free (m->stack_roots);
  g_free (m->error);
  g_free (m->cached->key);
  g_free (m);
}

static void
job_free (gpointer data)
{
  Job *j = data;

  g_ref_string_release ((char *) j->map.filename);
  g_free (j);
}

StModuleCache *
st_module_cache_new (const char *symfs)
{
  return st_module_cache_new_with_resolver (st_file_resolver_new (symfs,
                                                                  NULL));
}

StModuleCache *
st_module_cache_new_with_resolver (StFileResolver *resolver)
{
  StModuleCache *c = g_new0 (StModuleCache, 1);

  st_byte_budget_init (&c->table_budget, ST_MODULE_CACHE_TABLE_BYTES);
  elf_version (EV_CURRENT);
  st_module_sources_init (&c->src, resolver);
  c->report = st_file_report_new ();
  c->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                     module_free);
  c->by_recorded = g_hash_table_new_full (recorded_hash, recorded_equal,
                                          recorded_free, NULL);
  g_queue_init (&c->lru);
  c->max_modules = ST_MODULE_CACHE_MAX_MODULES;
  c->max_bytes = ST_MODULE_CACHE_MAX_BYTES;
  c->max_unused = ST_MODULE_CACHE_MAX_UNUSED;
  return c;
}

void
st_module_cache_free (StModuleCache *c)
{
  if (c == NULL)
    return;
  /* Workers first: a preparation still running finishes (one not
     started is skipped), then its module is freed with the others.  */
  st_worker_pool_free (c->workers, job_free);
  g_hash_table_destroy (c->by_recorded);
  g_hash_table_destroy (c->by_key);
  /* (The modules' tables left it as they were freed.)  */
  st_byte_budget_clear (&c->table_budget);
  st_module_sources_clear (&c->src);
  st_file_report_free (c->report);
  g_free (c);
}

StByteBudget *
st_module_cache_table_budget (StModuleCache *c)
{
  return &c->table_budget;
}

void
st_module_cache_set_limits (StModuleCache *c, guint max_modules,
                            size_t max_bytes)
{
  if (max_modules > 0)
    c->max_modules = max_modules;
  if (max_bytes > 0)
    c->max_bytes = max_bytes;
}

void
st_module_cache_set_max_unused (StModuleCache *c, guint max_unused)
{
  c->max_unused = MAX (max_unused, 1);
}

void
st_module_cache_set_prepare (StModuleCache *c, StModulePrepare prepare,
                             void *user_data)
{
  c->prepare = prepare;
  c->prepare_data = user_data;
}

void
st_module_cache_set_finder (StModuleCache *c, StModuleFinder finder,
                            void *user_data)
{
  c->src.finder = finder;
  c->src.finder_data = user_data;
}

const char *
st_module_identity (const StModule *m)
{
  return m->cached->key;
}

char *
st_module_find_file (const StModule *m, StModuleFileKind kind)
{
  StModuleCache *c = m->cached->cache;

  if (c == NULL || c->src.finder == NULL)
    return NULL;
  g_atomic_int_inc (&((StModule *) m)->fetching);
  char *path = c->src.finder (kind, m->path != NULL ? m->path : m->name,
                              m->build_id, m->build_id_len, NULL,
                              c->src.finder_data);
  g_atomic_int_dec_and_test (&((StModule *) m)->fetching);
  return path;
}

/* --- bounds ---------------------------------------------------------------- */

static gboolean
points_to (gpointer key, gpointer value, gpointer module)
{
  return value == module;
}

static void
evict (StModuleCache *c, StModule *m)
{
  g_queue_unlink (&c->lru, &m->cached->lru);
  g_hash_table_foreach_remove (c->by_recorded, points_to, m);
  c->bytes -= m->cached->bytes;
  c->evictions++;
  g_hash_table_remove (c->by_key, m->cached->key);
}

/* Evicts unused modules, least recently used first, until one more
   module fits, and no more than MAX_UNUSED are left unused.  Modules
   being prepared are in no list: they are never evicted.  */
static void
make_room (StModuleCache *c)
{
  while (c->lru.tail != NULL
         && (g_hash_table_size (c->by_key) + 1 > c->max_modules
             || c->bytes > c->max_bytes
             || c->lru.length > c->max_unused))
    evict (c, c->lru.tail->data);
}

/* Evicts unused modules other than KEEP while the bytes exceed their
   bound (a big file may push others out).  */
static void
fit_bytes (StModuleCache *c, StModule *keep)
{
  while (c->bytes > c->max_bytes && c->lru.tail != NULL
         && c->lru.tail != &keep->cached->lru)
    evict (c, c->lru.tail->data);
}

void
st_module_account (StModule *m, gssize delta)
{
  m->cached->bytes += delta;
  /* While a worker prepares M, its bytes are its own: the cache adds
     them when it takes M back (finish).  */
  if (m->cached->counted)
    m->cached->cache->bytes += delta;
}

/* --- preparation -------------------------------------------------------- */

/* Opens and prepares M: everything slow about a module.  Touches only M
   (on a worker thread, or inline).  */
static void
prepare (StModuleCache *c, StModule *m, const StMap *map, gboolean fetch)
{
  if (fetch)
    st_module_file_fetch (&c->src, m, map);
  else
    st_module_file_open (&c->src, m, map, !c->lazy_fetch);
  if (st_file_pins_any (&m->cached->pins))
    {
      g_atomic_int_dec_and_test (&c->pinned);
      st_file_pins_close (&m->cached->pins);
    }
  /* The [vdso] copy is shared and not counted.  */
  st_module_account (m, m->data != c->src.vdso ? m->size : 0);
  if (m->elf != NULL && c->prepare != NULL)
    c->prepare (m, c->prepare_data);
}

static void
prepare_job (void *data, gboolean cancelled, void *user)
{
  Job *j = data;

  if (!cancelled)
    prepare (user, j->module, &j->map, j->fetch);
}

/* On the main thread: M is prepared and READY from now on.  */
static void
finish (StModuleCache *c, StModule *m)
{
  if (m->preparing)
    c->prepared_by_workers++;
  m->preparing = FALSE;
  m->cached->counted = TRUE;
  st_file_report_module (c->report, m->cached->key, m->name, m->path, m->source,
                         m->verification, m->problem, m->error,
                         /* keyed by the build-id the stream recorded */
                         g_str_has_prefix (m->cached->key, "b:"));
  c->bytes += m->cached->bytes;
  c->ready_generation++;
  if (m->cached->users == 0)
    g_queue_push_head_link (&c->lru, &m->cached->lru);
  fit_bytes (c, m);
}

void
st_module_cache_set_workers (StModuleCache *c, guint n_threads,
                             gboolean reads_wait)
{
  g_return_if_fail (c->workers == NULL && n_threads > 0);
  c->workers = st_worker_pool_new (n_threads, prepare_job, c);
  c->reads_wait = reads_wait;
}

/* Takes back JOB, which a worker finished (NULL: none came): its module
   is READY.  */
static gboolean
take_back (StModuleCache *c, Job *j)
{
  if (j == NULL)
    return FALSE;
  finish (c, j->module);
  job_free (j);
  return TRUE;
}

guint
st_module_cache_collect (StModuleCache *c)
{
  guint n = 0;

  while (c->workers != NULL
         && take_back (c, st_worker_pool_collect (c->workers)))
    n++;
  return n;
}

gboolean
st_module_cache_wait_any (StModuleCache *c)
{
  return st_module_cache_wait_any_timeout (c, -1);
}

gboolean
st_module_cache_wait_any_timeout (StModuleCache *c, gint64 timeout_us)
{
  if (c->workers == NULL
      || !take_back (c, timeout_us < 0
                        ? st_worker_pool_wait (c->workers)
                        : st_worker_pool_wait_timeout (c->workers,
                                                       timeout_us)))
    return FALSE;
  st_module_cache_collect (c);
  return TRUE;
}

void
st_module_cache_wait_for (StModuleCache *c, StModule *m)
{
  /* M is in flight, so some job comes back each time; stop as soon as
     M's does (a later one could evict M once it is unused).  */
  while (m->preparing)
    if (!take_back (c, st_worker_pool_wait (c->workers)))
      g_assert_not_reached ();
}

/* How often a wait for local preparation looks whether a download
   started.  */
#define LOCAL_WAIT_STEP_US 10000

gboolean
st_module_cache_wait_local (StModuleCache *c, StModule *m)
{
  /* M is in flight: jobs come back until M's does, unless M starts a
     download meanwhile.  */
  while (m->preparing && !st_module_fetching (m))
    take_back (c, st_worker_pool_wait_timeout (c->workers,
                                               LOCAL_WAIT_STEP_US));
  return !m->preparing;
}

uint64_t
st_module_cache_ready_generation (const StModuleCache *c)
{
  return c->ready_generation;
}

guint
st_module_cache_preparing (const StModuleCache *c)
{
  return c->workers != NULL ? st_worker_pool_pending (c->workers) : 0;
}

guint64
st_module_cache_prepared_by_workers (const StModuleCache *c)
{
  return c->prepared_by_workers;
}

guint
st_module_cache_workers (const StModuleCache *c)
{
  return c->workers != NULL ? st_worker_pool_threads (c->workers) : 0;
}

int
st_module_cache_wake_fd (const StModuleCache *c)
{
  return c->workers != NULL ? st_worker_pool_wake_fd (c->workers) : -1;
}

/* --- lookup -------------------------------------------------------------- */

static StModule *
lookup (StModuleCache *c, const StMap *map)
{
  Recorded rec = { map->filename, map->inode, map->dev_major,
                   map->dev_minor, map->build_id_len };
  memcpy (rec.build_id, map->build_id, map->build_id_len);

  StModule *m = g_hash_table_lookup (c->by_recorded, &rec);
  if (m != NULL)
    return m;

  char *key = st_module_file_key (&c->src, map);
  m = g_hash_table_lookup (c->by_key, key);
  if (m != NULL)
    g_free (key);
  else
    {
      make_room (c);
      StCachedModule *cm = g_new0 (StCachedModule, 1);
      m = &cm->module;
      m->cached = &cm->entry;
      m->name = g_ref_string_acquire ((char *) map->filename);
      m->cached->key = key;
      m->cached->lru.data = m;
      m->cached->cache = c;
      m->cached->pins = ST_FILE_PINS_NONE;
      /* First sight: the process may still be there to ask for its own
         files -- or, for a worker's cache, the pipeline's cache asked
         when it saw the mapping first.  */
      if (g_atomic_int_get (&c->pinned) < MAX_PINNED_FILES
          && !st_file_resolver_given_only (st_module_cache_resolver (c)))
        {
          /* (On the shelf by what the stream recorded: the key may
             say whether the local file is there, which changes.)  */
          g_autofree char *shelved = c->pin_shelf != NULL
                                     ? recorded_name (&rec) : NULL;
          if (shelved == NULL || c->pin_taker < 0
              || !st_pin_shelf_take (c->pin_shelf, shelved, c->pin_taker,
                                     &m->cached->pins))
            st_file_pins_open (&m->cached->pins, map);
          if (shelved != NULL && c->pin_taker < 0)
            st_pin_shelf_put (c->pin_shelf, shelved, &m->cached->pins);
          if (st_file_pins_any (&m->cached->pins))
            g_atomic_int_inc (&c->pinned);
        }
      g_hash_table_insert (c->by_key, m->cached->key, m);
      if (c->workers != NULL)
        {
          Job *j = g_new0 (Job, 1);
          j->module = m;
          j->map = *map;
          g_ref_string_acquire ((char *) map->filename);
          m->preparing = TRUE;
          st_worker_pool_push (c->workers, j);
        }
      else
        {
          prepare (c, m, map, FALSE);
          finish (c, m);
        }
    }
  /* The key holds a reference: the name's address cannot be reused for
     another name while the entry exists.  */
  g_ref_string_acquire ((char *) rec.filename);
  g_hash_table_insert (c->by_recorded, g_memdup2 (&rec, sizeof rec), m);
  return m;
}

void
st_module_cache_share_pins (StModuleCache *c, StPinShelf *shelf, int taker)
{
  c->pin_shelf = shelf;
  c->pin_taker = taker;
}

void
st_module_cache_set_lazy_fetch (StModuleCache *c, gboolean lazy)
{
  c->lazy_fetch = lazy;
}

gboolean
st_module_cache_fetch (StModuleCache *c, StModule *m, const StMap *map)
{
  if (m->preparing || !m->fetch_deferred)
    return FALSE;
  m->fetch_deferred = FALSE;
  c->retry_generation++;
  if (c->workers == NULL)
    {
      /* Bytes and report as in finish, without its LRU move.  */
      c->bytes -= m->cached->bytes;
      m->cached->counted = FALSE;
      prepare (c, m, map, TRUE);
      m->cached->counted = TRUE;
      c->bytes += m->cached->bytes;
      c->ready_generation++;
      st_file_report_module (c->report, m->cached->key, m->name, m->path, m->source,
                             m->verification, m->problem, m->error,
                             g_str_has_prefix (m->cached->key, "b:"));
      fit_bytes (c, m);
      return TRUE;
    }
  /* PREPARING again: out of the LRU list and the byte total until a
     worker is done with it (finish).  */
  if (m->cached->users == 0)
    g_queue_unlink (&c->lru, &m->cached->lru);
  c->bytes -= m->cached->bytes;
  m->cached->counted = FALSE;
  m->preparing = TRUE;
  Job *j = g_new0 (Job, 1);
  j->module = m;
  j->map = *map;
  j->map.filename = g_ref_string_new_intern (map->filename);
  j->fetch = TRUE;
  st_worker_pool_push (c->workers, j);
  return TRUE;
}

uint64_t
st_module_cache_retry_generation (const StModuleCache *c)
{
  return c->retry_generation;
}

StModule *
st_module_cache_get (StModuleCache *c, const StMap *map)
{
  StModule *m = lookup (c, map);

  if (m->cached->users == 0 && !m->preparing && c->lru.head != &m->cached->lru)
    {
      g_queue_unlink (&c->lru, &m->cached->lru);
      g_queue_push_head_link (&c->lru, &m->cached->lru);
    }
  return m;
}

StModule *
st_module_cache_get_ready (StModuleCache *c, const StMap *map)
{
  StModule *m = st_module_cache_get (c, map);

  if (m->preparing && c->reads_wait)
    st_module_cache_wait_local (c, m);
  return m->preparing ? NULL : m;
}

void
st_module_cache_prime (StModuleCache *c, const StMap *map)
{
  StMap interned = *map;

  interned.filename = g_ref_string_new_intern (map->filename);
  st_module_cache_get (c, &interned);
  g_ref_string_release ((char *) interned.filename);
}

StModule *
st_module_cache_acquire (StModuleCache *c, const StMap *map)
{
  StModule *m = lookup (c, map);

  if (m->cached->users++ == 0 && !m->preparing)
    g_queue_unlink (&c->lru, &m->cached->lru);
  return m;
}

void
st_module_cache_release (StModuleCache *c, StModule *m)
{
  g_assert (m->cached->users > 0);
  if (--m->cached->users == 0 && !m->preparing)
    g_queue_push_head_link (&c->lru, &m->cached->lru);
}

/* --- reading ---------------------------------------------------------------- */

Elf *
st_module_elf_ref (const StModule *m)
{
  if (m->elf == NULL)
    return NULL;
  if (m->cached != NULL && m->data == m->cached->cache->src.vdso)
    return elf_memory ((char *) m->data, m->size);
  return elf_begin (-1, ELF_C_READ_MMAP, m->elf);
}

gboolean
st_module_read (const StModule *m, uint64_t offset, void *buf, size_t len)
{
  if (m->data == NULL || offset > m->size || m->size - offset < len)
    return FALSE;
  memcpy (buf, m->data + offset, len);
  return TRUE;
}

gboolean
st_module_pread (const StModule *m, uint64_t offset, void *buf, size_t len)
{
  if (m->fd_kept
      && st_code_pages_read (m->code_pages, m->code_file_id, m->fd, offset,
                             buf, len))
    return TRUE;
  return st_module_read (m, offset, buf, len);
}

StFileReport *
st_module_cache_file_report (const StModuleCache *c)
{
  return c->report;
}

StFileResolver *
st_module_cache_resolver (const StModuleCache *c)
{
  return c->src.resolver;
}

guint
st_module_cache_size (StModuleCache *c)
{
  return g_hash_table_size (c->by_key);
}

size_t
st_module_cache_bytes (StModuleCache *c)
{
  return c->bytes;
}

guint64
st_module_cache_evictions (StModuleCache *c)
{
  return c->evictions;
}
