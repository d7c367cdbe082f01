/* The generated code, executed without a kernel: a small BPF interpreter
 * runs BEGIN programs with fake helpers (maps kept here, records sent
 * collected; for_each_map_elem and loop call the program's callback
 * functions, each in a frame of its own) and the printf records are checked.  This pins the
 * language's semantics (C integer arithmetic, division by zero, shifts,
 * short-circuits, loops, strings, maps) on every machine, root or not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lang_test.h"
#include "lang/codegen.h"
#include "lang/output.h"
#include "lang/rec.h"

#define VM_STEPS 1000000
#define VM_ENTRIES 64
#define VM_RECS 64
#define VM_FRAMES 8		/* the kernel's call depth */

struct vm_map {
	uint32_t n;
	uint8_t *keys, *vals;	/* VM_ENTRIES each */
};

struct vm {
	const struct lang_cg *cg;
	uint64_t ctx[8];
	uint8_t stack[512 * VM_FRAMES];	/* the frames, the program's at the top */
	uint8_t scratch[32768];
	uint64_t state, counter[64];
	struct vm_map maps[32];
	uint8_t recs[VM_RECS][2048];
	size_t nrecs, reclen[VM_RECS];
	uint8_t zero_val[16384];
	const char *fault;
	const struct lang_cg_prog *prog;	/* running */
	int frame;				/* its depth: 0 the program */
};

static uint64_t vm_exec(struct vm *vm, size_t pc, const uint64_t args[5]);

static bool inside(const void *p, size_t size, const void *buf, size_t bsize)
{
	const uint8_t *a = p, *b = buf;

	return a >= b && a + size <= b + bsize;
}

static bool valid(struct vm *vm, uint64_t addr, size_t size)
{
	const void *p = (const void *)(uintptr_t)addr;

	if (inside(p, size, vm->stack, sizeof(vm->stack)) ||
	    inside(p, size, vm->scratch, sizeof(vm->scratch)) ||
	    inside(p, size, &vm->state, sizeof(vm->state)) ||
	    inside(p, size, vm->counter, sizeof(vm->counter)) ||
	    inside(p, size, vm->ctx, sizeof(vm->ctx)))
		return true;
	for (size_t i = 0; i < 32; i++) {
		const struct lang_cg_map *m = i < vm->cg->nmaps ? &vm->cg->maps[i] : NULL;

		if (m && vm->maps[i].vals &&
		    inside(p, size, vm->maps[i].vals, (size_t)VM_ENTRIES * m->value_size))
			return true;
		/* a key for_each_map_elem hands its callback */
		if (m && vm->maps[i].keys &&
		    inside(p, size, vm->maps[i].keys, (size_t)VM_ENTRIES * m->key_size))
			return true;
	}
	return false;
}

static uint8_t *vm_find(struct vm *vm, int mi, const uint8_t *key)
{
	const struct lang_cg_map *m = &vm->cg->maps[mi];
	struct vm_map *vmm = &vm->maps[mi];

	for (uint32_t i = 0; i < vmm->n; i++)
		if (!memcmp(vmm->keys + (size_t)i * m->key_size, key, m->key_size))
			return vmm->vals + (size_t)i * m->value_size;
	return NULL;
}

