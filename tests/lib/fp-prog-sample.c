#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "fixture-call-path.h"
#include "format/capture-types.h"
#include "fp-prog-sample.h"

#define BASE 0x555555554000ull
#define SP 0x7ffd00100000ull

/* x86_64 perf registers, compacted: AX BX CX DX SI DI BP SP IP R8..R15.  */
#define REG_BP 6
#define REG_SP 7
#define REG_IP 8

static void
map_file (const char *path, StProcessTable *processes, int32_t pid)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  GElf_Ehdr eh;
  size_t n;

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
  /* _start is the entry point.  */
  FixtureSymbols *symbols = fixture_symbols_load (path);
  g_assert_cmphex (fixture_symbols_address (symbols, "_start"), ==,
                   eh.e_entry);
  fixture_symbols_free (symbols);
  elf_end (elf);
  close (fd);
}

void
fp_prog_sample_build (FpProgSample *s, const char *path,
                      StProcessTable *processes, int32_t pid)
{
  FixtureSymbols *symbols = fixture_symbols_load (path);
  uint64_t leaf = BASE + fixture_symbols_address (symbols, "st_fp_leaf");
  uint64_t b = BASE + fixture_symbols_address (symbols, "st_fp_b");
  uint64_t main_ = BASE + fixture_symbols_address (symbols, "main");
  uint64_t start = BASE + fixture_symbols_address (symbols, "_start");

  fixture_symbols_free (symbols);
  g_assert_cmphex (leaf, !=, BASE);
  g_assert_cmphex (b, !=, BASE);
  g_assert_cmphex (main_, !=, BASE);
  g_assert_cmphex (start, !=, BASE);
  memset (s, 0, sizeof *s);
  map_file (path, processes, pid);

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
  s->regs[REG_SP] = SP;
  s->regs[REG_BP] = SP + 0x10;

  const uint64_t ips[] = { leaf + 4, b + 4, main_ + 8, start + 0xf };
  const uint64_t sps[] = { SP, SP + 0x20, SP + 0x50, SP + 0x90 };
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);

  s->ev.kind = ST_EVENT_STACK_USER;
  s->ev.pid = s->ev.tid = pid;
  s->ev.stack.abi = ST_REGS_ABI_64;
  s->ev.stack.regs_mask = ST_CAPTURE_REGS_X86_64_MASK;
  s->ev.stack.regs = s->regs;
  s->ev.stack.n_regs = 17;
  s->ev.stack.stack = (const uint8_t *) s->stack;
  s->ev.stack.stack_size = sizeof s->stack;
}
