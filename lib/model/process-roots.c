/* The held roots of live processes (process-roots.h): a small list of
   distinct root directories in least-recently-seen order, and a table
   of processes pointing into it, also in least-recently-seen order.  */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "model/process-roots.h"

typedef struct
{
  int fd;
  dev_t dev;
  ino_t ino;
  guint number;         /* in the order roots were held, from 0 */
  GList link;           /* in roots, data: this */
} Root;

typedef struct
{
  int32_t pid;
  Root *root;
  gboolean inherited;   /* from its parent: never opened as its own */
  GList link;           /* in pid_order, data: this */
} Pid;

struct StProcessRoots
{
  pthread_mutex_t lock;
  guint max_roots;
  guint max_pids;
  GQueue roots;         /* Root, most recently seen first */
  GHashTable *pids;     /* pid -> Pid */
  GQueue pid_order;     /* Pid, most recently seen first */
  guint roots_held;     /* ever: the next root's number */
};

StProcessRoots *
st_process_roots_new (guint max_roots, guint max_pids)
{
  StProcessRoots *t = g_new0 (StProcessRoots, 1);

  pthread_mutex_init (&t->lock, NULL);
  t->max_roots = MAX (max_roots, 1);
  t->max_pids = MAX (max_pids, 1);
  t->pids = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                   g_free);
  return t;
}

void
st_process_roots_free (StProcessRoots *t)
{
  if (t == NULL)
    return;
  g_hash_table_destroy (t->pids);
  while (t->roots.head != NULL)
    {
      Root *r = t->roots.head->data;
      g_queue_unlink (&t->roots, &r->link);
      close (r->fd);
      g_free (r);
    }
  pthread_mutex_destroy (&t->lock);
  g_free (t);
}

static void
forget_pid (StProcessRoots *t, Pid *p)
{
  g_queue_unlink (&t->pid_order, &p->link);
  g_hash_table_remove (t->pids, GINT_TO_POINTER (p->pid));
}

/* Closes the least recently seen root and forgets its processes.  */
static void
evict_root (StProcessRoots *t)
{
  Root *r = t->roots.tail->data;
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, t->pids);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      Pid *p = value;
      if (p->root == r)
        {
          g_queue_unlink (&t->pid_order, &p->link);
          g_hash_table_iter_remove (&it);
        }
    }
  g_queue_unlink (&t->roots, &r->link);
  close (r->fd);
  g_free (r);
}

static void
touch_root (StProcessRoots *t, Root *r)
{
  if (t->roots.head != &r->link)
    {
      g_queue_unlink (&t->roots, &r->link);
      g_queue_push_head_link (&t->roots, &r->link);
    }
}

/* PID now has root R (seen now).  */
static void
assign_locked (StProcessRoots *t, int32_t pid, Root *r, gboolean inherited)
{
  Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (pid));

  if (p != NULL)
    g_queue_unlink (&t->pid_order, &p->link);
  else
    {
      if (g_hash_table_size (t->pids) >= t->max_pids)
        forget_pid (t, t->pid_order.tail->data);
      p = g_new0 (Pid, 1);
      p->pid = pid;
      p->link.data = p;
      g_hash_table_insert (t->pids, GINT_TO_POINTER (pid), p);
    }
  p->root = r;
  p->inherited = inherited;
  g_queue_push_head_link (&t->pid_order, &p->link);
  touch_root (t, r);
}