static uint64_t helper(struct vm *vm, int id, uint64_t *r)
{
	int mi = (int)r[1];
	const struct lang_cg_map *m = mi >= 0 && (size_t)mi < vm->cg->nmaps ? &vm->cg->maps[mi] : NULL;

	switch (id) {
	case BPF_FUNC_map_lookup_elem:
		if (!m)
			break;
		switch (m->role) {
		case LANG_CGM_STATE: return (uintptr_t)&vm->state;
		case LANG_CGM_SCRATCH: return (uintptr_t)vm->scratch;
		case LANG_CGM_LOST: case LANG_CGM_FULL: return (uintptr_t)vm->counter;
		case LANG_CGM_USER: {
			if (!valid(vm, r[2], m->key_size))
				break;
			return (uintptr_t)vm_find(vm, mi, (const uint8_t *)(uintptr_t)r[2]);
		}
		default: return 0;
		}
		break;
	case BPF_FUNC_map_update_elem: {
		struct vm_map *vmm;
		uint8_t *v;

		if (!m || m->role != LANG_CGM_USER || !valid(vm, r[2], m->key_size) ||
		    !valid(vm, r[3], m->value_size))
			break;
		vmm = &vm->maps[mi];
		if (!vmm->keys) {
			vmm->keys = calloc(VM_ENTRIES, m->key_size);
			vmm->vals = calloc(VM_ENTRIES, m->value_size);
		}
		v = vm_find(vm, mi, (const uint8_t *)(uintptr_t)r[2]);
		if (v && r[4] == BPF_NOEXIST)
			return (uint64_t)-EEXIST;
		if (!v) {
			if (vmm->n >= VM_ENTRIES || vmm->n >= m->max_entries)
				return (uint64_t)-E2BIG;
			memcpy(vmm->keys + (size_t)vmm->n * m->key_size, (void *)(uintptr_t)r[2], m->key_size);
			v = vmm->vals + (size_t)vmm->n++ * m->value_size;
		}
		memmove(v, (void *)(uintptr_t)r[3], m->value_size);
		return 0;
	}
	case BPF_FUNC_map_delete_elem: {
		uint8_t *v;
		struct vm_map *vmm;
		size_t i;

		if (!m || !valid(vm, r[2], m->key_size))
			break;
		vmm = &vm->maps[mi];
		v = vm_find(vm, mi, (const uint8_t *)(uintptr_t)r[2]);
		if (!v)
			return (uint64_t)-ENOENT;
		i = (size_t)(v - vmm->vals) / m->value_size;
		vmm->n--;
		memmove(vmm->keys + i * m->key_size, vmm->keys + (size_t)vmm->n * m->key_size, m->key_size);
		memmove(vmm->vals + i * m->value_size, vmm->vals + (size_t)vmm->n * m->value_size,
			m->value_size);
		return 0;
	}
	case BPF_FUNC_ringbuf_output:
		if (!valid(vm, r[2], r[3]) || r[3] > sizeof(vm->recs[0]))
			break;
		if (vm->nrecs >= VM_RECS)
			return (uint64_t)-ENOSPC;
		memcpy(vm->recs[vm->nrecs], (void *)(uintptr_t)r[2], r[3]);
		vm->reclen[vm->nrecs++] = r[3];
		return 0;
	case BPF_FUNC_map_lookup_percpu_elem:
		/* one CPU here: CPU 0 has the element, the others none */
		if (!m || m->role != LANG_CGM_USER || !valid(vm, r[2], m->key_size))
			break;
		return r[3] ? 0 : (uintptr_t)vm_find(vm, mi, (const uint8_t *)(uintptr_t)r[2]);
	case BPF_FUNC_for_each_map_elem: {
		struct vm_map *vmm;
		uint64_t n = 0;

		if (!m || m->role != LANG_CGM_USER || r[2] >= vm->prog->code.n || r[4])
			break;
		vmm = &vm->maps[mi];
		/* in the order stored; an element deleted is replaced by the
		 * last, which is then visited (or not) as a kernel walk may */
		for (uint32_t i = 0; i < vmm->n && !vm->fault; i++) {
			uint64_t a[5] = { (uint64_t)mi, (uintptr_t)(vmm->keys + (size_t)i * m->key_size),
					  (uintptr_t)(vmm->vals + (size_t)i * m->value_size), r[3], 0 };
			uint64_t ret = vm_exec(vm, (size_t)r[2], a);

			n++;
			if (ret > 1 && !vm->fault)
				vm->fault = "a callback returned neither 0 nor 1";
			if (ret)
				break;
		}
		return n;
	}
	case BPF_FUNC_loop: {
		uint64_t n = 0;

		if (r[1] > 1 << 23 || r[2] >= vm->prog->code.n || r[4])
			break;
		for (; n < r[1] && !vm->fault; n++) {
			uint64_t a[5] = { n, r[3], 0, 0, 0 };
			uint64_t ret = vm_exec(vm, (size_t)r[2], a);

			if (ret > 1 && !vm->fault)
				vm->fault = "a callback returned neither 0 nor 1";
			if (ret) {
				n++;
				break;
			}
		}
		return n;
	}
	case BPF_FUNC_get_current_pid_tgid: return 1234ULL << 32 | 5678;
	case BPF_FUNC_get_current_uid_gid: return 7ULL << 32 | 9;
	case BPF_FUNC_ktime_get_ns: return 1000000;
	case BPF_FUNC_get_smp_processor_id: return 1;
	case BPF_FUNC_get_current_comm:
		if (!valid(vm, r[1], r[2]))
			break;
		memset((void *)(uintptr_t)r[1], 0, r[2]);
		strncpy((char *)(uintptr_t)r[1], "unit", r[2] - 1);
		return 0;
	case BPF_FUNC_probe_read_kernel:
		if (!valid(vm, r[1], r[2]))
			break;
		if (!r[3] || !valid(vm, r[3], r[2])) {
			memset((void *)(uintptr_t)r[1], 0, r[2]);
			return (uint64_t)-EFAULT;
		}
		memmove((void *)(uintptr_t)r[1], (void *)(uintptr_t)r[3], r[2]);
		return 0;
	case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_probe_read_kernel_str: {
		size_t n = 0;
		const char *src = (const char *)(uintptr_t)r[3];
		char *dst = (char *)(uintptr_t)r[1];

		if (!valid(vm, r[1], r[2]) || !r[2])
			break;
		if (!r[3] || !valid(vm, r[3], 1))
			return (uint64_t)-EFAULT;
		while (n + 1 < r[2] && valid(vm, r[3] + n, 1) && src[n]) {
			dst[n] = src[n];
			n++;
		}
		dst[n] = 0;
		return n + 1;
	}
	default:
		break;
	}
	vm->fault = "a helper called with arguments it cannot take";
	return (uint64_t)-EINVAL;
}

