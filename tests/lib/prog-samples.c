#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fixture-call-path.h"
#include "format/capture-types.h"
#include "prog-samples.h"

#define BASE 0x555555554000ull
#define SP 0x7ffd00100000ull

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 8

/* Maps PATH's loadable segments at BASE; the address of its section
   SECTION (0: none asked or found).  */
static uint64_t
map_file (const char *path, StProcessTable *processes, int32_t pid,
          const char *section)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  GElf_Ehdr eh;
  size_t n, shstrndx;
  uint64_t section_addr = 0;

  g_assert_cmpint (fd, >=, 0);
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  g_assert_nonnull (gelf_getehdr (elf, &eh));
  g_assert_cmpint (eh.e_type, ==, ET_DYN);
  g_assert_cmpint (elf_getphdrnum (elf, &n), ==, 0);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph;
      StEvent ev;
      if (gelf_getphdr (elf, (int) i, &ph) == NULL || ph.p_type != PT_LOAD)
        continue;
      memset (&ev, 0, sizeof ev);
      ev.kind = ST_EVENT_MAP;
      ev.pid = ev.tid = pid;
      ev.map.start = (BASE + ph.p_vaddr) & ~0xfffull;
      ev.map.end = (BASE + ph.p_vaddr + ph.p_filesz + 0xfff) & ~0xfffull;
      ev.map.pgoff = ph.p_offset & ~0xfffull;
      ev.map.exec_known = true;
      ev.map.prot = (ph.p_flags & PF_X) ? PROT_READ | PROT_EXEC : PROT_READ;
      ev.map.filename = path;
      st_process_table_apply (processes, &ev);
    }
  g_assert_cmpint (elf_getshdrstrndx (elf, &shstrndx), ==, 0);
  for (Elf_Scn *scn = NULL; section != NULL
       && (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      const char *name;
      if (gelf_getshdr (scn, &sh) != NULL
          && (name = elf_strptr (elf, shstrndx, sh.sh_name)) != NULL
          && strcmp (name, section) == 0)
        section_addr = BASE + sh.sh_addr;
    }
  /* _start is the entry point.  */
  FixtureSymbols *symbols = fixture_symbols_load (path);
  g_assert_cmphex (fixture_symbols_address (symbols, "_start"), ==,
                   eh.e_entry);
  fixture_symbols_free (symbols);
  elf_end (elf);
  close (fd);
  return section_addr;
}

static uint64_t
function (const char *path, const char *name)
{
  FixtureSymbols *symbols = fixture_symbols_load (path);
  uint64_t addr = fixture_symbols_address (symbols, name);

  fixture_symbols_free (symbols);
  g_assert_cmphex (addr, !=, 0);
  return BASE + addr;
}

static void
sample_init (ProgSample *s, int32_t pid)
{
  memset (s, 0, sizeof *s);
  s->ev.kind = ST_EVENT_STACK_USER;
  s->ev.pid = s->ev.tid = pid;
  s->ev.stack.abi = ST_REGS_ABI_64;
  s->ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  s->ev.stack.regs = s->regs;
  s->ev.stack.n_regs = 17;
  s->ev.stack.stack = (const uint8_t *) s->stack;
  s->ev.stack.stack_size = sizeof s->stack;
  s->regs[REG_SP] = SP;
}

void
prog_sample_fp (ProgSample *s, const char *path, StProcessTable *processes,
                int32_t pid)
{
  uint64_t leaf = function (path, "st_fp_leaf");
  uint64_t b = function (path, "st_fp_b");
  uint64_t main_ = function (path, "main");
  uint64_t start = function (path, "_start");

  sample_init (s, pid);
  map_file (path, processes, pid, NULL);
  /* BP0 = SP + 0x10: [BP0] = BP1 = SP + 0x40, [BP0 + 8] = into st_fp_b;
     [BP1] = BP2 = SP + 0x80, [BP1 + 8] = into main;
     [BP2] = 0, [BP2 + 8] = into _start.  */
  s->stack[0x10 / 8] = SP + 0x40;
  s->stack[0x18 / 8] = b + 5;
  s->stack[0x40 / 8] = SP + 0x80;
  s->stack[0x48 / 8] = main_ + 9;
  s->stack[0x80 / 8] = 0;
  s->stack[0x88 / 8] = start + 0x10;
  s->regs[REG_IP] = leaf + 4;
  s->regs[REG_BP] = SP + 0x10;

  const uint64_t ips[] = { leaf + 4, b + 4, main_ + 8, start + 0xf };
  const uint64_t sps[] = { SP, SP + 0x20, SP + 0x50, SP + 0x90 };
  s->n = G_N_ELEMENTS (ips);
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);
}

void
prog_sample_plt (ProgSample *s, const char *path, StProcessTable *processes,
                 int32_t pid, gboolean after_push)
{
  uint64_t main_ = function (path, "main");

  sample_init (s, pid);
  uint64_t plt = map_file (path, processes, pid, ".plt");
  g_assert_cmphex (plt, !=, 0);
  /* PLT0 (16 bytes), then 16-byte entries: jmp *GOT (6 bytes), push
     the relocation index (5), jmp PLT0 (5).  */
  uint64_t entry = plt + 16;
  if (after_push)
    {
      s->regs[REG_IP] = entry + 11;
      s->stack[0] = 0;                /* the relocation index */
      s->stack[1] = main_ + 9;
    }
  else
    {
      s->regs[REG_IP] = entry;
      s->stack[0] = main_ + 9;
    }
  const uint64_t ips[] = { s->regs[REG_IP], main_ + 8 };
  const uint64_t sps[] = { SP, SP + (after_push ? 16 : 8) };
  s->n = G_N_ELEMENTS (ips);
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);
}
