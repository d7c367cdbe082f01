/* Rendering syscall records the way strace writes them: the engine.
 * Which arguments a call shows and in what order, its return value and
 * error, the text line and the JSON members, quoting, and the capture
 * spec BPF follows.  How each kind of argument looks is decode_args.c
 * and decode_mem.c; which kinds a syscall has is decoders.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "report/json.h"
#include "syscall/decode_int.h"

#define MAX_ERRNO 4095

/* ---- text ----------------------------------------------------------- */

static bool dbuf_grow(struct dbuf *b, size_t add)
{
	size_t cap;
	char *s;

	if (b->oom)
		return false;
	if (b->len + add < b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap <= b->len + add)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

static void dbuf_write(struct dbuf *b, const char *p, size_t n)
{
	if (!dbuf_grow(b, n))
		return;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void dbuf_putc(struct dbuf *b, char ch)
{
	dbuf_write(b, &ch, 1);
}

void dbuf_puts(struct dbuf *b, const char *s)
{
	dbuf_write(b, s, strlen(s));
}

void dbuf_printf(struct dbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		dbuf_write(b, tmp, n);
		return;
	}
	if (!dbuf_grow(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

static void dbuf_free(struct dbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

void dbuf_ptr(struct dbuf *b, __u64 v)
{
	if (v)
		dbuf_printf(b, "%#llx", (unsigned long long)v);
	else
		dbuf_puts(b, "NULL");
}

void dbuf_quote(struct dbuf *b, const void *p, size_t len, bool more, unsigned int style)
{
	const unsigned char *s = p;

	dbuf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if ((style & Q_NUL) && !ch) {
			more = false;
			break;
		}
		if (style & Q_HEX) {
			dbuf_printf(b, "\\x%02x", ch);
			continue;
		}
		switch (ch) {
		case '"': dbuf_puts(b, "\\\""); continue;
		case '\\': dbuf_puts(b, "\\\\"); continue;
		case '\f': dbuf_puts(b, "\\f"); continue;
		case '\n': dbuf_puts(b, "\\n"); continue;
		case '\r': dbuf_puts(b, "\\r"); continue;
		case '\t': dbuf_puts(b, "\\t"); continue;
		case '\v': dbuf_puts(b, "\\v"); continue;
		}
		if (ch >= 0x20 && ch < 0x7f)
			dbuf_putc(b, ch);
		else if (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7')
			/* all three digits, or the next one would join them */
			dbuf_printf(b, "\\%03o", ch);
		else
			dbuf_printf(b, "\\%o", ch);
	}
	dbuf_putc(b, '"');
	if (more)
		dbuf_puts(b, "...");
}

/* ---- names ---------------------------------------------------------- */

const char *xlat_name(const struct xlat *t, __u64 v)
{
	for (; t && t->name; t++)
		if (t->val == v)
			return t->name;
	return NULL;
}

/* Writes the names of v's bits; returns the bits no entry named. */
static __u64 put_flag_names(struct dbuf *b, const struct xlat *t, __u64 v, bool *any)
{
	for (; t && t->name; t++) {
		if (!t->val || (v & t->val) != t->val)
			continue;
		if (*any)
			dbuf_putc(b, '|');
		dbuf_puts(b, t->name);
		*any = true;
		v &= ~t->val;
	}
	return v;
}

void xlat_flags(struct dbuf *b, const struct xlat *t, __u64 v)
{
	bool any = false;
	const char *zero;

	v = put_flag_names(b, t, v, &any);
	if (v) {
		if (any)
			dbuf_putc(b, '|');
		dbuf_printf(b, "%#llx", (unsigned long long)v);
	} else if (!any) {
		zero = xlat_name(t, 0);
		dbuf_puts(b, zero ? zero : "0");
	}
}

void xlat_enum(struct dbuf *b, const struct xlat *t, __u64 v, bool sign)
{
	const char *name = xlat_name(t, v);

	if (name)
		dbuf_puts(b, name);
	else if (sign)
		dbuf_printf(b, "%lld", (long long)v);
	else
		dbuf_printf(b, "%llu", (unsigned long long)v);
}

void xlat_field_flags(struct dbuf *b, const struct xlat *field, __u64 mask,
		      const struct xlat *flags, __u64 v)
{
	const char *name = xlat_name(field, v & mask);
	bool any = false;

	if (name) {
		dbuf_puts(b, name);
		any = true;
	} else if (v & mask) {
		dbuf_printf(b, "%#llx", (unsigned long long)(v & mask));
		any = true;
	}
	v = put_flag_names(b, flags, v & ~mask, &any);
	if (v) {
		if (any)
			dbuf_putc(b, '|');
		dbuf_printf(b, "%#llx", (unsigned long long)v);
	} else if (!any) {
		dbuf_putc(b, '0');
	}
}

/* ---- records ---------------------------------------------------------- */

const struct sc_chunk *sc_chunk_find(const struct sc_record *r, size_t size, int arg, int cap,
				     int idx)
{
	const unsigned char *data = (const unsigned char *)(r + 1);
	size_t avail, off = 0;

	if (size < sizeof(*r))
		return NULL;
	avail = size - sizeof(*r);
	if (r->data_len < avail)
		avail = r->data_len;
	while (off + sizeof(struct sc_chunk) <= avail) {
		const struct sc_chunk *ch = (const void *)(data + off);

		if (ch->len > avail - off - sizeof(*ch))
			break;
		if (ch->arg == arg && ch->cap == cap && ch->idx == idx)
			return ch;
		off += SC_CHUNK_SIZE(ch->len);
	}
	return NULL;
}

const unsigned char *dctx_data(const struct dctx *c, int arg, int cap, int idx, size_t min,
			       size_t *len, __u8 *flags)
{
	const struct sc_chunk *ch = sc_chunk_find(c->r, c->size, arg, cap, idx);

	if (!ch || (ch->flags & SC_CHUNK_FAULT) || ch->len < min)
		return NULL;
	if (len)
		*len = ch->len;
	if (flags)
		*flags = ch->flags;
	return (const unsigned char *)(ch + 1);
}

/* ---- errors ----------------------------------------------------------- */

/* Kernel-internal codes that reach the syscall exit tracepoint: a signal
 * arrived and the call will be restarted or fail with EINTR. */
static const struct {
	int err;
	bool restart;		/* strace prints "= ?": the call goes on */
	const char *name, *text;
} kernel_errnos[] = {
	{ 512, true, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ 513, true, "ERESTARTNOINTR", "To be restarted" },
	{ 514, true, "ERESTARTNOHAND", "To be restarted if no handler" },
	{ 515, false, "ENOIOCTLCMD", "No ioctl command" },
	{ 516, true, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	{ 517, false, "EPROBE_DEFER", "Driver requests probe retry" },
	{ 518, false, "EOPENSTALE", "Open found a stale dentry" },
	{ 524, false, "ENOTSUPP", "Operation is not supported" },
};

static int kernel_errno(int err)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernel_errnos); i++)
		if (kernel_errnos[i].err == err)
			return i;
	return -1;
}

const char *sc_errno_name(int err)
{
	int k = kernel_errno(err);

	if (k >= 0)
		return kernel_errnos[k].name;
	return err > 0 ? strerrorname_np(err) : NULL;
}

/* strerrordesc_np: the untranslated text, whatever the locale */
const char *sc_errno_text(int err)
{
	int k = kernel_errno(err);
	const char *s;

	if (k >= 0)
		return kernel_errnos[k].text;
	s = err > 0 ? strerrordesc_np(err) : NULL;
	return s ? s : "Unknown error";
}

/* ---- one call --------------------------------------------------------- */

static void dctx_init(struct dctx *c, const struct sc_info *si, const struct sc_record *r,
		      size_t size, const struct sc_fmt_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->si = si;
	c->dec = si->dec;
	c->r = r;
	c->size = size;
	c->strsize = o && o->strsize >= 0 ? o->strsize : 32;
	c->done = !(r->flags & (SC_F_NORET | SC_F_UNFINISHED));
	c->failed = c->done && r->ret < 0 && r->ret >= -MAX_ERRNO;
}

static int decoder_nargs(const struct sc_decoder *d)
{
	int n = 0;

	while (n < SC_ARGS && d->args[n] != A_NONE)
		n++;
	return n;
}

bool sc_decoder_self_sufficient(const struct sc_decoder *d)
{
	if (!d || d->layout)
		return false;
	for (int i = 0; i < decoder_nargs(d); i++)
		if (d->args[i] == A_AUTO)
			return false;
	return true;
}

/* What argument `arg` is shown as: the decoder's kind, else by type. */
static enum akind arg_kind(const struct sc_info *si, const struct sc_decoder *d, int arg)
{
	enum akind k = d ? d->args[arg] : A_AUTO;

	if (k != A_AUTO && k != A_NONE)
		return k;
	if (!si->args || arg >= si->nargs)
		return A_RAW;
	k = akind_of_string(&si->args[arg]);
	return k != A_NONE ? k : akind_of_type(&si->args[arg]);
}

static int call_items(const struct dctx *c, struct ditem *it)
{
	int n;

	if (c->dec && c->dec->layout)
		return c->dec->layout(c, it);
	if (c->dec)
		n = decoder_nargs(c->dec);
	else if (c->si->nargs < 0)
		n = SC_ARGS;	/* no format: all six registers */
	else
		n = c->si->nargs < SC_ARGS ? c->si->nargs : SC_ARGS;
	for (int i = 0; i < n; i++)
		it[i] = (struct ditem){ i, NULL };
	return n;
}

static bool show_arg(struct dctx *c, int arg)
{
	const struct argkind *k = argkind_get(arg_kind(c->si, c->dec, arg));
	__u64 v = c->r->args[arg];

	if ((k->flags & K_PTR) && !v) {
		dbuf_puts(c->b, "NULL");
		return true;
	}
	/* nothing was written there, or not yet */
	if ((k->flags & K_OUT) && (!c->done || c->failed)) {
		dbuf_ptr(c->b, v);
		return true;
	}
	return k->show(c, arg, k);
}

/* poll, ppoll: the fds that have revents, from the array read at exit;
 * ret of them have some, strace shows at most -s */
static void show_poll_ret(struct dctx *c, struct dbuf *b)
{
	size_t len, n = c->r->ret, shown = 0;
	const unsigned char *p;

	if (!c->r->ret) {
		dbuf_puts(b, "0 (Timeout)");
		return;
	}
	dbuf_printf(b, "%lld", (long long)c->r->ret);
	p = dctx_data(c, 0, SC_CAP_ARRAY_OUT, 0, 0, &len, NULL);
	if (!p)
		return;
	dbuf_puts(b, " ([");
	for (size_t i = 0; (i + 1) * 8 <= len && shown < n && shown < (size_t)c->strsize; i++) {
		int fd;
		short rev;

		memcpy(&fd, p + i * 8, 4);
		memcpy(&rev, p + i * 8 + 6, 2);
		if (!rev)
			continue;
		dbuf_printf(b, "%s{fd=%d, revents=", shown ? ", " : "", fd);
		xlat_flags(b, xl_pollev, (unsigned short)rev);
		dbuf_putc(b, '}');
		shown++;
	}
	if (n > shown)
		dbuf_puts(b, shown ? ", ..." : "...");
	dbuf_putc(b, ']');
	/* ppoll writes back the time left */
	if (c->si->name && !strcmp(c->si->name, "ppoll") && c->r->args[2] &&
	    (p = dctx_data(c, 2, SC_CAP_STRUCT_OUT, 0, 16, NULL, NULL))) {
		dbuf_puts(b, ", left ");
		put_timespec(b, p);
	}
	dbuf_putc(b, ')');
}

static void show_ret(struct dctx *c, struct dbuf *b)
{
	long long ret = c->r->ret;
	enum rkind rk = c->dec ? c->dec->ret : R_DEC;
	char date[64];
	struct tm tm;
	time_t t;

	if (!c->done) {
		dbuf_putc(b, '?');
		return;
	}
	if (c->failed) {
		int err = -ret, k = kernel_errno(err);
		const char *name = sc_errno_name(err);

		if (k >= 0 && kernel_errnos[k].restart)
			dbuf_printf(b, "? %s (%s)", name, sc_errno_text(err));
		else if (name)
			dbuf_printf(b, "-1 %s (%s)", name, sc_errno_text(err));
		else
			dbuf_printf(b, "-1 %d (Unknown error %d)", err, err);
		return;
	}
	switch (rk) {
	case R_HEX:
		dbuf_printf(b, "%#llx", (unsigned long long)ret);
		return;
	case R_OCT:
		dbuf_printf(b, "%#llo", (unsigned long long)ret);
		return;
	case R_FCNTL:
		if ((int)c->r->args[1] == F_GETFL) {
			dbuf_printf(b, "%#llx (flags ", (unsigned long long)ret);
			xlat_field_flags(b, xl_open_access, 3, xl_open_flags, ret);
			dbuf_putc(b, ')');
			return;
		}
		if ((int)c->r->args[1] == F_GETFD && ret) {
			dbuf_printf(b, "%#llx (flags ", (unsigned long long)ret);
			xlat_flags(b, xl_fd_flags, ret);
			dbuf_putc(b, ')');
			return;
		}
		break;
	case R_POLL:
		show_poll_ret(c, b);
		return;
	case R_TIME:
		t = ret;
		if (localtime_r(&t, &tm) && strftime(date, sizeof(date), "%FT%T%z", &tm)) {
			dbuf_printf(b, "%lld (%s)", ret, date);
			return;
		}
		break;
	case R_SIG:
		if (ret > 0) {
			dbuf_printf(b, "%lld (", ret);
			show_signal(b, ret);
			dbuf_putc(b, ')');
			return;
		}
		break;
	case R_SELECT:
	case R_PSELECT:
		put_select_ret(c, b, rk == R_PSELECT);
		return;
	case R_PRCTL:
		if (prctl_ret_name(b, (unsigned int)c->r->args[0], ret))
			return;
		break;
	case R_DEC:
		break;
	}
	dbuf_printf(b, "%lld", ret);
}

/* A record rendered: the shown arguments' texts and the return value. */
struct rendered {
	int n;
	struct ditem it[SC_ARGS];
	struct dbuf text[SC_ARGS];
	struct dbuf ret;
};

static void render(struct dctx *c, struct rendered *rd)
{
	struct ditem it[SC_ARGS];
	int n = call_items(c, it);

	memset(rd, 0, sizeof(*rd));
	for (int i = 0; i < n && i < SC_ARGS; i++) {
		struct dbuf *b = &rd->text[rd->n];

		c->b = b;
		b->len = 0;
		if (b->s)
			b->s[0] = '\0';
		if (show_arg(c, it[i].arg))
			rd->it[rd->n++] = it[i];
	}
	c->b = NULL;
	show_ret(c, &rd->ret);
}

static void rendered_free(struct rendered *rd)
{
	for (int i = 0; i < SC_ARGS; i++)
		dbuf_free(&rd->text[i]);
	dbuf_free(&rd->ret);
}

static const char *text_of(const struct dbuf *b)
{
	return b->s ? b->s : "";
}

void sc_print_call(FILE *f, const struct sc_info *si, const struct sc_record *r, size_t size,
		   const struct sc_fmt_opts *o)
{
	struct rendered rd;
	struct dctx c;

	dctx_init(&c, si, r, size, o);
	render(&c, &rd);
	if (si->name)
		fputs(si->name, f);
	else
		fprintf(f, "syscall_%u", r->nr);
	fputc('(', f);
	for (int i = 0; i < rd.n; i++) {
		if (i)
			fputs(", ", f);
		if (rd.it[i].label)
			fprintf(f, "%s=", rd.it[i].label);
		fputs(text_of(&rd.text[i]), f);
	}
	fputs(") = ", f);
	fputs(text_of(&rd.ret), f);
	rendered_free(&rd);
}

/* ---- JSON ------------------------------------------------------------- */

void sc_print_json(FILE *f, const struct sc_info *si, const struct sc_record *r, size_t size,
		   const struct sc_fmt_opts *o)
{
	struct rendered rd;
	struct dctx c;

	dctx_init(&c, si, r, size, o);
	render(&c, &rd);
	fputs("\"args\":[", f);
	for (int i = 0; i < rd.n; i++) {
		int arg = rd.it[i].arg;
		char fallback[8];
		const char *name = rd.it[i].label;

		if (!name && si->args && arg < si->nargs && si->args[arg].name[0])
			name = si->args[arg].name;
		if (!name) {
			snprintf(fallback, sizeof(fallback), "arg%d", arg);
			name = fallback;
		}
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_write_cstring(f, name);
		fprintf(f, ",\"raw\":%llu,\"value\":", (unsigned long long)r->args[arg]);
		json_write_cstring(f, text_of(&rd.text[i]));
		fputc('}', f);
	}
	fputs("],\"ret\":", f);
	if (c.done)
		fprintf(f, "%lld", (long long)r->ret);
	else
		fputs("null", f);
	fputs(",\"retval\":", f);
	json_write_cstring(f, text_of(&rd.ret));
	if (c.failed) {
		const char *name = sc_errno_name(-r->ret);

		fputs(",\"errno\":", f);
		if (name)
			json_write_cstring(f, name);
		else
			fputs("null", f);
		fputs(",\"error\":", f);
		json_write_cstring(f, sc_errno_text(-r->ret));
	}
	rendered_free(&rd);
}

/* ---- capture ---------------------------------------------------------- */

void sc_spec_for(const struct sc_info *si, struct sc_spec *spec)
{
	const struct sc_decoder *d = si->dec;

	memset(spec, 0, sizeof(*spec));
	if (d && (d->flags & D_NORET))
		spec->flags |= SC_SPEC_NORET;
	if (!d && si->nargs < 0)
		return;
	for (int i = 0; i < SC_ARGS; i++) {
		const struct argkind *k;
		int len_arg;

		if (d && d->args[i] == A_NONE && !d->layout)
			break;
		k = argkind_get(arg_kind(si, d, i));
		if (k->cap == SC_CAP_NONE)
			continue;
		len_arg = i + k->len_rel;
		spec->args[i].cap = k->cap;
		spec->args[i].size = k->size;
		spec->args[i].len_arg = k->len_rel && len_arg >= 0 && len_arg < SC_ARGS ?
			len_arg : SC_LEN_FIXED;
	}
}