static bool cond(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case BPF_JLT: return a < b;
	case BPF_JLE: return a <= b;
	case BPF_JSGT: return (int64_t)a > (int64_t)b;
	case BPF_JSGE: return (int64_t)a >= (int64_t)b;
	case BPF_JSLT: return (int64_t)a < (int64_t)b;
	case BPF_JSLE: return (int64_t)a <= (int64_t)b;
	case BPF_JSET: return a & b;
	}
	return false;
}

static uint64_t alu(int op, uint64_t a, uint64_t b, int off)
{
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_DIV:
		if (!b)
			return 0;
		if (off)
			return (int64_t)b == -1 ? -a : (uint64_t)((int64_t)a / (int64_t)b);
		return a / b;
	case BPF_MOD:
		if (!b)
			return a;
		if (off)
			return (int64_t)b == -1 ? 0 : (uint64_t)((int64_t)a % (int64_t)b);
		return a % b;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return a << (b & 63);
	case BPF_RSH: return a >> (b & 63);
	case BPF_ARSH: return (uint64_t)((int64_t)a >> (b & 63));
	case BPF_MOV:
		if (off == 8) return (uint64_t)(int64_t)(int8_t)b;
		if (off == 16) return (uint64_t)(int64_t)(int16_t)b;
		if (off == 32) return (uint64_t)(int64_t)(int32_t)b;
		return b;
	}
	return 0;
}

/* Runs the function at pc of vm->prog with r1..r5 = args, in the next
 * frame; its r0. */
static uint64_t vm_exec(struct vm *vm, size_t pc, const uint64_t args[5])
{
	const struct lang_cg_prog *p = vm->prog;
	uint64_t r[11] = { 0 };

	if (vm->frame >= VM_FRAMES) {
		vm->fault = "calls nested too deep";
		return 0;
	}
	memcpy(&r[1], args, 5 * sizeof(*args));
	r[10] = (uintptr_t)(vm->stack + sizeof(vm->stack) - 512 * (size_t)vm->frame++);
	for (long steps = 0; steps < VM_STEPS && !vm->fault; steps++) {
		const struct bpf_insn *i;
		int cls, op;
		uint64_t src;

		if (pc >= p->code.n) {
			vm->fault = "ran off the end";
			break;
		}
		i = &p->code.insn[pc];
		cls = BPF_CLASS(i->code);
		op = BPF_OP(i->code);
		src = BPF_SRC(i->code) == BPF_X ? r[i->src_reg] : (uint64_t)(int64_t)i->imm;
		switch (cls) {
		case BPF_ALU64:
			r[i->dst_reg] = op == BPF_NEG ? -r[i->dst_reg] : alu(op, r[i->dst_reg], src, i->off);
			break;
		case BPF_ALU:
			r[i->dst_reg] = (uint32_t)alu(op, (uint32_t)r[i->dst_reg], (uint32_t)src, 0);
			break;
		case BPF_LD:
			if (i->src_reg == BPF_PSEUDO_FUNC)	/* a function: its index */
				r[i->dst_reg] = pc + 1 + (uint64_t)(int64_t)i->imm;
			else
				r[i->dst_reg] = (uint32_t)i[0].imm | (uint64_t)(uint32_t)i[1].imm << 32;
			pc++;
			break;
		case BPF_LDX:
		case BPF_STX:
		case BPF_ST: {
			int sz = BPF_SIZE(i->code) == BPF_DW ? 8 : BPF_SIZE(i->code) == BPF_W ? 4 :
				 BPF_SIZE(i->code) == BPF_H ? 2 : 1;
			uint64_t addr = (cls == BPF_LDX ? r[i->src_reg] : r[i->dst_reg]) + (int64_t)i->off;
			uint64_t v = cls == BPF_STX ? r[i->src_reg] : (uint64_t)(int64_t)i->imm;

			if (!valid(vm, addr, (size_t)sz)) {
				vm->fault = "an access outside memory";
				break;
			}
			if (cls == BPF_LDX) {
				uint64_t x = 0;

				memcpy(&x, (void *)(uintptr_t)addr, (size_t)sz);
				r[i->dst_reg] = x;
			} else {
				memcpy((void *)(uintptr_t)addr, &v, (size_t)sz);
			}
			break;
		}
		case BPF_JMP:
			if (op == BPF_EXIT) {
				vm->frame--;
				return r[0];
			}
			if (op == BPF_CALL) {
				r[0] = helper(vm, i->imm, r);
				r[1] = r[2] = r[3] = r[4] = r[5] = 0xdeadbeef;	/* clobbered */
				break;
			}
			if (op == BPF_JA || cond(op, r[i->dst_reg], src))
				pc += (size_t)(int64_t)i->off;
			break;
		default:
			vm->fault = "an instruction the interpreter does not know";
		}
		pc++;
	}
	if (!vm->fault)
		vm->fault = "too many steps";
	vm->frame--;
	return (uint64_t)-1;
}

