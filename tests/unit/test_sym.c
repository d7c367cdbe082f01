/* Unit tests of src/sym: ksyms, elfsyms and symcache.
 *
 * elfsyms is checked against ground truth binutils wrote at build time
 * (tests/fixtures.mk): NAME.nm ("name vaddr size"), NAME.load ("offset
 * vaddr filesz" per PT_LOAD) and NAME.plt ("name vaddr").  The test turns
 * each vaddr into the file offset the profiler would look up. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sym/elfsyms.h"
#include "sym/ksyms.h"
#include "sym/symcache.h"
#include "test.h"

#define FIXED_BUILD_ID "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67"

struct truth_sym {
	char name[128];
	uint64_t vaddr, size;
};

struct truth {
	struct truth_sym syms[64];
	int nsyms;
	struct truth_sym plt[16];
	int nplt;
	uint64_t load[8][3];	/* offset, vaddr, filesz */
	int nload;
};

/* Reads NAME.nm, NAME.load and NAME.plt; 0 when any is missing. */
static int truth_read(struct truth *t, const char *name)
{
	char path[512], line[512];
	FILE *f;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/%s.nm", test_fixtures(), name);
	if (!(f = fopen(path, "r")))
		return 0;
	while (t->nsyms < 64 && fgets(line, sizeof(line), f)) {
		struct truth_sym *s = &t->syms[t->nsyms];

		if (sscanf(line, "%127s %" SCNx64 " %" SCNx64, s->name, &s->vaddr, &s->size) == 3)
			t->nsyms++;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.plt", test_fixtures(), name);
	if (!(f = fopen(path, "r")))
		return 0;
	while (t->nplt < 16 && fgets(line, sizeof(line), f)) {
		struct truth_sym *s = &t->plt[t->nplt];

		if (sscanf(line, "%127s %" SCNx64, s->name, &s->vaddr) == 2)
			t->nplt++;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.load", test_fixtures(), name);
	if (!(f = fopen(path, "r")))
		return 0;
	while (t->nload < 8 && fgets(line, sizeof(line), f)) {
		uint64_t *l = t->load[t->nload];

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &l[0], &l[1], &l[2]) == 3)
			t->nload++;
	}
	fclose(f);
	return t->nsyms > 0 && t->nload > 0;
}

static uint64_t truth_off(const struct truth *t, uint64_t vaddr)
{
	for (int i = 0; i < t->nload; i++)
		if (vaddr >= t->load[i][1] && vaddr - t->load[i][1] < t->load[i][2])
			return vaddr - t->load[i][1] + t->load[i][0];
	return UINT64_MAX;
}

static const struct truth_sym *truth_find(const struct truth *t, const char *name)
{
	for (int i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i].name, name))
			return &t->syms[i];
	return NULL;
}

/* Every sized nm symbol is found at its first and last byte. */
static void check_truth(const struct elfsyms *es, const struct truth *t)
{
	for (int i = 0; i < t->nsyms; i++) {
		const struct truth_sym *s = &t->syms[i];
		uint64_t off = truth_off(t, s->vaddr), so = 99;

		if (!s->size)
			continue;
		CHECK_STR(elfsyms_lookup(es, off, &so), s->name);
		CHECK_INT(so, 0);
		CHECK_STR(elfsyms_lookup(es, off + s->size - 1, &so), s->name);
		CHECK_INT(so, s->size - 1);
	}
}

static void check_plt(const struct elfsyms *es, const struct truth *t)
{
	for (int i = 0; i < t->nplt; i++) {
		uint64_t so = 99;

		CHECK_STR(elfsyms_lookup(es, truth_off(t, t->plt[i].vaddr) + 4, &so),
			  t->plt[i].name);
		CHECK_INT(so, 4);
	}
}

/* ---- elfsyms ------------------------------------------------------------ */

TEST(elfsyms_pie)
{
	const struct truth_sym *beta;
	struct elfsyms *es;
	struct truth t;
	const unsigned char *bid;
	uint64_t so = 0, va;
	size_t len = 0;

	CHECK(truth_read(&t, "pie"));
	es = elfsyms_open(test_fixture("symbols-pie"));
	CHECK(es);
	if (!es)
		return;
	CHECK_STR(elfsyms_name(es), test_fixture("symbols-pie"));
	CHECK(elfsyms_count(es) >= 5);
	CHECK(!elfsyms_from_debug_file(es));
	check_truth(es, &t);
	CHECK(truth_find(&t, "ss_static_helper"));
	beta = truth_find(&t, "ss_beta");
	CHECK(beta);
	if (beta) {
		CHECK_STR(elfsyms_lookup(es, truth_off(&t, beta->vaddr) + 5, &so), "ss_beta");
		CHECK_INT(so, 5);
		CHECK_INT(elfsyms_off_to_vaddr(es, truth_off(&t, beta->vaddr), &va), 0);
		CHECK_INT(va, beta->vaddr);
	}
	bid = elfsyms_build_id(es, &len);
	CHECK_INT(len, 20);
	CHECK(bid && !memcmp(bid, FIXED_BUILD_ID, 20));
	/* past every PT_LOAD */
	CHECK(!elfsyms_lookup(es, 0x10000000, &so));
	CHECK_INT(elfsyms_off_to_vaddr(es, 0x10000000, &va), -ERANGE);
	elfsyms_free(es);
}

