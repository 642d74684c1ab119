/* Byte budget: a queue of entries, most recently touched first; cooling
   takes them from the tail.  A cooled entry leaves the queue (it holds
   little) and comes back at its next touch.  */
#include "config.h"

#include "util/byte-budget.h"

void
st_byte_budget_init (StByteBudget *b, size_t max_bytes)
{
  g_queue_init (&b->lru);
  b->bytes = 0;
  b->max_bytes = max_bytes;
  b->coolings = 0;
}

void
st_byte_budget_clear (StByteBudget *b)
{
  GList *l;

  while ((l = g_queue_pop_head_link (&b->lru)) != NULL)
    {
      StByteBudgetEntry *e = l->data;
      e->registered = FALSE;
      e->budget = NULL;
    }
  b->bytes = 0;
}

void
st_byte_budget_entry_init (StByteBudgetEntry *e, StByteBudget *b,
                           StByteBudgetCool cool)
{
  e->link.data = e;
  e->link.prev = e->link.next = NULL;
  e->budget = b;
  e->cool = cool;
  e->bytes = 0;
  e->registered = FALSE;
}

static void
unregister (StByteBudgetEntry *e)
{
  StByteBudget *b = e->budget;

  g_queue_unlink (&b->lru, &e->link);
  b->bytes -= e->bytes;
  e->registered = FALSE;
}

void
st_byte_budget_entry_remove (StByteBudgetEntry *e)
{
  if (e->registered)
    unregister (e);
  e->budget = NULL;
}

void
st_byte_budget_touch_slow (StByteBudgetEntry *e)
{
  StByteBudget *b = e->budget;

  if (e->registered)
    g_queue_unlink (&b->lru, &e->link);
  else
    {
      e->registered = TRUE;
      b->bytes += e->bytes;
    }
  g_queue_push_head_link (&b->lru, &e->link);
}

void
st_byte_budget_enforce_slow (StByteBudget *b)
{
  size_t low = b->max_bytes / 4 * 3;

  while (b->bytes > low && b->lru.tail != NULL)
    {
      StByteBudgetEntry *e = b->lru.tail->data;
      unregister (e);
      e->cool (e);
      b->coolings++;
    }
}
