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

/* The return address of the first call in the code of function CALLER
   (an ELF address of PATH) to function CALLEE (`call rel32`), or, with
   CALLEE 0, of its first `call rel32` or `call *disp32(%rip)`: real
   return addresses, which follow a call as the engines check.  */
static uint64_t
return_address (const char *path, uint64_t caller, uint64_t callee)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  uint64_t ra = 0;

  g_assert_cmpint (fd, >=, 0);
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  for (Elf_Scn *scn = NULL; ra == 0 && (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      Elf_Data *d;
      if (gelf_getshdr (scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS
          || !(sh.sh_flags & SHF_EXECINSTR) || caller < sh.sh_addr
          || caller - sh.sh_addr >= sh.sh_size
          || (d = elf_getdata (scn, NULL)) == NULL)
        continue;
      const uint8_t *code = d->d_buf;
      /* A call within 512 bytes of the function's start.  */
      for (uint64_t off = caller - sh.sh_addr;
           ra == 0 && off + 6 <= d->d_size && off < caller - sh.sh_addr + 512;
           off++)
        {
          int32_t rel;
          memcpy (&rel, code + off + 1, 4);
          uint64_t next = sh.sh_addr + off + 5;
          if (code[off] == 0xe8 && (callee == 0 || next + rel == callee))
            ra = next;
          else if (callee == 0 && code[off] == 0xff && code[off + 1] == 0x15)
            ra = next + 1;
        }
    }
  elf_end (elf);
  close (fd);
  g_assert_cmphex (ra, !=, 0);
  return ra;
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

/* The ELF address of the `pop %rbp; ret` that ends function FUNC of
   PATH (an ELF address).  */
static uint64_t
fp_leaf_exit (const char *path, uint64_t func)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  uint64_t at = 0;

  g_assert_cmpint (fd, >=, 0);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  for (Elf_Scn *scn = NULL; at == 0 && (scn = elf_nextscn (elf, scn)) != NULL;)
    {
      GElf_Shdr sh;
      Elf_Data *d;
      if (gelf_getshdr (scn, &sh) == NULL || !(sh.sh_flags & SHF_EXECINSTR)
          || func < sh.sh_addr || func - sh.sh_addr >= sh.sh_size
          || (d = elf_getdata (scn, NULL)) == NULL)
        continue;
      const uint8_t *code = d->d_buf;
      for (uint64_t off = func - sh.sh_addr; at == 0 && off + 2 <= d->d_size;
           off++)
        if (code[off] == 0x5d && code[off + 1] == 0xc3)
          at = sh.sh_addr + off;
    }
  elf_end (elf);
  close (fd);
  g_assert_cmphex (at, !=, 0);
  return at;
}

/* fp-prog's callers of the leaf: the return addresses into st_fp_b (its
   call of st_fp_leaf), main (its call of st_fp_a) and _start (its call
   of __libc_start_main).  */
typedef struct
{
  uint64_t leaf, into_b, into_main, into_start;
} FpCallers;

static FpCallers
fp_callers (const char *path)
{
  FpCallers c;
  c.leaf = function (path, "st_fp_leaf");
  c.into_b = BASE + return_address (path, function (path, "st_fp_b") - BASE,
                                    c.leaf - BASE);
  c.into_main = BASE + return_address (path, function (path, "main") - BASE,
                                       function (path, "st_fp_a") - BASE);
  c.into_start = BASE + return_address (path,
                                        function (path, "_start") - BASE, 0);
  return c;
}

void
prog_sample_fp (ProgSample *s, const char *path, StProcessTable *processes,
                int32_t pid)
{
  FpCallers c = fp_callers (path);

  sample_init (s, pid);
  map_file (path, processes, pid, NULL);
  /* BP0 = SP + 0x10: [BP0] = BP1 = SP + 0x40, [BP0 + 8] = into st_fp_b;
     [BP1] = BP2 = SP + 0x80, [BP1 + 8] = into main;
     [BP2] = 0, [BP2 + 8] = into _start.  */
  s->stack[0x10 / 8] = SP + 0x40;
  s->stack[0x18 / 8] = c.into_b;
  s->stack[0x40 / 8] = SP + 0x80;
  s->stack[0x48 / 8] = c.into_main;
  s->stack[0x80 / 8] = 0;
  s->stack[0x88 / 8] = c.into_start;
  s->regs[REG_IP] = c.leaf + 4;
  s->regs[REG_BP] = SP + 0x10;

  const uint64_t ips[] = { c.leaf + 4, c.into_b - 1, c.into_main - 1,
                           c.into_start - 1 };
  const uint64_t sps[] = { SP, SP + 0x20, SP + 0x50, SP + 0x90 };
  s->n = G_N_ELEMENTS (ips);
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);
}