/* A binary with more function symbols than a table holds is read up to
 * the bound (said once), not to the end of its memory. */
TEST(elfsyms_table_bounded)
{
	struct elfsyms *es = elfsyms_open(test_fixture("libmany.so"));

	CHECK(es);
	if (!es)
		return;
	CHECK(elfsyms_count(es) > ELFSYMS_MAX_SYMS / 2);
	CHECK(elfsyms_count(es) <= ELFSYMS_MAX_SYMS);
	elfsyms_free(es);
}

TEST(elfsyms_plt)
{
	struct elfsyms *es;
	struct truth t;

	CHECK(truth_read(&t, "pie"));
	CHECK(t.nplt > 0);
	es = elfsyms_open(test_fixture("symbols-pie"));
	CHECK(es);
	check_plt(es, &t);
	elfsyms_free(es);
}

TEST(elfsyms_nopie)
{
	struct elfsyms *es;
	struct truth t;

	CHECK(truth_read(&t, "nopie"));
	CHECK(t.load[0][1] != 0);	/* really linked at a fixed address */
	es = elfsyms_open(test_fixture("symbols-nopie"));
	CHECK(es);
	check_truth(es, &t);
	check_plt(es, &t);
	CHECK(truth_find(&t, "ss_static_helper"));
	elfsyms_free(es);
}

TEST(elfsyms_shared_lib)
{
	struct elfsyms *es;
	struct truth t;

	CHECK(truth_read(&t, "lib"));
	CHECK(!truth_find(&t, "main"));
	es = elfsyms_open(test_fixture("libsymbols.so"));
	CHECK(es);
	check_truth(es, &t);
	check_plt(es, &t);	/* ss_alpha@plt: interposable call */
	elfsyms_free(es);
}

TEST(elfsyms_stripped_debug_by_build_id)
{
	const struct truth_sym *alpha;
	struct elfsyms *es;
	struct truth t;
	size_t len = 0;
	const unsigned char *bid;

	CHECK(truth_read(&t, "pie"));
	alpha = truth_find(&t, "ss_alpha");
	CHECK(alpha);
	if (!alpha)
		return;

	/* without the debug root the stripped copy has no ss_ symbols */
	elfsyms_set_debug_root("/nonexistent");
	es = elfsyms_open(test_fixture("symbols-stripped"));
	CHECK(es);
	CHECK(!elfsyms_lookup(es, truth_off(&t, alpha->vaddr), NULL));
	CHECK(!elfsyms_from_debug_file(es));
	elfsyms_free(es);

	elfsyms_set_debug_root(test_fixture("debug"));
	es = elfsyms_open(test_fixture("symbols-stripped"));
	elfsyms_set_debug_root(NULL);
	CHECK(es);
	CHECK(elfsyms_from_debug_file(es));
	check_truth(es, &t);
	check_plt(es, &t);
	bid = elfsyms_build_id(es, &len);
	CHECK_INT(len, 20);
	CHECK(bid && !memcmp(bid, FIXED_BUILD_ID, 20));
	elfsyms_free(es);
}

TEST(elfsyms_stripped_debuglink)
{
	struct elfsyms *es;
	struct truth t;
	size_t len = 99;

	CHECK(truth_read(&t, "linked"));
	es = elfsyms_open(test_fixture("symbols-linked"));
	CHECK(es);
	CHECK(elfsyms_from_debug_file(es));
	check_truth(es, &t);
	CHECK(!elfsyms_build_id(es, &len));
	CHECK_INT(len, 0);
	elfsyms_free(es);
}

static int copy_file(const char *from, const char *to)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	return system(cmd);
}

