#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "trace/attach.h"
#include "trace/features.h"

/* r0 = 0; exit: enough for the verifier, does nothing where attached */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int cached[FEATURE_NR];
static bool known[FEATURE_NR];

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static int err;

	if (!btf && !err) {
		btf = btf__load_vmlinux_btf();
		if (!btf)
			err = -errno;
	}
	errno = -err;
	return btf;
}

/* A tracing program of attach type at against BTF type name (kind), loaded
 * and attached, then released: 0 or -errno. */
static int try_tracing(enum bpf_attach_type at, const char *name, int kind)
{
	struct btf *btf = vmlinux_btf();
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = at);
	int id, prog, link, err = 0;

	if (!btf)
		return -errno ? -errno : -ENOENT;
	id = btf__find_by_name_kind(btf, name, kind);
	if (id < 0)
		return -ENOENT;
	po.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ss_probe", "GPL", ret0, ARRAY_SIZE(ret0), &po);
	if (prog < 0)
		return -errno;
	link = bpf_link_create(prog, 0, at, NULL);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(prog);
	return err;
}

static int try_uprobe_prog(__u32 flags, enum bpf_attach_type at)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po, .prog_flags = flags, .expected_attach_type = at);
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ss_probe", "GPL", ret0, ARRAY_SIZE(ret0),
				 &po);

	if (prog < 0)
		return -errno;
	close(prog);
	return 0;
}

/* Whether STACKSCOPE_FEATURES_OFF (names as feature_name(), separated by
 * commas) turns f off: the tests run the fallbacks of a kernel without it. */
static bool feature_turned_off(enum feature f)
{
	const char *off = getenv("STACKSCOPE_FEATURES_OFF"), *name = feature_name(f);
	size_t n = strlen(name);

	while (off && *off) {
		const char *end = strchrnul(off, ',');

		if ((size_t)(end - off) == n && !memcmp(off, name, n))
			return true;
		off = *end ? end + 1 : end;
	}
	return false;
}

int feature_probe(enum feature f)
{
	int r;

	if (f >= FEATURE_NR)
		return -EINVAL;
	if (known[f])
		return cached[f];
	if (feature_turned_off(f)) {
		debug("feature %s: turned off (STACKSCOPE_FEATURES_OFF)", feature_name(f));
		cached[f] = -EOPNOTSUPP;
		known[f] = true;
		return cached[f];
	}
	switch (f) {
	case FEATURE_RINGBUF:
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
		r = r > 0 ? 0 : r == 0 ? -EOPNOTSUPP : r;
		break;
	case FEATURE_TP_BTF:
		r = try_tracing(BPF_TRACE_RAW_TP, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
		break;
	case FEATURE_FENTRY:
		/* a function every kernel has and calls rarely */
		r = try_tracing(BPF_TRACE_FENTRY, "do_sys_openat2", BTF_KIND_FUNC);
		break;
	case FEATURE_SLEEPABLE_UPROBE:
		r = try_uprobe_prog(BPF_F_SLEEPABLE, 0);
		break;
	case FEATURE_UPROBE_MULTI:
		/* the kernel checks the attach type at load: graph's
		 * programs are plain and sleepable, so both are tried */
		r = try_uprobe_prog(0, ATTACH_UPROBE_MULTI);
		if (!r)
			r = try_uprobe_prog(BPF_F_SLEEPABLE, ATTACH_UPROBE_MULTI);
		break;
	case FEATURE_BPF_LOOP:
		/* the verifier knows the helper (its arguments are not given) */
		r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL);
		r = r > 0 ? 0 : r == 0 ? -EOPNOTSUPP : r;
		break;
	case FEATURE_RAW_TP_COOKIE:
		/* the helper came to raw tracepoints with the cookie itself */
		r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					    BPF_FUNC_get_attach_cookie, NULL);
		r = r > 0 ? 0 : r == 0 ? -EOPNOTSUPP : r;
		break;
	default:
		r = -EINVAL;
	}
	debug("feature %s: %s", feature_name(f), r ? strerror(-r) : "yes");
	cached[f] = r;
	known[f] = true;
	return r;
}

const char *feature_name(enum feature f)
{
	static const char *const names[FEATURE_NR] = {
		[FEATURE_RINGBUF] = "ringbuf",
		[FEATURE_TP_BTF] = "tp_btf",
		[FEATURE_FENTRY] = "fentry",
		[FEATURE_SLEEPABLE_UPROBE] = "sleepable uprobe",
		[FEATURE_UPROBE_MULTI] = "uprobe multi-link",
		[FEATURE_BPF_LOOP] = "bpf_loop",
		[FEATURE_RAW_TP_COOKIE] = "raw tracepoint cookie",
	};

	return f < FEATURE_NR ? names[f] : "?";
}

int feature_fentry_on(const char *func)
{
	return try_tracing(BPF_TRACE_FENTRY, func, BTF_KIND_FUNC);
}