static int vm_run(struct vm *vm, const struct lang_cg_prog *p)
{
	uint64_t args[5] = { (uintptr_t)vm->ctx };

	vm->prog = p;
	vm->frame = 0;
	return (int)vm_exec(vm, 0, args);
}

/* the code generated as for a kernel without bpf_loop() */
static bool exec_no_bpf_loop;

/* Runs every BEGIN of src; the printf records as "a,b|c,d" (ints %lld,
 * strings as they are), or "error: ..." */
static const char *exec_b(const char *src, int nparams, char **params, long long *bucket)
{
	static char out[4096];
	struct lang_check_opts co = { .nparams = nparams, .params = params };
	struct lang_cg_opts o = { .ncpus = 2, .nparams = nparams, .params = params,
				  .no_bpf_loop = exec_no_bpf_loop };
	struct lang_prog *prog = lang_prog_new("t", src, strlen(src));
	struct lang_cg *cg = NULL;
	struct vm *vm = calloc(1, sizeof(*vm));
	size_t len = 0;

	out[0] = 0;
	if (!prog || !vm) {
		snprintf(out, sizeof(out), "error: out of memory");
		goto done;
	}
	if (lang_parse(prog) || lang_check(prog, &co) || !(cg = lang_cg_new(prog, &o))) {
		snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0));
		goto done;
	}
	for (const struct lang_probe *p = prog->probes; p; p = p->next) {
		struct lang_cg_point pt = { .at = &p->attach[0], .name = "BEGIN",
					    .type = BPF_PROG_TYPE_RAW_TRACEPOINT };
		int idx = lang_cg_gen(cg, p, &pt);

		if (idx < 0) {
			snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0));
			goto done;
		}
		vm->cg = cg;
		vm_run(vm, &cg->progs[idx]);
		if (vm->fault) {
			snprintf(out, sizeof(out), "fault: %s", vm->fault);
			goto done;
		}
	}
	for (size_t i = 0; i < vm->nrecs; i++) {
		struct lang_rec_hdr h;
		const struct lang_cg_site *s;

		memcpy(&h, vm->recs[i], sizeof(h));
		s = &cg->sites[h.site];
		if (s->kind == LANG_CGS_EXIT) {
			long long code = 0;

			if (s->nargs)
				memcpy(&code, vm->recs[i] + s->args[0].off, 8);
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%sexit(%lld)", i ? "|" : "",
						code);
			continue;
		}
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s", i ? "|" : "");
		for (size_t a = 0; a < s->nargs && len < sizeof(out); a++) {
			const uint8_t *v = vm->recs[i] + s->args[a].off;
			long long x;

			if (s->args[a].type.kind == LANG_K_STR) {
				len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.*s", a ? "," : "",
							(int)cg->strlen, (const char *)v);
			} else {
				memcpy(&x, v, 8);
				len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%lld", a ? "," : "", x);
			}
		}
	}
	if (bucket) {
		const struct lang_cg_map *m = lang_cg_map_find(cg, "@h");
		int mi = m ? (int)(m - cg->maps) : -1;

		*bucket = -1;
		if (mi >= 0 && vm->maps[mi].n == 1)
			for (uint32_t b = 0; b < m->nbuckets; b++) {
				uint64_t c;

				memcpy(&c, vm->maps[mi].vals + 8 * b, 8);
				if (c) {
					*bucket = c == 1 ? (long long)b : -2;
					break;
				}
			}
	}
