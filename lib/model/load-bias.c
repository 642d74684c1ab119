#include "config.h"

#include <sys/mman.h>

#include "model/load-bias.h"

/* A segment MAP may hold, and what follows if it does.  */
typedef struct
{
  uint64_t bias;
  uint64_t overlap;        /* its bytes in the mapping */
  gboolean exec;           /* PF_X */
} Candidate;

/* Keeps the candidates of OUT[0..N) for which KEEP is TRUE, unless none
   is: a rule that would leave nothing says nothing.  */
static guint
keep_some (Candidate *out, guint n, const gboolean *keep)
{
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    kept += keep[i];
  if (kept == 0 || kept == n)
    return n;
  kept = 0;
  for (guint i = 0; i < n; i++)
    if (keep[i])
      out[kept++] = out[i];
  return kept;
}

/* The page size the segments were mapped with: 4 KiB on x86, up to
   64 KiB elsewhere (the larger bound only widens what fits).  */
static uint64_t
page_size (const StModule *m)
{
  return m->machine == EM_X86_64 || m->machine == EM_386 || m->machine == 0
         ? 4096 : 65536;
}

/* Whether every byte of MAP lies in the file-backed pages of some
   segment of M loaded at BIAS (segments in address order, as the ELF
   specification has them; adjacent ones may merge into one mapping).  */
static gboolean
within_segments (const StModule *m, const StMap *map, uint64_t bias)
{
  uint64_t page = page_size (m), at = map->start;

  for (guint i = 0; i < m->n_loads && at < map->end; i++)
    {
      const StLoadSegment *s = &m->loads[i];
      uint64_t lo = bias + (s->vaddr & ~(page - 1));
      uint64_t hi = bias + ((s->vaddr + s->filesz + page - 1) & ~(page - 1));
      if (s->filesz == 0 || hi <= at)
        continue;
      if (lo > at)
        return FALSE;
      at = hi;
    }
  return at >= map->end;
}

/* The segments with file bytes in MAP, each with the bias it implies,
   into OUT; narrowed by MAP's protection and, for an ET_EXEC file, by
   bias 0.  OUT and KEEP have room for M->n_loads.  Returns how many.  */
static guint
candidates (const StModule *m, const StMap *map, Candidate *out,
            gboolean *keep)
{
  uint64_t lo = map->pgoff, hi = map->pgoff + (map->end - map->start);
  guint n = 0;

  for (guint i = 0; i < m->n_loads; i++)
    {
      const StLoadSegment *s = &m->loads[i];
      uint64_t s_lo = s->offset, s_hi = s->offset + s->filesz;

      if (s->filesz == 0 || s_hi <= lo || s_lo >= hi)
        continue;
      /* vaddr - offset is the same for every byte of the segment.  */
      out[n++] = (Candidate) { map->start - map->pgoff - (s->vaddr - s->offset),
                               MIN (hi, s_hi) - MAX (lo, s_lo),
                               (s->flags & PF_X) != 0 };
    }
  if (map->exec_known)
    {
      for (guint i = 0; i < n; i++)
        keep[i] = out[i].exec == ((map->prot & PROT_EXEC) != 0);
      n = keep_some (out, n, keep);
    }
  else
    {
      /* No protection to tell the loader's PROT_NONE reservation of the
         gaps between segments (which maps the file too) from a segment:
         a reading that puts the mapping outside the pages the segments
         occupy is not one.  */
      guint fit = 0;
      for (guint i = 0; i < n; i++)
        if (within_segments (m, map, out[i].bias))
          out[fit++] = out[i];
      n = fit;
    }
  if (m->fixed_address)
    {
      for (guint i = 0; i < n; i++)
        keep[i] = out[i].bias == 0;
      n = keep_some (out, n, keep);
    }
  return n;
}

static gboolean
same_file (const StMap *a, const StMap *b)
{
  return a->inode == b->inode
         && (a->filename == b->filename
             || g_strcmp0 (a->filename, b->filename) == 0);
}

/* For every bias some mapping of MAP's file in AS (MAP included) could
   imply, how many of them could.  A bounded tally: biases beyond the
   first MAX_VOTES go uncounted (a file with that many readings is not
   one a linker made).  */
#define MAX_VOTES 32

