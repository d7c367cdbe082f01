/* Kernel stacks without the tracer's own frames (lang/kstack.h). */
#include <stdlib.h>
#include <string.h>
#include "lang/kstack.h"

/* Functions by prefix: every function whose name starts so is glue. */
static const char *const glue_prefixes[] = {
	"bpf_prog_",		/* a JIT-ed program: bpf_prog_6deef7357e7b4530_p0 */
	"bpf_trampoline_",
	"bpf_dispatcher_",
	"__bpf_prog_run",
	"bpf_trace_run",	/* raw tracepoints: bpf_trace_run1 .. 12 */
	"__bpf_trace_",		/* their per-event wrappers */
	"__traceiter_",		/* a tracepoint's probe iterator */
	"__probestub_",
	"perf_trace_",		/* perf_trace_sched_switch, perf_trace_run_bpf_submit */
	"trace_event_raw_event_",
	"perf_syscall_",	/* perf_syscall_enter/exit: syscall tracepoints */
	"perf_call_bpf_",
	"perf_tp_event",
	"bpf_get_stack",	/* the helpers themselves: bpf_get_stackid_pe ... */
	"__bpf_get_stack",
	"bpf_overflow_handler",
	"kprobe_perf_func",
	"kretprobe_perf_func",
	"kprobe_dispatcher",
	"kretprobe_dispatcher",
	"kprobe_ftrace_handler",
	"uprobe_dispatcher",
	"uretprobe_dispatcher",
	"uprobe_perf_func",
	"__uprobe_perf_func",
};

/* ... and by exact name. */
static const char *const glue_names[] = {
	"trace_call_bpf",
	"bpf_get_stackid",
	"get_perf_callchain",
	"perf_callchain_kernel",
	"__perf_event_overflow",
	"perf_event_overflow",
	"perf_swevent_event",
	"perf_swevent_overflow",
	"do_perf_sw_event",
	"___perf_sw_event",
	"__perf_sw_event",
	"handler_chain",
};

bool lang_kstack_tracer_func(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(glue_prefixes) / sizeof(glue_prefixes[0]); i++)
		if (!strncmp(name, glue_prefixes[i], strlen(glue_prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(glue_names) / sizeof(glue_names[0]); i++)
		if (!strcmp(name, glue_names[i]))
			return true;
	return false;
}

size_t lang_kstack_tracer_prefix(const struct lang_frame *fr, size_t n)
{
	size_t skip = 0;

	for (size_t i = 0; i < n; i++) {
		if (!fr[i].name)
			continue;	/* unnamed: glue only when named glue follows */
		if (!lang_kstack_tracer_func(fr[i].name))
			break;
		skip = i + 1;
	}
	return skip;
}

static bool has_stack(const struct lang_val *v)
{
	if (!v)
		return false;
	if (v->kind == LANG_K_STACK)
		return true;
	for (size_t i = 0; v->kind == LANG_K_TUPLE && i < v->nelems; i++)
		if (has_stack(&v->elems[i]))
			return true;
	return false;
}

static void combine(struct lang_val *a, const struct lang_val *b)
{
	switch (a->kind) {
	case LANG_K_COUNT:
	case LANG_K_SUM:
		a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i);
		break;
	case LANG_K_MIN:
		if (b->i < a->i)
			a->i = b->i;
		break;
	case LANG_K_MAX:
	case LANG_K_INT:
		if (a->is_signed ? b->i > a->i : (uint64_t)b->i > (uint64_t)a->i)
			a->i = b->i;
		break;
	case LANG_K_AVG:
	case LANG_K_STATS:
		a->count += b->count;
		a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)b->sum);
		break;
	case LANG_K_HIST:
	case LANG_K_LHIST:
		/* the buckets are the element's own copy, read back from the map */
		for (size_t i = 0; i < a->nbuckets && i < b->nbuckets; i++)
			((uint64_t *)a->buckets)[i] += b->buckets[i];
		break;
	default:
		break;
	}
}

struct keytext {
	char *text;
	size_t i;
};

static int keytext_cmp(const void *x, const void *y)
{
	const struct keytext *a = x, *b = y;
	int c = strcmp(a->text, b->text);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

size_t lang_stack_keys_merge(struct lang_map_entry *ents, size_t n)
{
	struct keytext *kt;
	bool *gone;
	size_t out = n;

	if (n < 2 || !has_stack(ents[0].key))
		return n;
	kt = calloc(n, sizeof(*kt));
	gone = calloc(n, sizeof(*gone));
	if (!kt || !gone)
		goto free;
	for (size_t i = 0; i < n; i++) {
		kt[i].i = i;
		kt[i].text = lang_val_text(ents[i].key);
		if (!kt[i].text)
			goto free;
	}
	qsort(kt, n, sizeof(*kt), keytext_cmp);
	for (size_t g = 0, j; g < n; g = j) {
		for (j = g + 1; j < n && !strcmp(kt[j].text, kt[g].text); j++) {
			combine(&ents[kt[g].i].value, &ents[kt[j].i].value);
			gone[kt[j].i] = true;
		}
	}
	out = 0;
	for (size_t i = 0; i < n; i++)
		if (!gone[i])
			ents[out++] = ents[i];
free:
	for (size_t i = 0; kt && i < n; i++)
		free(kt[i].text);
	free(kt);
	free(gone);
	return out;
}