done:
	if (vm)
		for (size_t i = 0; i < 32; i++) {
			free(vm->maps[i].keys);
			free(vm->maps[i].vals);
		}
	free(vm);
	lang_cg_free(cg);
	lang_prog_free(prog);
	return out;
}

static const char *exec(const char *src, int nparams, char **params)
{
	return exec_b(src, nparams, params, NULL);
}

#define P(e) "BEGIN { printf(\"%d\\n\", " e "); }"

static const struct lt_case cases[] = {
	/* arithmetic, C semantics on 64 bits */
	{ P("1 + 2 * 3"), "7" },
	{ P("(1 + 2) * 3"), "9" },
	{ P("7 / 2"), "3" },
	{ P("-7 / 2"), "-3" },
	{ P("-7 % 2"), "-1" },
	{ P("7 % -2"), "1" },
	{ P("7 / 0"), "0" },
	{ P("7 % 0"), "0" },
	{ "BEGIN { $z = 0; printf(\"%d %d\\n\", 5 / $z, 5 % $z); }", "0,0" },
	{ P("(uint64)-7 / 2"), "9223372036854775804" },
	{ P("9223372036854775807 + 1"), "-9223372036854775808" },
	{ P("1 << 63"), "-9223372036854775808" },
	{ P("1 << 40"), "1099511627776" },
	{ P("-8 >> 1"), "-4" },
	{ P("(uint64)-8 >> 60"), "15" },
	{ P("0xff & 0x0f | 0x30 ^ 0x01"), "63" },
	{ P("1 + 2 << 3"), "24" },
	{ P("10 - 4 - 3"), "3" },
	{ P("~0"), "-1" },
	{ P("-(3 - 5)"), "2" },
	{ P("!5"), "0" },
	{ P("!0"), "1" },
	{ P("(uint8)0x1ff"), "255" },
	{ P("(int8)0xff"), "-1" },
	{ P("(uint32)-1"), "4294967295" },
	{ P("(int16)0x18000"), "-32768" },
	/* comparisons: signed unless an operand is unsigned */
	{ P("-1 < 0"), "1" },
	{ P("(uint64)-1 < 0"), "0" },
	{ P("3 >= 3"), "1" },
	{ P("2 > 3"), "0" },
	{ P("2 <= 1"), "0" },
	{ P("1 == 1"), "1" },
	{ P("1 != 1"), "0" },
	{ P("pid > 0"), "1" },
	/* short-circuits */
	{ P("0 && 1"), "0" },
	{ P("2 && 3"), "1" },
	{ P("0 || 0"), "0" },
	{ P("0 || 7"), "1" },
	{ "BEGIN { $x = 1; $y = 0 && $x++; $z = 1 || $x++; printf(\"%d %d %d\\n\", $x, $y, $z); }",
	  "1,0,1" },
	{ "BEGIN { $x = 1; $y = 1 && $x++; printf(\"%d %d\\n\", $x, $y); }", "2,1" },
	{ P("1 ? 2 : 3"), "2" },
	{ P("0 ? 2 : 1 ? 4 : 5"), "4" },
	/* variables, ++ --, compound assignments */
	{ "BEGIN { $a = 1; $b = $a++; $c = ++$a; printf(\"%d %d %d\\n\", $a, $b, $c); }", "3,1,3" },
	{ "BEGIN { $a = 5; $a--; --$a; printf(\"%d\\n\", $a); }", "3" },
	{ "BEGIN { $a = 10; $a += 5; $a -= 3; $a *= 2; $a /= 4; $a %= 4; printf(\"%d\\n\", $a); }", "2" },
	{ "BEGIN { $a = 1; $a <<= 4; $a |= 3; $a &= 0x1e; $a ^= 1; $a >>= 1; printf(\"%d\\n\", $a); }",
	  "9" },
	{ "BEGIN { $a = 1; if ($a) { $a = 2; } else { $a = 3; } printf(\"%d\\n\", $a); }", "2" },
	{ "BEGIN { $a = 0; if ($a == 1) { $a = 2; } else if ($a == 0) { $a = 4; } else { $a = 3; } "
	  "printf(\"%d\\n\", $a); }", "4" },
	{ "BEGIN { if (1) { $v = 1; printf(\"%d\\n\", $v); } if (1) { $v = \"s\"; printf(\"%s\\n\", $v); } }",
	  "1|s" },
	/* loops */
	{ "BEGIN { $i = 0; $s = 0; while ($i < 10) { $s += $i; $i++; } printf(\"%d\\n\", $s); }", "45" },
	{ "BEGIN { $i = 0; while (1) { $i++; if ($i > 4) { break; } } printf(\"%d\\n\", $i); }", "5" },
	{ "BEGIN { $i = 0; $s = 0; while ($i < 6) { $i++; if ($i % 2) { continue; } $s += $i; } "
	  "printf(\"%d\\n\", $s); }", "12" },
	{ "BEGIN { $s = 0; for ($i : 3..7) { $s += $i; } printf(\"%d\\n\", $s); }", "18" },
	{ "BEGIN { $s = 0; for ($i : 0..10) { if ($i == 4) { break; } $s += $i; } printf(\"%d\\n\", $s); }",
	  "6" },
	{ "BEGIN { $s = 0; for ($i : 0..5) { if ($i == 2) { continue; } $s += $i; } printf(\"%d\\n\", $s); }",
	  "8" },
	{ "BEGIN { $s = 0; for ($i : 5..5) { $s++; } printf(\"%d\\n\", $s); }", "0" },
	{ "BEGIN { $i = 1; unroll(5) { $i *= 2; } printf(\"%d\\n\", $i); }", "32" },
	{ "BEGIN { $i = 0; while ($i < 3) { $i++; return; } printf(\"not reached\\n\"); }", "" },
	/* strings */
	{ "BEGIN { printf(\"%s %s\\n\", \"abc\", comm); }", "abc,unit" },
	{ "BEGIN { printf(\"%d %d\\n\", comm == \"unit\", comm != \"unit\"); }", "1,0" },
	{ "BEGIN { printf(\"%d %d\\n\", \"ab\" == \"abc\", \"abc\" == \"abc\"); }", "0,1" },
	{ "BEGIN { $s = \"x\"; $t = $s; printf(\"%s %d\\n\", $t, $t == \"x\"); }", "x,1" },
	{ "BEGIN { printf(\"%s\\n\", 1 ? \"yes\" : \"no\"); }", "yes" },
	{ "BEGIN { printf(\"%s\\n\", str(\"abcdef\")); }", "abcdef" },
	{ "BEGIN { printf(\"%s\\n\", str(\"abcdef\", 3)); }", "abc" },
	{ "BEGIN { printf(\"%s\\n\", str(\"abcdef\", 100)); }", "abcdef" },
	{ "config = { max_strlen = 4 } BEGIN { printf(\"%s\\n\", \"abcdef\"); }", "abc" },
	{ "BEGIN { printf(\"%s|\\n\", \"0123456789012345678901234567890123456789012345678901234567890123456789\"); }",
	  "012345678901234567890123456789012345678901234567890123456789012" },
	/* builtins */
	{ "BEGIN { printf(\"%d %d %d %d %d %d\\n\", pid, tid, uid, gid, cpu, ncpus); }",
	  "1234,5678,9,7,1,2" },
	{ "BEGIN { printf(\"%s\\n\", probe); }", "BEGIN" },
	/* tuples */
	{ "BEGIN { $t = (1, \"two\", 3); printf(\"%d %s %d\\n\", $t.0, $t.1, $t.2); }", "1,two,3" },
	/* maps */
	{ "BEGIN { @x = 5; @x += 2; @x++; printf(\"%d\\n\", @x); }", "8" },
	{ "BEGIN { printf(\"%d\\n\", @never); } END { @never = 1; }", "0" },
	{ "BEGIN { @m[1, \"a\"] = 3; printf(\"%d %d %d\\n\", @m[1, \"a\"], @m[1, \"b\"], has_key(@m, 1, \"a\")); }",
	  "3,0,1" },
	{ "BEGIN { @m[1] = 3; delete(@m[1]); printf(\"%d %d\\n\", has_key(@m, 1), @m[1]); }", "0,0" },
	{ "BEGIN { @m[2] = 3; delete(@m, 2); printf(\"%d\\n\", has_key(@m, 2)); }", "0" },
	{ "BEGIN { @c = count(); @c = count(); @c = count(); printf(\"%d\\n\", @c); }", "3" },
	{ "BEGIN { @s = sum(5); @s = sum(-2); printf(\"%d\\n\", @s); }", "3" },
	{ "BEGIN { @a = avg(10); @a = avg(20); printf(\"%d\\n\", @a); }", "15" },
	{ "BEGIN { @n = min(5); @n = min(-3); @n = min(9); @x = max(5); @x = max(-3); @x = max(9); "
	  "printf(\"%d %d\\n\", @n, @x); }", "-3,9" },
	{ "BEGIN { @s[comm] = \"v\"; printf(\"%s\\n\", @s[\"unit\"]); }", "v" },
	/* for ($kv : @map): the body a callback function (the interpreter's
	 * maps keep their insertion order) */
	{ "BEGIN { @m[1] = 10; @m[2] = 20; $s = 0; for ($kv : @m) { $s += $kv.1; } printf(\"%d\\n\", $s); }",
	  "30" },
	{ "BEGIN { @m[1] = \"a\"; @m[2] = \"b\"; for ($kv : @m) { printf(\"%d %s\\n\", $kv.0, $kv.1); } }",
	  "1,a|2,b" },
	{ "BEGIN { @m[1, \"x\"] = count(); @m[1, \"x\"] = count(); for ($kv : @m) { "
	  "printf(\"%d %s %d\\n\", $kv.0.0, $kv.0.1, $kv.1); } }", "1,x,2" },
	{ "BEGIN { @m[1] = avg(4); @m[1] = avg(8); @n[1] = min(3); @n[1] = min(-2); "
	  "for ($kv : @m) { for ($x : @n) { printf(\"%d %d\\n\", $kv.1, $x.1); } } }", "6,-2" },
	{ "BEGIN { @m[1] = 1; @m[2] = 2; @m[3] = 3; $n = 0; for ($kv : @m) { $n++; if ($kv.0 == 2) { break; } } "
	  "printf(\"%d\\n\", $n); }", "2" },
	{ "BEGIN { @m[1] = 1; @m[2] = 2; @m[3] = 3; $s = 0; for ($kv : @m) { if ($kv.0 == 2) { continue; } "
	  "$s += $kv.1; } printf(\"%d\\n\", $s); }", "4" },
	{ "BEGIN { @m[1] = 1; @m[2] = 2; for ($kv : @m) { printf(\"in %d\\n\", $kv.0); return; } "
	  "printf(\"not reached\\n\"); }", "1" },
	{ "BEGIN { @m[1] = 1; @m[2] = 2; for ($kv : @m) { exit(4); } printf(\"not reached\\n\"); }",
	  "exit(4)" },
	{ "BEGIN { @m[1] = 1; @m[2] = 2; $t = \"t\"; $a = 5; for ($kv : @m) { @o[$kv.0] = $kv.1 * $a; $a++; } "
	  "printf(\"%s %d %d %d\\n\", $t, $a, @o[1], @o[2]); }", "t,7,5,12" },
	{ "BEGIN { @a[1] = 1; @a[2] = 2; @b[10] = 10; @b[20] = 20; $n = 0; "
	  "for ($x : @a) { for ($y : @b) { $n += $x.1 * $y.1; } } printf(\"%d\\n\", $n); }", "90" },
	/* for ($i : A..B) where bpf_loop() is: the body its callback, $i =
	 * A + the index (lang_exec_range_open_coded runs them without) */
	{ "BEGIN { @x = 5; for ($i : 0..@x) { printf(\"%d\\n\", $i); } }", "0|1|2|3|4" },
	{ "BEGIN { $s = 0; for ($i : 0..100000) { $s += $i; } printf(\"%d\\n\", $s); }", "4999950000" },
	{ "BEGIN { $a = -2; $b = 2; for ($i : $a..$b) { printf(\"%d\\n\", $i); } }", "-2|-1|0|1" },
	{ "BEGIN { $a = 5; $n = 0; for ($i : $a..1) { $n++; } for ($i : $a..$a) { $n++; } "
	  "printf(\"%d\\n\", $n); }", "0" },
	{ "BEGIN { $n = 3; $s = 0; for ($i : 0..$n) { for ($j : 0..$n) { $s += $i * 10 + $j; } } "
	  "printf(\"%d\\n\", $s); }", "99" },
	{ "BEGIN { $n = 10; $s = 0; for ($i : 0..$n) { if ($i == 2) { continue; } if ($i == 5) { break; } "
	  "$s += $i; } printf(\"%d\\n\", $s); }", "8" },
	{ "BEGIN { $n = 10; for ($i : 0..$n) { if ($i == 3) { printf(\"in %d\\n\", $i); return; } } "
	  "printf(\"not reached\\n\"); }", "3" },
	{ "BEGIN { $n = 10; for ($i : 0..$n) { if ($i == 3) { exit(2); } } printf(\"not reached\\n\"); }",
	  "exit(2)" },
	{ "BEGIN { $n = 4; $c = 0; for ($i : 0..$n) { $i = 100; $c++; } for ($i : 0..4) { $i = 100; $c++; } "
	  "printf(\"%d\\n\", $c); }", "8" },
	{ "BEGIN { @m[1] = 10; @m[2] = 20; $n = 2; $s = 0; for ($kv : @m) { for ($i : 0..$n) { "
	  "$s += $kv.1 + $i; } } for ($i : 0..$n) { for ($kv : @m) { $s += $i * $kv.1; } } "
	  "printf(\"%d\\n\", $s); }", "92" },
	/* exit: the record, nothing after it */
	{ "BEGIN { printf(\"a\\n\"); exit(3); printf(\"b\\n\"); }", "|exit(3)" },
	{ "BEGIN { exit(); }", "exit(0)" },
	/* positional parameters */
	{ "BEGIN { printf(\"%d %s %d %d\\n\", $1, $2, $#, $3); }", "42,str,2,0" },
};