typedef struct
{
  uint64_t bias[MAX_VOTES];
  guint votes[MAX_VOTES];
  guint n;
} Votes;

static void
vote (Votes *v, const Candidate *c, guint n)
{
  for (guint j = 0; j < n; j++)
    {
      gboolean counted = FALSE;
      for (guint k = 0; k < j && !counted; k++)
        counted = c[k].bias == c[j].bias;     /* one vote per mapping */
      for (guint k = 0; k < v->n && !counted; k++)
        if (v->bias[k] == c[j].bias)
          {
            v->votes[k]++;
            counted = TRUE;
          }
      if (!counted && v->n < MAX_VOTES)
        {
          v->bias[v->n] = c[j].bias;
          v->votes[v->n++] = 1;
        }
    }
}

static guint
votes_for (const Votes *v, uint64_t bias)
{
  for (guint k = 0; k < v->n; k++)
    if (v->bias[k] == bias)
      return v->votes[k];
  return 0;
}

/* SCRATCH and KEEP have room for M->n_loads.  */
static void
tally (const StModule *m, const StMap *map, const StAddressSpace *as,
       const Candidate *own, guint n_own, Candidate *scratch, gboolean *keep,
       Votes *votes)
{
  /* Another mapping of the same load lies within one span of the
     module's addresses around MAP.  */
  uint64_t span = m->high_vaddr - m->low_vaddr;
  votes->n = 0;
  vote (votes, own, n_own);
  for (guint i = st_address_space_first_ending_after (as, map->start > span
                                                          ? map->start - span
                                                          : 0);
       i < st_address_space_size (as); i++)
    {
      const StMap *other = st_address_space_get (as, i);

      if (other->start > map->start && other->start - map->start > span)
        break;
      if (other->start != map->start && same_file (other, map))
        vote (votes, scratch, candidates (m, other, scratch, keep));
    }
}

/* Whether C is a better choice than B, VOTES aside.  */
static gboolean
likelier (const Candidate *c, const Candidate *b)
{
  return c->exec > b->exec || (c->exec == b->exec && c->overlap > b->overlap);
}

gboolean
st_load_bias (const StModule *m, const StMap *map, const StAddressSpace *as,
              uint64_t *bias)
{
  /* Segments are few; a hostile file's thousands go to the heap.  */
  Candidate small[2 * 16];
  gboolean small_keep[16];
  Candidate *cands = m->n_loads <= 16 ? small : g_new (Candidate, 2 * m->n_loads);
  Candidate *scratch = cands + MAX (m->n_loads, 1);
  gboolean *keep = m->n_loads <= 16 ? small_keep : g_new (gboolean, m->n_loads);
  guint n = candidates (m, map, cands, keep);
  guint best = 0;
  gboolean found = n > 0;

  gboolean ambiguous = FALSE;
  for (guint i = 1; i < n; i++)
    ambiguous |= cands[i].bias != cands[0].bias;

  if (map->exec_known || as == NULL || !ambiguous)
    {
      for (guint i = 1; i < n; i++)
        if (likelier (&cands[i], &cands[best]))
          best = i;
    }
  else
    {
      /* No protection, segments sharing the page: the bias most of the
         file's mappings agree with.  A mapping whose every reading
         contradicts a better-supported load over the same addresses is
         no segment's (a reservation of a gap that happens to fit).  */
      Votes votes;
      tally (m, map, as, cands, n, scratch, keep, &votes);
      guint best_votes = 0;
      for (guint i = 0; i < n; i++)
        {
          guint v = votes_for (&votes, cands[i].bias);
          if (v > best_votes || (v == best_votes && likelier (&cands[i], &cands[best])))
            {
              best = i;
              best_votes = v;
            }
        }
      uint64_t span = m->high_vaddr - m->low_vaddr;
      for (guint k = 0; k < votes.n && found; k++)
        {
          uint64_t b = votes.bias[k];
          uint64_t d = b > cands[best].bias ? b - cands[best].bias
                                            : cands[best].bias - b;
          found = !(votes.votes[k] > best_votes && d < span);
        }
    }
  if (found)
    *bias = cands[best].bias;
  if (cands != small)
    {
      g_free (cands);
      g_free (keep);
    }
  return found;
}