void
st_process_roots_set (StProcessRoots *t, int32_t pid, int dir_fd)
{
  struct stat st;

  if (dir_fd < 0)
    return;
  if (fstat (dir_fd, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      close (dir_fd);
      return;
    }
  pthread_mutex_lock (&t->lock);
  Root *r = NULL;
  for (GList *l = t->roots.head; l != NULL; l = l->next)
    {
      Root *x = l->data;
      if (x->dev == st.st_dev && x->ino == st.st_ino)
        {
          r = x;
          break;
        }
    }
  if (r != NULL)
    close (dir_fd);
  else
    {
      if (t->roots.length >= t->max_roots)
        evict_root (t);
      r = g_new0 (Root, 1);
      r->fd = dir_fd;
      r->dev = st.st_dev;
      r->ino = st.st_ino;
      r->number = t->roots_held++;
      r->link.data = r;
      g_queue_push_head_link (&t->roots, &r->link);
    }
  assign_locked (t, pid, r, FALSE);
  pthread_mutex_unlock (&t->lock);
}

void
st_process_roots_see (StProcessRoots *t, int32_t pid, gboolean exec)
{
  char path[32];

  if (pid <= 0)
    return;
  if (!exec)
    {
      pthread_mutex_lock (&t->lock);
      Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (pid));
      if (p != NULL)
        {
          /* Known: only its place in the order changes.  */
          g_queue_unlink (&t->pid_order, &p->link);
          g_queue_push_head_link (&t->pid_order, &p->link);
          touch_root (t, p->root);
        }
      pthread_mutex_unlock (&t->lock);
      if (p != NULL)
        return;
    }
  g_snprintf (path, sizeof path, "/proc/%d/root", (int) pid);
  /* O_PATH: the root itself, whatever its permissions.  Fails once the
     process is gone (ENOENT) or not ours to see (EACCES).  */
  st_process_roots_set (t, pid, open (path, O_PATH | O_DIRECTORY
                                            | O_CLOEXEC));
}

void
st_process_roots_fork (StProcessRoots *t, int32_t parent, int32_t child)
{
  if (parent <= 0 || child <= 0 || parent == child)
    return;
  pthread_mutex_lock (&t->lock);
  Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (parent));
  Pid *old = g_hash_table_lookup (t->pids, GINT_TO_POINTER (child));
  if (p != NULL)
    assign_locked (t, child, p->root, TRUE);
  else if (old != NULL)
    forget_pid (t, old);        /* a pid reused: not that process */
  pthread_mutex_unlock (&t->lock);
}

gboolean
st_process_roots_seen_alive (StProcessRoots *t, int32_t pid)
{
  pthread_mutex_lock (&t->lock);
  Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (pid));
  gboolean seen = p != NULL && !p->inherited;
  pthread_mutex_unlock (&t->lock);
  return seen;
}

/* PATH inside directory DIR_FD as if it were /: openat2's
   RESOLVE_IN_ROOT (Linux 5.6), else openat on the relative path (then an
   absolute symbolic link on the way leads out of it).  */
static int
open_in_root (int dir_fd, const char *path)
{
  struct open_how how = {
    .flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
  };
  int fd = (int) syscall (SYS_openat2, dir_fd, path, &how, sizeof how);

  if (fd >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EPERM))
    return fd;
  while (*path == '/')
    path++;
  return openat (dir_fd, path[0] != '\0' ? path : ".", how.flags);
}

int
st_process_roots_open (StProcessRoots *t, int32_t pid, const char *path,
                       gboolean *inherited)
{
  int fd = -1;

  if (path[0] != '/')
    return -1;
  pthread_mutex_lock (&t->lock);
  Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (pid));
  if (p != NULL)
    {
      fd = open_in_root (p->root->fd, path);
      *inherited = p->inherited;
    }
  pthread_mutex_unlock (&t->lock);
  return fd;
}

void
st_process_roots_foreach_other (StProcessRoots *t, int32_t pid,
                                const char *path, StRootFileFunc func,
                                void *user)
{
  if (path[0] != '/')
    return;
  pthread_mutex_lock (&t->lock);
  Pid *p = g_hash_table_lookup (t->pids, GINT_TO_POINTER (pid));
  for (GList *l = t->roots.head; l != NULL; l = l->next)
    {
      Root *r = l->data;
      if (p != NULL && p->root == r)
        continue;
      int fd = open_in_root (r->fd, path);
      if (fd >= 0 && func (fd, r->number, user))
        break;
    }
  pthread_mutex_unlock (&t->lock);
}

guint
st_process_roots_n_roots (StProcessRoots *t)
{
  pthread_mutex_lock (&t->lock);
  guint n = t->roots.length;
  pthread_mutex_unlock (&t->lock);
  return n;
}

guint
st_process_roots_n_pids (StProcessRoots *t)
{
  pthread_mutex_lock (&t->lock);
  guint n = g_hash_table_size (t->pids);
  pthread_mutex_unlock (&t->lock);
  return n;
}
