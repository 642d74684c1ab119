/* A byte budget shared by caches that can be emptied and filled again
   (the fast engine's rule tables, unwind/rule-cache.h): each cache is an
   entry that charges the bytes it holds; past the budget, the least
   recently used entries are cooled (their COOL callback empties them,
   charging back what it frees) until the total is under three quarters
   of the budget, so that eviction comes in batches, not at every miss.

   Main thread only, except that an entry not yet registered (no
   st_byte_budget_touch since its creation or its last cooling) may be
   charged on any one thread (a module prepared on a worker): its bytes
   count towards the total from its first touch.  Cooling happens only in
   st_byte_budget_enforce, which the owner calls where no cache's content
   is in use (between samples).  */
#ifndef ST_BYTE_BUDGET_H
#define ST_BYTE_BUDGET_H

#include <glib.h>
#include <stddef.h>

typedef struct StByteBudget StByteBudget;
typedef struct StByteBudgetEntry StByteBudgetEntry;

/* Empties ENTRY's cache; it calls st_byte_budget_charge with the bytes
   freed (negative) and for whatever it keeps allocated.  */
typedef void (*StByteBudgetCool) (StByteBudgetEntry *entry);

struct StByteBudgetEntry
{
  GList link;              /* in the budget's list, most recent first */
  StByteBudget *budget;    /* NULL: not bounded */
  StByteBudgetCool cool;
  size_t bytes;            /* charged */
  gboolean registered;     /* counted in the budget's total */
};

struct StByteBudget
{
  GQueue lru;              /* of StByteBudgetEntry, by LINK */
  size_t bytes;            /* of the registered entries */
  size_t max_bytes;        /* 0: no bound */
  guint64 coolings;
};

/* MAX_BYTES 0: no bound.  */
void st_byte_budget_init (StByteBudget *b, size_t max_bytes);
/* Forgets every entry (they stay usable, unbounded).  */
void st_byte_budget_clear (StByteBudget *b);

/* An entry of B (may be NULL: no bound), COOL empties it.  */
void st_byte_budget_entry_init (StByteBudgetEntry *e, StByteBudget *b,
                                StByteBudgetCool cool);
/* Takes E out of its budget (before it is freed).  */
void st_byte_budget_entry_remove (StByteBudgetEntry *e);

/* E now holds DELTA more bytes (negative: fewer).  */
static inline void
st_byte_budget_charge (StByteBudgetEntry *e, gssize delta)
{
  e->bytes += delta;
  if (e->registered)
    e->budget->bytes += delta;
}

/* E was just used: registers it, and makes it the most recent.  */
void st_byte_budget_touch_slow (StByteBudgetEntry *e);

static inline void
st_byte_budget_touch (StByteBudgetEntry *e)
{
  if (e->budget != NULL && e->budget->lru.head != &e->link)
    st_byte_budget_touch_slow (e);
}

/* Cools the least recently used entries while B is over its bound.  */
void st_byte_budget_enforce_slow (StByteBudget *b);

static inline void
st_byte_budget_enforce (StByteBudget *b)
{
  if (G_UNLIKELY (b->max_bytes != 0 && b->bytes > b->max_bytes))
    st_byte_budget_enforce_slow (b);
}

#endif /* ST_BYTE_BUDGET_H */
