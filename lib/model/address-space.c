/* Per-process mappings: a sorted array, non-overlapping.  */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "model/address-space.h"

struct StAddressSpace
{
  GArray *maps;         /* StMap, sorted by start, non-overlapping */
  guint peak_len;       /* of MAPS since it was made: its allocation */
  uint64_t generation;
};

/* A count of this space's changes.  Per space, not per process run:
   what is compared with it (process-modules.h) lives and dies with the
   space it was built from (the process table drops it before replacing
   a process's space).  */
static void
touch (StAddressSpace *as)
{
  as->generation++;
}

/* MAPS may have grown: GArray allocates the next power of two of bytes.  */
static void
note_len (StAddressSpace *as)
{
  as->peak_len = MAX (as->peak_len, as->maps->len);
}

StAddressSpace *
st_address_space_new (void)
{
  StAddressSpace *as = g_new0 (StAddressSpace, 1);
  as->maps = g_array_new (FALSE, FALSE, sizeof (StMap));
  touch (as);
  return as;
}

StAddressSpace *
st_address_space_copy (const StAddressSpace *src)
{
  StAddressSpace *as = st_address_space_new ();
  g_array_append_vals (as->maps, src->maps->data, src->maps->len);
  for (guint i = 0; i < as->maps->len; i++)
    g_ref_string_acquire ((char *) g_array_index (as->maps, StMap, i).filename);
  note_len (as);
  return as;
}

static void
release_all (StAddressSpace *as)
{
  for (guint i = 0; i < as->maps->len; i++)
    g_ref_string_release ((char *) g_array_index (as->maps, StMap, i).filename);
  g_array_set_size (as->maps, 0);
}

guint
st_address_space_peak (const StAddressSpace *as)
{
  return as->peak_len;
}

size_t
st_address_space_bytes (const StAddressSpace *as)
{
  size_t maps = as->peak_len * sizeof (StMap);
  size_t alloc = maps <= 16 ? 16 : (size_t) 1 << g_bit_storage (maps - 1);

  /* (The array's own header and malloc's overhead: some 48 bytes.)  */
  return sizeof *as + 48 + (as->peak_len > 0 ? alloc : 0);
}

void
st_address_space_free (StAddressSpace *as)
{
  if (as == NULL)
    return;
  release_all (as);
  g_array_free (as->maps, TRUE);
  g_free (as);
}

void
st_address_space_clear (StAddressSpace *as)
{
  /* (The array keeps its allocation, and PEAK_LEN counts it: an exec's
     image has about as many mappings as the one it replaces.)  */
  release_all (as);
  touch (as);
}