void
prog_sample_fp_leaf (ProgSample *s, const char *path,
                     StProcessTable *processes, int32_t pid, FpLeafPoint at)
{
  FpCallers c = fp_callers (path);
  /* st_fp_leaf is push %rbp (1 byte), mov %rsp,%rbp (3), ...,
     pop %rbp, ret: checked against its bytes by the caller.  */
  static const struct { uint64_t pc_off; int pushed; gboolean own_bp; } pts[]
    = { [FP_LEAF_ENTRY] = { 0, 0, FALSE },
        [FP_LEAF_AFTER_PUSH] = { 1, 1, FALSE },
        [FP_LEAF_AT_POP] = { 0, 1, TRUE },
        [FP_LEAF_AT_RET] = { 0, 0, FALSE } };
  uint64_t pc = c.leaf + pts[at].pc_off;

  if (at == FP_LEAF_AT_POP || at == FP_LEAF_AT_RET)
    pc = BASE + fp_leaf_exit (path, c.leaf - BASE) + (at == FP_LEAF_AT_RET);
  sample_init (s, pid);
  map_file (path, processes, pid, NULL);
  /* The leaf's return address at SP + 8 * PUSHED (above its pushed
     %rbp); st_fp_b's frame pointer BP_B just above (it pushed %rbp,
     set it, then called): [BP_B] = main's BP_M, [BP_B + 8] = into
     main; [BP_M] = 0, [BP_M + 8] = into _start.  */
  uint64_t ra_at = SP + 8 * pts[at].pushed, bp_b = ra_at + 8;
  uint64_t bp_m = SP + 0x100;
  s->stack[(ra_at - SP) / 8] = c.into_b;
  s->stack[(bp_b - SP) / 8] = bp_m;
  s->stack[(bp_b + 8 - SP) / 8] = c.into_main;
  s->stack[(bp_m - SP) / 8] = 0;
  s->stack[(bp_m + 8 - SP) / 8] = c.into_start;
  if (pts[at].pushed)
    s->stack[0] = bp_b;
  s->regs[REG_IP] = pc;
  s->regs[REG_BP] = pts[at].own_bp ? SP : bp_b;

  const uint64_t ips[] = { pc, c.into_b - 1, c.into_main - 1,
                           c.into_start - 1 };
  const uint64_t sps[] = { SP, bp_b, bp_b + 16, bp_m + 16 };
  s->n = G_N_ELEMENTS (ips);
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);
}

void
prog_sample_plt (ProgSample *s, const char *path, StProcessTable *processes,
                 int32_t pid, gboolean after_push)
{
  uint64_t main_ = function (path, "main");
  uint64_t into_main = BASE + return_address (path, main_ - BASE, 0);

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
      s->stack[1] = into_main;
    }
  else
    {
      s->regs[REG_IP] = entry;
      s->stack[0] = into_main;
    }
  const uint64_t ips[] = { s->regs[REG_IP], into_main - 1 };
  const uint64_t sps[] = { SP, SP + (after_push ? 16 : 8) };
  s->n = G_N_ELEMENTS (ips);
  memcpy (s->ips, ips, sizeof ips);
  memcpy (s->sps, sps, sizeof sps);
}