/* A .gnu_debuglink file whose CRC does not match is not used. */
TEST(elfsyms_debuglink_crc_mismatch)
{
	char dir[] = "/tmp/symtest.XXXXXX", bin[512], dbg[512];
	const struct truth_sym *alpha;
	struct elfsyms *es;
	struct truth t;

	CHECK(truth_read(&t, "linked"));
	alpha = truth_find(&t, "ss_alpha");
	if (!alpha || !mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(bin, sizeof(bin), "%s/symbols-linked", dir);
	snprintf(dbg, sizeof(dbg), "%s/symbols-linked.debug", dir);
	CHECK_INT(copy_file(test_fixture("symbols-linked"), bin), 0);
	CHECK_INT(copy_file(test_fixture("debug/.build-id/01/23456789abcdef0123456789abcdef01234567.debug"),
			    dbg), 0);
	es = elfsyms_open(bin);
	CHECK(es);
	CHECK(!elfsyms_from_debug_file(es));
	CHECK(!elfsyms_lookup(es, truth_off(&t, alpha->vaddr), NULL));
	elfsyms_free(es);
	/* the right file, same place: found */
	CHECK_INT(copy_file(test_fixture(".debug/symbols-linked.debug"), dbg), 0);
	es = elfsyms_open(bin);
	CHECK(es);
	CHECK_STR(elfsyms_lookup(es, truth_off(&t, alpha->vaddr), NULL), "ss_alpha");
	elfsyms_free(es);
	unlink(bin);
	unlink(dbg);
	rmdir(dir);
}

TEST(elfsyms_stripped_no_debug)
{
	struct elfsyms *es;
	struct truth t;
	size_t len = 99;

	CHECK(truth_read(&t, "linked"));	/* symbols-nosyms is it, stripped */
	elfsyms_set_debug_root(test_fixture("debug"));
	es = elfsyms_open(test_fixture("symbols-nosyms"));
	elfsyms_set_debug_root(NULL);
	CHECK(es);
	/* the entry point is named all the same: elfsyms_entry_* */
	for (int i = 0; i < t.nsyms; i++)
		if (strcmp(t.syms[i].name, "_start"))
			CHECK(!elfsyms_lookup(es, truth_off(&t, t.syms[i].vaddr), NULL));
	CHECK(!elfsyms_build_id(es, &len));
	CHECK_INT(len, 0);
	check_plt(es, &t);	/* .dynsym and .rela.plt survive strip */
	elfsyms_free(es);
}

/* Every byte of the truth symbol sym is looked up as want at its distance
 * from sym's start (want NULL: as no symbol), and the byte after sym as
 * after. */
static void check_bytes(const struct elfsyms *es, const struct truth *t, const char *sym,
			const char *want, const char *after)
{
	const struct truth_sym *s = truth_find(t, sym);
	uint64_t off, so;
	const char *got;

	if (!s || !s->size) {
		test_fail(__FILE__, __LINE__, "no sized %s in the ground truth", sym);
		return;
	}
	off = truth_off(t, s->vaddr);
	for (uint64_t i = 0; i <= s->size; i++) {
		const char *w = i < s->size ? want : after;

		so = 99;
		got = elfsyms_lookup(es, off + i, &so);
		if (w ? !got || strcmp(got, w) || so != i : got != NULL) {
			test_fail(__FILE__, __LINE__, "%s+%#" PRIx64 ": %s+%#" PRIx64 ", want %s",
				  sym, i, got ? got : "(none)", got ? so : 0, w ? w : "(none)");
			return;
		}
	}
}

/* The symbol called name, in *si; 0 when there is none. */
static int find_symbol(const struct elfsyms *es, const char *name, struct elfsym_info *si)
{
	for (size_t i = 0; i < elfsyms_count(es); i++)
		if (!elfsyms_symbol(es, i, si) && !strcmp(si->name, name))
			return 1;
	return 0;
}

TEST(elfsyms_entry_named_start_by_its_cfi)
{
	struct elfsyms *es;
	struct truth t;

	/* crt1's _start, stripped: named again, as far as its FDE goes */
	CHECK(truth_read(&t, "linked"));
	es = elfsyms_open(test_fixture("symbols-nosyms"));
	CHECK(es);
	check_bytes(es, &t, "_start", "_start", NULL);
	check_bytes(es, &t, "ss_static_helper", NULL, NULL);
	elfsyms_free(es);
}

TEST(elfsyms_entry_named_start_without_cfi)
{
	struct elfsym_info si;
	struct elfsyms *es;
	struct truth t;

	/* an entry without CFI (ld.so's _start): named up to the next FDE,
	 * here ss_static_helper's; crt1's _start is not the entry */
	CHECK(truth_read(&t, "entry"));
	es = elfsyms_open(test_fixture("symbols-entry"));
	CHECK(es);
	check_bytes(es, &t, "ss_entry", "_start", NULL);
	check_bytes(es, &t, "_start", NULL, NULL);
	/* a name, not a function to probe (funcsel) */
	CHECK(find_symbol(es, "_start", &si) && !si.func);
	elfsyms_free(es);
}

TEST(elfsyms_entry_symbol_kept)
{
	struct elfsym_info si;
	struct elfsyms *es;
	struct truth t;

	/* a real _start symbol stays as it is; a library's e_entry is 0 */
	CHECK(truth_read(&t, "pie"));
	es = elfsyms_open(test_fixture("symbols-pie"));
	CHECK(es);
	check_bytes(es, &t, "_start", "_start", NULL);
	elfsyms_free(es);
	es = elfsyms_open(test_fixture("libsymbols.so"));
	CHECK(es);
	CHECK(!find_symbol(es, "_start", &si));
	elfsyms_free(es);
}

TEST(elfsyms_malformed)
{
	static const char *const bad[] = {
		"symbols-trunc", "symbols-garbage", "symbols-text", "pie.nm", "debug",
	};
	char fifo[] = "/tmp/symtest-fifo.XXXXXX";
	int fd;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		CHECK(!elfsyms_open(test_fixture(bad[i])));
		if (errno != EINVAL)
			test_fail(__FILE__, __LINE__, "%s: errno %d, want EINVAL", bad[i], errno);
	}
	errno = 0;
	CHECK(!elfsyms_open(test_fixture("does-not-exist")));
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK(!elfsyms_open("/dev/zero"));
	CHECK_INT(errno, EINVAL);

	/* a FIFO must not block the open nor be read */
	fd = mkstemp(fifo);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	unlink(fifo);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	errno = 0;
	CHECK(!elfsyms_open(fifo));
	CHECK_INT(errno, EINVAL);
	fd = open(fifo, O_RDWR | O_NONBLOCK);
	CHECK(fd >= 0);
	errno = 0;
	CHECK(!elfsyms_open_fd(fd, fifo));
	CHECK_INT(errno, EINVAL);
	close(fd);
	unlink(fifo);

	CHECK(!elfsyms_lookup(NULL, 0, NULL));
	CHECK_INT(elfsyms_count(NULL), 0);
	elfsyms_free(NULL);
}