/* Index of the first mapping whose end is above ADDR.  */
static guint
lower_bound (const StAddressSpace *as, uint64_t addr)
{
  guint lo = 0, hi = as->maps->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (as->maps, StMap, mid).end <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

void
st_address_space_add (StAddressSpace *as, const StMap *map)
{
  if (map->end <= map->start)
    return;

  StMap copy = *map;
  guint i = lower_bound (as, map->start);

  const char *name = map->filename ? map->filename : "";

  /* A file's segments are mapped one after another: a neighbour's name,
     interned and alive, is what interning would give (without its lock
     and hash).  */
  copy.filename = NULL;
  for (guint k = i > 0 ? i - 1 : 0; k <= i && k < as->maps->len; k++)
    {
      const char *known = g_array_index (as->maps, StMap, k).filename;
      if (strcmp (known, name) == 0)
        {
          copy.filename = g_ref_string_acquire ((char *) known);
          copy.name_kind = g_array_index (as->maps, StMap, k).name_kind;
          break;
        }
    }
  if (copy.filename == NULL)
    {
      copy.filename = g_ref_string_new_intern (name);
      copy.name_kind = st_map_name_kind (&copy);
    }

  /* Cut what MAP overlaps: keep the parts below and above it.  */
  while (i < as->maps->len)
    {
      StMap *old = &g_array_index (as->maps, StMap, i);
      if (old->start >= map->end)
        break;
      if (old->start < map->start && old->end > map->end)
        {
          StMap upper = *old;
          g_ref_string_acquire ((char *) upper.filename);
          upper.pgoff += map->end - old->start;
          upper.start = map->end;
          old->end = map->start;
          g_array_insert_val (as->maps, i + 1, upper);
          i++;
          break;
        }
      if (old->start < map->start)
        {
          old->end = map->start;
          i++;
          continue;
        }
      if (old->end > map->end)
        {
          old->pgoff += map->end - old->start;
          old->start = map->end;
          break;
        }
      g_ref_string_release ((char *) old->filename);
      g_array_remove_index (as->maps, i);
    }
  g_array_insert_val (as->maps, i, copy);
  note_len (as);
  touch (as);
}

const StMap *
st_address_space_find (const StAddressSpace *as, uint64_t addr)
{
  guint i = lower_bound (as, addr);

  if (i < as->maps->len)
    {
      const StMap *m = &g_array_index (as->maps, StMap, i);
      if (m->start <= addr)
        return m;
    }
  return NULL;
}

guint
st_address_space_first_ending_after (const StAddressSpace *as, uint64_t addr)
{
  return lower_bound (as, addr);
}

guint
st_address_space_size (const StAddressSpace *as)
{
  return as->maps->len;
}

const StMap *
st_address_space_get (const StAddressSpace *as, guint i)
{
  return &g_array_index (as->maps, StMap, i);
}

uint64_t
st_address_space_generation (const StAddressSpace *as)
{
  return as->generation;
}

void
st_map_from_event (StMap *map, const StEvent *ev)
{
  memset (map, 0, sizeof *map);
  map->start = ev->map.start;
  map->end = ev->map.end;
  map->pgoff = ev->map.pgoff;
  map->inode = ev->map.inode;
  map->dev_major = ev->map.dev_major;
  map->dev_minor = ev->map.dev_minor;
  map->pid = ev->pid;
  map->filename = ev->map.filename ? ev->map.filename : "";
  map->prot = ev->map.prot;
  map->exec_known = ev->map.exec_known;
  map->build_id_len = MIN (ev->map.build_id_len, ST_BUILD_ID_MAX);
  memcpy (map->build_id, ev->map.build_id, map->build_id_len);
}

/* Whether NAME starts with PREFIX (a literal).  */
#define STARTS_WITH(name, prefix) \
  (strncmp ((name), (prefix), sizeof (prefix) - 1) == 0)

gboolean
st_map_is_anonymous (const StMap *map)
{
  const char *name = map->filename;

  /* (Asked for every mapping whenever a process's modules are listed:
     one look at the first bytes decides most names.)  */
  switch (name[0])
    {
    case '\0':
      return TRUE;
    case '[':
      /* Bracketed names are the kernel's, and name no file; [vdso] is
         an ELF image the recorder may have kept.  */
      return strcmp (name, "[vdso]") != 0;
    case '/':
      switch (name[1])
        {
        case '/': return STARTS_WITH (name, "//anon");
        case 'a': return STARTS_WITH (name, "/anon_hugepage");
        case 'm': return STARTS_WITH (name, "/memfd:");
        case 'S': return STARTS_WITH (name, "/SYSV");
        case 'd': return STARTS_WITH (name, "/dev/zero");
        default: return FALSE;
        }
    default:
      return FALSE;
    }
}

gboolean
st_map_is_jitdump (const StMap *map)
{
  return st_map_base_is_jitdump (st_map_basename (map->filename));
}

const char *
st_map_basename (const char *filename)
{
  const char *base = strrchr (filename, '/');

  return base != NULL ? base + 1 : filename;
}

gboolean
st_map_base_is_jitdump (const char *base)
{
  if (!STARTS_WITH (base, "jit-"))
    return FALSE;
  const char *p = base + 4;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  return strcmp (p, ".dump") == 0;
}

StMapNameKind
st_map_name_kind (const StMap *map)
{
  const char *name = map->filename;

  return (name[0] == '/' || strcmp (name, "[vdso]") == 0)
         && !st_map_is_anonymous (map) && !st_map_is_jitdump (map)
         ? ST_MAP_NAME_MODULE : ST_MAP_NAME_OTHER;
}

gboolean
st_address_space_load_proc (StAddressSpace *as, int32_t pid)
{
  char path[64], line[4096];

  g_snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return FALSE;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long long start, end, pgoff, inode;
      char perms[8], dev[32];
      int name_at = 0;

      if (sscanf (line, "%llx-%llx %7s %llx %31s %llu %n", &start, &end,
                  perms, &pgoff, dev, &inode, &name_at) < 6 || name_at == 0)
        continue;
      char *name = g_strchomp (line + name_at);
      if (name[0] != '/')
        continue;
      StMap map = { 0 };
      map.start = start;
      map.end = end;
      map.pgoff = pgoff;
      map.inode = inode;
      unsigned int major, minor;
      if (sscanf (dev, "%x:%x", &major, &minor) == 2)
        {
          map.dev_major = major;
          map.dev_minor = minor;
        }
      map.pid = pid;
      map.filename = name;
      map.exec_known = TRUE;
      map.prot = (perms[0] == 'r' ? PROT_READ : 0)
                 | (perms[1] == 'w' ? PROT_WRITE : 0)
                 | (perms[2] == 'x' ? PROT_EXEC : 0);
      st_address_space_add (as, &map);
    }
  fclose (f);
  return TRUE;
}