TEST(lang_exec_cases)
{
	char *params[] = { "42", "str" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = exec(cases[i].in, 2, params);

		if (strcmp(got, cases[i].want))
			test_fail(__FILE__, __LINE__, "%s\n    got  \"%s\"\n    want \"%s\"", cases[i].in,
				  got, cases[i].want);
	}
}

/* Where the kernel has no bpf_loop(), for ($i : A..B) is an open-coded
 * loop: the same results, no callback, no call of the helper. */
TEST(lang_exec_range_open_coded)
{
	char *params[] = { "42", "str" };
	size_t n = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got, *want;

		if (!strstr(cases[i].in, "for ($i : ") || strstr(cases[i].in, "100000"))
			continue;
		exec_no_bpf_loop = false;
		want = exec(cases[i].in, 2, params);
		if (strcmp(want, cases[i].want))
			continue;	/* lang_exec_cases says so */
		exec_no_bpf_loop = true;
		got = exec(cases[i].in, 2, params);
		exec_no_bpf_loop = false;
		n++;
		if (strcmp(got, cases[i].want))
			test_fail(__FILE__, __LINE__, "open-coded: %s\n    got  \"%s\"\n    want \"%s\"",
				  cases[i].in, got, cases[i].want);
	}
	CHECK(n >= 12);
}