TEST(elfsyms_fd_not_owned)
{
	struct elfsyms *es;
	int fd = open(test_fixture("symbols-pie"), O_RDONLY);

	CHECK(fd >= 0);
	es = elfsyms_open_fd(fd, "given-name");
	CHECK(es);
	CHECK_STR(elfsyms_name(es), "given-name");
	CHECK(fcntl(fd, F_GETFD) >= 0);	/* not closed */
	elfsyms_free(es);
	close(fd);
}

/* The way the profiler uses it: a libc function's address in this process
 * turned into a file offset with /proc/self/maps. */
TEST(elfsyms_running_libc)
{
	uint64_t start, end, pgoff, addr = (uint64_t)(uintptr_t)&getpid, so = 99;
	char line[1024], path[512], perms[8];
	struct elfsyms *es = NULL;
	const char *name;
	FILE *f = fopen("/proc/self/maps", "r");

	CHECK(f);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %511s",
			   &start, &end, perms, &pgoff, path) != 5)
			continue;
		if (addr >= start && addr < end) {
			es = elfsyms_open(path);
			break;
		}
	}
	fclose(f);
	CHECK(es);
	if (!es)
		return;
	name = elfsyms_lookup(es, addr - start + pgoff, &so);
	CHECK(name && strstr(name, "getpid"));
	CHECK_INT(so, 0);
	elfsyms_free(es);
}

/* ---- ksyms -------------------------------------------------------------- */

