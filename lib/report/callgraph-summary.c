/* Call graph summary: a tree of function names, root first.  */
#include "config.h"

#include <glib.h>

#include "util/glib-compat.h"
#include "report/callgraph-summary.h"
#include "report/symbolizer.h"

typedef struct Node Node;
struct Node
{
  const char *name;       /* interned */
  uint64_t total;         /* samples through this node */
  uint64_t self;          /* samples ending here */
  GHashTable *children;   /* name -> Node* */
};

struct StCallgraph
{
  Node root;
};

static void
node_free (gpointer data)
{
  Node *n = data;
  if (n->children)
    g_hash_table_destroy (n->children);
  g_free (n);
}

static Node *
child (Node *parent, const char *name)
{
  if (parent->children == NULL)
    parent->children = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                              NULL, node_free);
  Node *n = g_hash_table_lookup (parent->children, name);
  if (n == NULL)
    {
      n = g_new0 (Node, 1);
      n->name = name;
      g_hash_table_insert (parent->children, (gpointer) name, n);
    }
  return n;
}

StCallgraph *
st_callgraph_new (void)
{
  return g_new0 (StCallgraph, 1);
}

void
st_callgraph_free (StCallgraph *g)
{
  if (g == NULL)
    return;
  if (g->root.children)
    g_hash_table_destroy (g->root.children);
  g_free (g);
}

void
st_callgraph_add (StCallgraph *g, StSymbolizer *symbolizer, Dwfl *dwfl,
                  const char *comm, const uint64_t *ips, uint32_t n_ips)
{
  GString *name = g_string_sized_new (64);
  Node *n = &g->root;

  n->total++;
  n = child (n, g_intern_string (comm ? comm : "[unknown process]"));
  n->total++;
  for (uint32_t i = n_ips; i-- > 0;)
    {
      g_string_truncate (name, 0);
      st_symbolize (symbolizer, dwfl, ips[i], name);
      const char *interned = g_intern_string (name->str);
      /* Direct recursion is one node: depth would bury the leaves.  */
      if (interned == n->name)
        continue;
      n = child (n, interned);
      n->total++;
    }
  n->self++;
  g_string_free (name, TRUE);
}

static gint
by_total_desc (gconstpointer a, gconstpointer b)
{
  const Node *x = *(Node *const *) a, *y = *(Node *const *) b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return g_strcmp0 (x->name, y->name);
}

static void
walk_node (const Node *n, unsigned depth, StCallgraphVisit visit,
           void *data)
{
  if (n->children == NULL)
    return;
  GPtrArray *kids = st_hash_table_values (n->children);
  g_ptr_array_sort (kids, by_total_desc);
  for (guint i = 0; i < kids->len; i++)
    {
      const Node *k = kids->pdata[i];
      visit (k->name, depth, k->total, k->self, data);
      walk_node (k, depth + 1, visit, data);
    }
  g_ptr_array_unref (kids);
}

void
st_callgraph_walk (const StCallgraph *g, StCallgraphVisit visit, void *data)
{
  walk_node (&g->root, 0, visit, data);
}

uint64_t
st_callgraph_samples (const StCallgraph *g)
{
  return g->root.total;
}