TEST(lang_exec_range_bpf_loop_or_not)
{
	struct lang_cg_opts o = { .ncpus = 2 };
	const char *src = "BEGIN { $s = 0; for ($i : 0..3) { $s += $i; } @s = $s; }";

	for (int k = 0; k < 2; k++) {
		struct lang_prog *prog = lang_prog_new("t", src, strlen(src));
		struct lang_check_opts co = { 0 };
		struct lang_cg *cg = NULL;
		bool calls = false;

		o.no_bpf_loop = k;
		if (!prog || lang_parse(prog) || lang_check(prog, &co) || !(cg = lang_cg_new(prog, &o))) {
			test_fail(__FILE__, __LINE__, "%s", prog ? lang_error(prog, 0) : "no memory");
		} else {
			struct lang_cg_point pt = { .at = &prog->probes->attach[0], .name = "BEGIN",
						    .type = BPF_PROG_TYPE_RAW_TRACEPOINT };
			int idx = lang_cg_gen(cg, prog->probes, &pt);

			CHECK(idx >= 0);
			for (size_t i = 0; idx >= 0 && i < cg->progs[idx].code.n; i++) {
				const struct bpf_insn *in = &cg->progs[idx].code.insn[i];

				if (in->code == (BPF_JMP | BPF_CALL) && in->imm == BPF_FUNC_loop)
					calls = true;
			}
			CHECK_INT(calls, !k);
			CHECK_INT(idx >= 0 ? cg->progs[idx].nfuncs : 9, k ? 0 : 1);
		}
		lang_cg_free(cg);
		lang_prog_free(prog);
	}
}

/* the histogram bucket the generated code picks, for many values */
TEST(lang_exec_hist_buckets)
{
	static const long long vs[] = { -3, 0, 1, 2, 3, 4, 7, 8, 100, 1023, 1024, 1LL << 33, 123456789 };

	for (unsigned k = 0; k <= 3; k++)
		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
			char src[256];
			long long b;

			/* one count, at the index lang/output's function gives */
			snprintf(src, sizeof(src), "BEGIN { @h = hist(%lld, %u); }", vs[i], k);
			CHECK_STR(exec_b(src, 0, NULL, &b), "");
			CHECK_INT(b, lang_hist_index(vs[i], k));
		}
}

TEST(lang_exec_lhist_buckets)
{
	for (long long v = -15; v <= 115; v += 5) {
		char src[256];
		long long b;

		snprintf(src, sizeof(src), "BEGIN { @h = lhist(%lld, 0, 100, 10); }", v);
		CHECK_STR(exec_b(src, 0, NULL, &b), "");
		CHECK_INT(b, lang_lhist_index(v, 0, 100, 10));
	}
}