static const char kallsyms_text[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t do_one_helper\n"
	"ffffffff81002000 T schedule\n"
	"ffffffff81002100 W weak_func\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81004000 b some_bss\n"
	"ffffffff81004100 d init_data\n"
	"this is not a kallsyms line\n"
	"ffffffff81004200 R ro_data\n"
	"ffffffff81005000 T last_core\n"
	"ffffffffc0001000 t ext4_find_entry\t[ext4]\n"
	"ffffffffc0000800 T ext4_init\t[ext4]\n"
	"ffffffffc0002000 d ext4_data\t[ext4]\n"
	"ffffffffc0003000 t bpf_prog_6deef7357e7b4530_on_sample\t[bpf]"; /* no \n */

static const char kallsyms_zero[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 T schedule\n"
	"0000000000000000 t ext4_find_entry\t[ext4]\n";

static int write_tmp(char *path, const char *text)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

TEST(ksyms_fixture)
{
	char path[] = "/tmp/symtest-kallsyms.XXXXXX";
	const struct ksym *k;
	struct ksyms *ks;

	CHECK_INT(write_tmp(path, kallsyms_text), 0);
	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks);
	if (!ks)
		return;
	CHECK_INT(ksyms_count(ks), 8);
	k = ksyms_find(ks, 0xffffffff81002000);
	CHECK(k && k->addr == 0xffffffff81002000);
	CHECK_STR(k ? k->name : NULL, "schedule");
	CHECK(k && !k->module);
	CHECK_STR(ksyms_find(ks, 0xffffffff81002010)->name, "schedule");
	CHECK(!ksyms_find(ks, 0xffffffff80ffffff));
	CHECK(!ksyms_find(ks, 0));
	/* aliases: the global name without leading underscores */
	CHECK_STR(ksyms_find(ks, 0xffffffff81000000)->name, "startup_64");
	CHECK_STR(ksyms_find(ks, 0xffffffff81000fff)->name, "startup_64");
	CHECK_STR(ksyms_find(ks, 0xffffffff81001000)->name, "do_one_helper");
	/* data symbols are not kept: still inside the weak function */
	CHECK_STR(ksyms_find(ks, 0xffffffff81004100)->name, "weak_func");
	CHECK_STR(ksyms_find(ks, 0xffffffff81005001)->name, "last_core");
	k = ksyms_find(ks, 0xffffffffc0001010);
	CHECK_STR(k ? k->name : NULL, "ext4_find_entry");
	CHECK_STR(k ? k->module : NULL, "ext4");
	/* module lines out of order get sorted */
	k = ksyms_find(ks, 0xffffffffc0000900);
	CHECK_STR(k ? k->name : NULL, "ext4_init");
	CHECK_STR(k ? k->module : NULL, "ext4");
	k = ksyms_find(ks, 0xffffffffc0002000);
	CHECK_STR(k ? k->name : NULL, "ext4_find_entry");
	k = ksyms_find(ks, 0xffffffffc0003004);
	CHECK_STR(k ? k->name : NULL, "bpf_prog_6deef7357e7b4530_on_sample");
	CHECK_STR(k ? k->module : NULL, "bpf");
	ksyms_free(ks);
}

TEST(ksyms_errors)
{
	char zero[] = "/tmp/symtest-kallsyms.XXXXXX", empty[] = "/tmp/symtest-kallsyms.XXXXXX";

	CHECK_INT(write_tmp(zero, kallsyms_zero), 0);
	errno = 0;
	CHECK(!ksyms_load(zero));
	CHECK_INT(errno, EPERM);
	unlink(zero);
	CHECK_INT(write_tmp(empty, ""), 0);
	errno = 0;
	CHECK(!ksyms_load(empty));
	CHECK_INT(errno, EINVAL);
	unlink(empty);
	errno = 0;
	CHECK(!ksyms_load("/nonexistent/kallsyms"));
	CHECK_INT(errno, ENOENT);
	CHECK(!ksyms_find(NULL, 1));
	ksyms_free(NULL);
}

TEST(ksym_parse_text_forms)
{
	char name[64], mod[16];
	struct ksym k;

	CHECK_INT(ksym_parse_text("schedule+0x10/0x80", 0xffffffff81002010, &k, name,
				  sizeof(name), mod, sizeof(mod)), 0);
	CHECK_STR(k.name, "schedule");
	CHECK(k.addr == 0xffffffff81002000);
	CHECK(!k.module);
	CHECK_INT(ksym_parse_text("ext4_find_entry+0x0/0x200 [ext4]", 0xffffffffc0001000, &k,
				  name, sizeof(name), mod, sizeof(mod)), 0);
	CHECK_STR(k.name, "ext4_find_entry");
	CHECK_STR(k.module, "ext4");
	CHECK(k.addr == 0xffffffffc0001000);
	/* compiler clones keep their suffix */
	CHECK_INT(ksym_parse_text("ptrace_stop.part.0+0x1ab/0x2c0", 0x11ab, &k, name,
				  sizeof(name), mod, sizeof(mod)), 0);
	CHECK_STR(k.name, "ptrace_stop.part.0");
	CHECK(k.addr == 0x1000);
	/* no symbol: the bare address */
	CHECK_INT(ksym_parse_text("0xffffffffc0003004", 0xffffffffc0003004, &k, name,
				  sizeof(name), mod, sizeof(mod)), -ENOENT);
	CHECK(!k.name);
	CHECK_INT(ksym_parse_text("", 1, &k, name, sizeof(name), mod, sizeof(mod)), -ENOENT);
	/* cut short before the offset: all of it names the address itself */
	CHECK_INT(ksym_parse_text("a_very_long_name_cut_sh", 0x2000, &k, name, sizeof(name),
				  mod, sizeof(mod)), 0);
	CHECK_STR(k.name, "a_very_long_name_cut_sh");
	CHECK(k.addr == 0x2000);
	/* an offset past the address is not believed */
	CHECK_INT(ksym_parse_text("f+0x3000/0x4000", 0x2000, &k, name, sizeof(name), mod,
				  sizeof(mod)), 0);
	CHECK_STR(k.name, "f+0x3000/0x4000");
	CHECK(k.addr == 0x2000);
	/* bounded: the name cut to the buffer */
	CHECK_INT(ksym_parse_text("name_longer_than_the_buffer+0x1/0x2", 0x11, &k, name, 8, mod,
				  sizeof(mod)), 0);
	CHECK_STR(k.name, "name_lo");
}

/* Text symbols of /proc/kallsyms alone at their address (no alias to
 * choose between), outside BPF programs (those come and go): every
 * stride-th, into addrs[] and names[]. */
static size_t unique_kernel_symbols(unsigned long *addrs, char (*names)[128], size_t max,
				    size_t stride)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], prev_name[128] = "", t, name[256];
	unsigned long a, prev = 0, prev_prev = 1;
	size_t n = 0, seen = 0;
	bool prev_text = false;

	if (!f)
		return 0;
	/* prev is kept when the lines around it have other addresses */
	while (n < max && fgets(line, sizeof(line), f)) {
		bool text;

		if (sscanf(line, "%lx %c %255s", &a, &t, name) != 3)
			continue;
		text = (t == 't' || t == 'T') && !strstr(line, "[bpf]") && strlen(name) < 128;
		if (prev_text && prev != prev_prev && prev != a && prev && seen++ % stride == 0) {
			addrs[n] = prev;
			snprintf(names[n], sizeof(names[n]), "%s", prev_name);
			n++;
		}
		prev_prev = prev;
		prev = a;
		prev_text = text;
		snprintf(prev_name, sizeof(prev_name), "%.127s", name);
	}
	fclose(f);
	return n;
}

TEST(ksyms_kernel_names_as_kallsyms)
{
	static unsigned long addrs[600];
	static char names[600][128];
	uint64_t ips[600];
	struct ksyms *ks;
	size_t n;
	int wrong = 0;

	if (geteuid() != 0)
		SKIP("naming kernel addresses needs root");
	n = unique_kernel_symbols(addrs, names, 600, 50);
	if (n < 300)
		SKIP("/proc/kallsyms gives %zu usable text symbols", n);
	ks = ksyms_kernel();
	CHECK(ks);
	if (!ks)
		return;
	for (size_t i = 0; i < n; i++)
		ips[i] = addrs[i] + (i & 1);	/* the start, or inside */
	/* in batches of 256: as few runs of the program as that takes */
	ksyms_want(ks, ips, n);
	CHECK_INT(ksyms_asked(ks), (n + 255) / 256);
	for (size_t i = 0; i < n; i++) {
		const struct ksym *k = ksyms_find(ks, ips[i]);

		if (!k || k->addr != addrs[i] || strcmp(k->name, names[i])) {
			if (wrong++ < 5)
				CHECK_STR(k ? k->name : "(none)", names[i]);
		}
	}
	CHECK_INT(wrong, 0);
	/* all named already: no more runs */
	CHECK_INT(ksyms_asked(ks), (n + 255) / 256);
	CHECK_INT(ksyms_count(ks), n);
	/* one at a time works too; an address no symbol holds has none */
	CHECK(!ksyms_find(ks, 0x10));
	CHECK_INT(ksyms_asked(ks), (n + 255) / 256 + 1);
	ksyms_free(ks);
}

TEST(ksyms_tracer_frames)
{
	static const char *const yes[] = {
		"bpf_prog_6deef7357e7b4530_on_sample", "bpf_trace_run2", "bpf_trace_run12",
		"__traceiter_sched_switch", "__bpf_trace_sched_switch",
		"perf_trace_sched_switch", "bpf_overflow_handler", "__perf_event_overflow",
		"perf_event_overflow", "perf_swevent_event", "__perf_swevent_hrtimer",
		"perf_prepare_sample", "perf_callchain_kernel", "perf_callchain_user",
		"get_perf_callchain", "bpf_get_stack", "bpf_get_stackid",
		"bpf_get_stackid_pe", "__bpf_get_stack", "__bpf_get_stackid",
		"___bpf_prog_run", "perf_event_overflow.isra.0",
	};
	static const char *const no[] = {
		"schedule", "bpf_map_lookup_elem", "__schedule", "perf_event_open",
		"perf_prepare_sample_x", "perf_event_overflowed", "bpf_trace_printk",
		"__bpf_prog_run", "bpf_prog_load", "bpf_prog_get_info_by_fd", "bpf_prog_6deef735_short", "bpf_overflow", "do_syscall_64", "", "trace_bpf_prog_x",
		"__traceiter", "get_perf_callchain_x",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!ksym_is_tracer(yes[i]))
			test_fail(__FILE__, __LINE__, "%s: not a tracer frame", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (ksym_is_tracer(no[i]))
			test_fail(__FILE__, __LINE__, "%s: tracer frame", no[i]);
	CHECK(!ksym_is_tracer(NULL));
}

/* Not a timing test: prints how long the real file takes. */
TEST(ksyms_proc_kallsyms)
{
	unsigned long sched = 0;
	struct timespec t0, t1;
	char line[512], name[256], type;
	unsigned long addr;
	struct ksyms *ks;
	const struct ksym *k;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ks = ksyms_load(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ks && (errno == EPERM || errno == ENOENT || errno == EACCES))
		SKIP("/proc/kallsyms: %s", strerror(errno));
	CHECK(ks);
	if (!ks)
		return;
	fprintf(stderr, "  ksyms_load(/proc/kallsyms): %lu symbols in %.1f ms\n",
		ksyms_count(ks),
		(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	f = fopen("/proc/kallsyms", "r");
	CHECK(f);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "schedule") && (type == 'T' || type == 't')) {
			sched = addr;
			break;
		}
	if (f)
		fclose(f);
	CHECK(sched);
	k = ksyms_find(ks, sched);
	CHECK_STR(k ? k->name : NULL, "schedule");
	k = ksyms_find(ks, sched + 1);
	CHECK_STR(k ? k->name : NULL, "schedule");
	ksyms_free(ks);
}

/* ---- symcache ----------------------------------------------------------- */

static struct binary_id pie_build_id(void)
{
	struct binary_id id = { .build_id_len = 20 };

	memcpy(id.build_id, FIXED_BUILD_ID, 20);
	return id;
}

static struct binary_id inode_id(const char *path)
{
	struct binary_id id = { 0 };
	struct stat st;

	if (!stat(path, &st)) {
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return id;
}

TEST(symcache_same_binary_twice)
{
	struct symcache *sc = symcache_new();
	struct binary_id id = inode_id(test_fixture("symbols-pie"));
	struct binary_id bid = pie_build_id();
	const struct elfsyms *a, *b;

	CHECK(sc);
	a = symcache_get(sc, test_fixture("symbols-pie"), NULL, &id);
	b = symcache_get(sc, test_fixture("symbols-pie"), NULL, &id);
	CHECK(a);
	CHECK(a == b);
	/* a cached answer does not open the file again */
	CHECK(symcache_get(sc, NULL, NULL, &id) == a);
	/* asked by build id, the file is found by its path, and is the
	 * same inode */
	CHECK(symcache_get(sc, test_fixture("symbols-pie"), NULL, &bid) == a);
	CHECK_INT(symcache_count(sc), 1);
	symcache_free(sc);
}

/* A build id checks a file's content; it never finds one: without a path
 * nothing is known by it. */
TEST(symcache_build_id_is_no_key)
{
	struct symcache *sc = symcache_new();
	struct binary_id ino = inode_id(test_fixture("symbols-pie")), bid = pie_build_id(), both;
	const struct elfsyms *a;

	CHECK(ino.ino);
	a = symcache_get(sc, test_fixture("symbols-pie"), NULL, &ino);
	CHECK(a);
	errno = 0;
	CHECK(!symcache_get(sc, NULL, NULL, &bid));
	CHECK_INT(errno, ENOENT);
	both = ino;
	memcpy(both.build_id, bid.build_id, bid.build_id_len);
	both.build_id_len = bid.build_id_len;
	CHECK(symcache_get(sc, NULL, NULL, &both) == a);
	both.build_id[19] ^= 0xff;
	errno = 0;
	CHECK(!symcache_get(sc, NULL, NULL, &both));
	CHECK_INT(errno, ESTALE);
	CHECK_INT(symcache_count(sc), 1);
	symcache_free(sc);
}

TEST(symcache_mismatch)
{
	struct symcache *sc = symcache_new();
	struct binary_id id = pie_build_id();

	id.build_id[19] ^= 0xff;
	errno = 0;
	CHECK(!symcache_get(sc, test_fixture("symbols-pie"), NULL, &id));
	CHECK_INT(errno, ESTALE);

	/* a binary without build id asked for by one */
	id = pie_build_id();
	id.build_id[0] ^= 0xff;
	errno = 0;
	CHECK(!symcache_get(sc, test_fixture("symbols-nosyms"), NULL, &id));
	CHECK_INT(errno, ESTALE);

	/* wrong inode: cached under the inode asked for */
	id = inode_id(test_fixture("symbols-pie"));
	id.ino++;
	errno = 0;
	CHECK(!symcache_get(sc, test_fixture("symbols-pie"), NULL, &id));
	CHECK_INT(errno, ESTALE);
	errno = 0;
	CHECK(!symcache_get(sc, NULL, NULL, &id));
	CHECK_INT(errno, ESTALE);
	CHECK_INT(symcache_count(sc), 0);
	symcache_free(sc);
}

TEST(symcache_alt_path)
{
	struct symcache *sc = symcache_new();
	struct binary_id id = pie_build_id(), other = inode_id(test_fixture("symbols-nopie"));
	const struct elfsyms *es;

	es = symcache_get(sc, "/nonexistent/symbols-pie", test_fixture("symbols-pie"), &id);
	CHECK(es);
	CHECK_STR(elfsyms_name(es), test_fixture("symbols-pie"));
	/* path exists but is another binary: alt_path is the right one */
	es = symcache_get(sc, test_fixture("symbols-pie"), test_fixture("symbols-nopie"), &other);
	CHECK(es);
	CHECK_STR(elfsyms_name(es), test_fixture("symbols-nopie"));
	/* nothing there: the open error, cached */
	other.ino += 12345;
	errno = 0;
	CHECK(!symcache_get(sc, "/nonexistent/a", "/nonexistent/b", &other));
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK(!symcache_get(sc, test_fixture("symbols-nopie"), NULL, &other));
	CHECK_INT(errno, ENOENT);
	/* not an ELF file */
	other = inode_id(test_fixture("symbols-text"));
	errno = 0;
	CHECK(!symcache_get(sc, test_fixture("symbols-text"), NULL, &other));
	CHECK_INT(errno, EINVAL);
	CHECK_INT(symcache_count(sc), 2);
	symcache_free(sc);
}

TEST(symcache_unknown_id)
{
	struct symcache *sc = symcache_new();
	const struct elfsyms *a, *b;
	struct binary_id none = { 0 };

	a = symcache_get(sc, test_fixture("libsymbols.so"), NULL, NULL);
	b = symcache_get(sc, test_fixture("libsymbols.so"), NULL, &none);
	CHECK(a);
	CHECK(a == b);
	CHECK_INT(symcache_count(sc), 1);
	symcache_free(sc);
	symcache_free(NULL);
	CHECK_INT(symcache_count(NULL), 0);
}

/* A copy of a loaded binary (another inode, same build id, as a forged
 * copy has) is another file: it never shares the first one's table. */
TEST(symcache_copy_is_another_file)
{
	char copy[] = "/tmp/symtest-copy.XXXXXX";
	struct symcache *sc = symcache_new();
	struct binary_id bid = pie_build_id(), ino;
	const struct elfsyms *a, *b;
	int fd = mkstemp(copy);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_INT(copy_file(test_fixture("symbols-pie"), copy), 0);
	ino = inode_id(copy);
	a = symcache_get(sc, test_fixture("symbols-pie"), NULL, &bid);
	b = symcache_get(sc, copy, NULL, &ino);
	CHECK(a && b);
	CHECK(a != b);
	CHECK(symcache_get(sc, NULL, NULL, &ino) == b);
	CHECK_INT(symcache_count(sc), 2);
	symcache_free(sc);
	unlink(copy);
}

/* Many keys: the tables grow and keep every entry. */
TEST(symcache_many_keys)
{
	struct symcache *sc = symcache_new();
	struct binary_id pie = inode_id(test_fixture("symbols-pie")), id;
	const struct elfsyms *a;

	a = symcache_get(sc, test_fixture("symbols-pie"), NULL, &pie);
	CHECK(a);
	for (int i = 1; i <= 1000; i++) {
		id = (struct binary_id){ .dev = 0xfe01, .ino = (uint64_t)i };
		CHECK(!symcache_get(sc, NULL, NULL, &id));
	}
	CHECK(symcache_get(sc, NULL, NULL, &pie) == a);
	for (int i = 1; i <= 1000; i += 97) {
		id = (struct binary_id){ .dev = 0xfe01, .ino = (uint64_t)i };
		errno = 0;
		CHECK(!symcache_get(sc, test_fixture("symbols-pie"), NULL, &id));
		CHECK_INT(errno, ENOENT);	/* the cached failure, not ESTALE */
	}
	CHECK_INT(symcache_count(sc), 1);
	symcache_free(sc);
}

static int aux_freed;

static void count_aux_free(void *p)
{
	aux_freed++;
	free(p);
}

/* Eviction: a binary some kept mapping names, or asked for since the
 * last sweep, stays; an idle one goes after SYMCACHE_IDLE_SWEEPS sweeps,
 * or at once when the unmarked ones are over budget (least recently used
 * first), its aux freed with it; a later ask loads it again. */
TEST(symcache_sweep_evicts_idle_and_over_budget)
{
	struct symcache *sc = symcache_new();
	struct binary_id pie = inode_id(test_fixture("symbols-pie"));
	struct binary_id nopie = inode_id(test_fixture("symbols-nopie"));
	struct binary_id lib = inode_id(test_fixture("libsymbols.so"));
	struct symcache_stats st;
	const struct elfsyms *a, *b, *c;
	bool found;

	CHECK(sc);
	aux_freed = 0;
	a = symcache_get(sc, test_fixture("symbols-pie"), NULL, &pie);
	b = symcache_get(sc, test_fixture("symbols-nopie"), NULL, &nopie);
	c = symcache_get(sc, test_fixture("libsymbols.so"), NULL, &lib);
	CHECK(a && b && c);
	CHECK_INT(symcache_set_aux(sc, b, malloc(100), count_aux_free, 100), 0);
	CHECK(symcache_aux(sc, b, &found) != NULL && found);
	symcache_aux(sc, a, &found);
	CHECK(!found);
	symcache_stats(sc, &st);
	CHECK_INT(st.entries, 3);
	CHECK(st.bytes > elfsyms_bytes(a) + elfsyms_bytes(b) + 100);
	/* all three asked for in this epoch: none goes, even over budget */
	CHECK_INT(symcache_sweep(sc, 0), 0);
	/* a is mapped by a kept process in every epoch; c is asked for */
	for (int i = 1; i < SYMCACHE_IDLE_SWEEPS; i++) {
		symcache_mark(sc, pie.dev, pie.ino);
		CHECK(symcache_get(sc, NULL, NULL, &lib) == c);
		CHECK_INT(symcache_sweep(sc, SYMCACHE_BUDGET), 0);
	}
	/* b idle for SYMCACHE_IDLE_SWEEPS sweeps: evicted, its aux freed */
	symcache_mark(sc, pie.dev, pie.ino);
	CHECK_INT(symcache_sweep(sc, SYMCACHE_BUDGET), 1);
	CHECK_INT(aux_freed, 1);
	symcache_stats(sc, &st);
	CHECK_INT(st.entries, 2);
	CHECK_INT(st.evicted, 1);
	CHECK_INT(symcache_count(sc), 2);
	/* over budget: c (unmarked, not asked for since) goes at once; a stays */
	symcache_mark(sc, pie.dev, pie.ino);
	CHECK_INT(symcache_sweep(sc, 0), 1);
	symcache_stats(sc, &st);
	CHECK_INT(st.entries, 1);
	CHECK_INT(st.evicted, 2);
	CHECK(st.peak_bytes >= st.bytes);
	CHECK(symcache_get(sc, NULL, NULL, &pie) == a);
	/* asked for again: loaded again from its path */
	b = symcache_get(sc, test_fixture("symbols-nopie"), NULL, &nopie);
	CHECK(b != NULL);
	CHECK_INT(symcache_count(sc), 2);
	symcache_free(sc);
}

/* A failure is cached (not retried for every frame) and evicted like a
 * binary when idle. */
TEST(symcache_sweep_evicts_failures)
{
	struct symcache *sc = symcache_new();
	struct binary_id gone = { .dev = 1, .ino = 987654321 };
	struct symcache_stats st;

	CHECK(!symcache_get(sc, "/nonexistent/x", NULL, &gone));
	symcache_stats(sc, &st);
	CHECK_INT(st.entries, 1);
	CHECK_INT(symcache_count(sc), 0);
	/* the sweep of the epoch it was asked in, then idle ones */
	for (int i = 0; i < SYMCACHE_IDLE_SWEEPS; i++)
		CHECK_INT(symcache_sweep(sc, SYMCACHE_BUDGET), 0);
	CHECK_INT(symcache_sweep(sc, SYMCACHE_BUDGET), 1);
	symcache_stats(sc, &st);
	CHECK_INT(st.entries, 0);
	CHECK_INT(st.evicted, 1);
	symcache_free(sc);
}
