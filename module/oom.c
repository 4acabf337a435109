// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the OOM report. When the OOM killer picks a victim, the
 * oom_report largest sites by live bytes go to the kernel log in
 * /proc/kmemprof's layout, each with its oom_report_owners largest owners
 * while owners are on (owners.c), so that what held the memory is on the
 * console even if the board does not live long enough for a read of
 * /proc/kmemprof. oom_report=0 turns it off.
 *
 * Which OOMs (Documentation/kmemprof.rst, "The OOM report"): the
 * mark_victim tracepoint, which mark_oom_victim() fires for every victim
 * of both the global OOM killer and a memory cgroup's (memory.max), once
 * the kill is decided; 6.1 (Debian's 6.1.192 and Rockchip's 6.1.141
 * BSP) and 6.12 have it with (task, uid), older kernels with (pid). A
 * kernel without it gets the OOM notifier (register_oom_notifier()),
 * which out_of_memory() calls for the global OOM alone, before it looks
 * for a victim.
 *
 * Nothing here allocates: the sites, the line and the texts are in static
 * buffers, the tags' texts are the ones made already (a tag not named yet
 * is printed by address), and the tables are read without a lock: the
 * tags' counters as /proc/kmemprof reads them, the owner lines as
 * owners.c's notes say, from a tracepoint probe (an RCU reader) or under
 * rcu_read_lock() (the notifier).
 *
 * Notes on locking: one report at a time (kmp_oom_busy, a flag taken
 * with an atomic exchange: a report that finds it taken is skipped); the
 * kernel runs the OOM killer under its oom_lock anyway. Reports are
 * limited to 10 in 5 s (the kernel's own ratelimit for dump_header()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/oom.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <trace/events/oom.h>

#include <kmemprof/format.h>
#include "internal.h"
#include "options.h"
#include "owners.h"
#include "tags.h"

#define KMP_OOM_OWNERS	3	/* owners shown for each site */

struct kmp_oom_owner {
	u32 owner;
	u64 bytes, objs;
};

struct kmp_oom_site {
	u32 tag;
	struct kmp_totals t;
	struct kmp_oom_owner own[KMP_OOM_OWNERS];
};

static struct kmp_oom_site kmp_oom_top[KMP_OOM_REPORT_MAX];
static char kmp_oom_site_text[KMP_SITE_TEXT_LEN];
static char kmp_oom_buf[KMP_TAG_TEXT_LEN + 256];
static char kmp_oom_owner[KMP_OWNER_TEXT_LEN];
static struct seq_file kmp_oom_seq;
static atomic_t kmp_oom_busy;
static DEFINE_RATELIMIT_STATE(kmp_oom_rs, 5 * HZ, 10);
static struct tracepoint *kmp_oom_tp;
static bool kmp_oom_nb_on;

/* The @n largest tags by live bytes, into kmp_oom_top[]: how many. */
static unsigned int kmp_oom_pick(unsigned int n)
{
	u32 used = kmp_tags_used(), idx;
	unsigned int got = 0, i;
	struct kmp_totals t;

	for (idx = 0; idx < used; idx++) {
		if (!kmp_tag_ready(idx))
			continue;
		kmp_tag_totals(idx, &t);
		if (!t.live_bytes ||
		    (got == n && t.live_bytes <= kmp_oom_top[n - 1].t.live_bytes))
			continue;
		i = got < n ? got++ : n - 1;
		for (; i && kmp_oom_top[i - 1].t.live_bytes < t.live_bytes; i--)
			kmp_oom_top[i] = kmp_oom_top[i - 1];
		kmp_oom_top[i].tag = idx;
		kmp_oom_top[i].t = t;
		memset(kmp_oom_top[i].own, 0, sizeof(kmp_oom_top[i].own));
	}
	return got;
}

/* Each site's largest owners, from one walk of the lines. */
static void kmp_oom_owners(unsigned int got)
{
	u32 used = kmp_olines_used(), idx;
	unsigned int r, i;

	for (idx = 1; idx < used; idx++) {
		const struct kmp_oline *l = kmp_oline_at(idx);
		struct kmp_oom_owner *own;
		s64 bytes;

		if (!l)
			continue;
		for (r = 0; r < got && kmp_oom_top[r].tag != l->tag; r++)
			;
		bytes = atomic64_read(&l->bytes);
		if (r == got || bytes <= 0)
			continue;
		own = kmp_oom_top[r].own;
		if ((u64)bytes <= own[KMP_OOM_OWNERS - 1].bytes)
			continue;
		for (i = KMP_OOM_OWNERS - 1; i && own[i - 1].bytes < bytes; i--)
			own[i] = own[i - 1];
		own[i].owner = l->owner;
		own[i].bytes = bytes;
		own[i].objs = max_t(s64, atomic64_read(&l->objs), 0);
	}
}

/* A tag's text as made already (tags.c), or its address. */
static const char *kmp_oom_text(const struct kmp_text *t, size_t *len,
				const char *fallback)
{
	if (t) {
		*len = t->len;
		return t->str;
	}
	*len = strlen(fallback);
	return fallback;
}

static void kmp_oom_site(const struct kmp_oom_site *s)
{
	struct kmp_tag *tag = kmp_tag_at(s->tag);
	struct kmp_proc_line l = { .t = &s->t };
	unsigned int i;

	/* pairs with the release in kmp_tag_text() (tags.c) */
	const struct kmp_text *text = smp_load_acquire(&tag->text);
	/* the same */
	const struct kmp_text *ctext = smp_load_acquire(&tag->ctext);

	if (!text)
		scnprintf(kmp_oom_site_text, sizeof(kmp_oom_site_text),
			  "%pS func:?", (void *)tag->site);
	l.site = kmp_oom_text(text, &l.site_len, kmp_oom_site_text);
	l.callers = kmp_oom_text(tag->ncallers ? ctext : NULL,
				 &l.callers_len, "");
	l.kind = kmp_kind_name(tag->kind);
	l.kind_len = strlen(l.kind);
	l.flags = READ_ONCE(tag->flags);
	kmp_oom_seq.buf = kmp_oom_buf;
	kmp_oom_seq.size = sizeof(kmp_oom_buf);
	kmp_oom_seq.count = 0;
	kmp_proc_put(&kmp_oom_seq, &l);
	if (kmp_oom_seq.count >= kmp_oom_seq.size)	/* did not fit */
		pr_warn("%12llu %8llu %.*s\n", s->t.live_bytes, s->t.live_objs,
			(int)l.site_len, l.site);
	else
		pr_warn("%.*s", (int)kmp_oom_seq.count, kmp_oom_buf);
	for (i = 0; i < KMP_OOM_OWNERS && s->own[i].bytes; i++) {
		const struct kmp_owner *o = kmp_owner_at(s->own[i].owner);

		if (!o)
			continue;
		kmp_owner_text(o, kmp_oom_owner, sizeof(kmp_oom_owner));
		pr_warn("%12llu %8llu  %s\n", s->own[i].bytes,
			s->own[i].objs, kmp_oom_owner);
	}
}

/* The report; in the OOM killer's context, allocating nothing. */
static void kmp_oom_report_now(void)
{
	unsigned int n = min_t(unsigned int, READ_ONCE(kmp_oom_report),
			       KMP_OOM_REPORT_MAX);
	unsigned int mode = READ_ONCE(kmp_mode), got, i;

	if (!n || atomic_xchg(&kmp_oom_busy, 1))
		return;
	if (!__ratelimit(&kmp_oom_rs))
		goto out;
	got = kmp_oom_pick(n);
	if (mode & KMP_M_OWNERS)
		kmp_oom_owners(got);
	pr_warn("%s: the %u largest sites by live bytes%s\n", KMP_OOM_HEADER,
		got, (mode & KMP_M_OWNERS) ? ", with their largest owners" :
		", owners off");
	for (i = 0; i < got; i++)
		kmp_oom_site(&kmp_oom_top[i]);
	pr_warn("%s: end\n", KMP_OOM_HEADER);
out:
	atomic_set_release(&kmp_oom_busy, 0);
}

/* mark_victim's prototype: (task, uid) from 6.8 and in 6.1.y, else (pid). */
#define KMP_VICTIM_IS(args...)						\
	__builtin_types_compatible_p(					\
		typeof(check_trace_callback_type_mark_victim),		\
		void (void (*)(void *, args)))

static void notrace __maybe_unused
kmp_probe_victim_task(void *data, struct task_struct *task, uid_t uid)
{
	kmp_oom_report_now();
}

static void notrace __maybe_unused kmp_probe_victim_pid(void *data, int pid)
{
	kmp_oom_report_now();
}

#define KMP_VICTIM_PROBE						\
	__builtin_choose_expr(KMP_VICTIM_IS(struct task_struct *, uid_t), \
			      (void *)kmp_probe_victim_task,		\
			      (void *)kmp_probe_victim_pid)

static_assert(KMP_VICTIM_IS(struct task_struct *, uid_t) ||
	      KMP_VICTIM_IS(int),
	      "mark_victim has a prototype kmemprof does not know");

static int kmp_oom_notify(struct notifier_block *nb, unsigned long v,
			  void *freed)
{
	rcu_read_lock();	/* the lines' walk: owners.c's notes */
	kmp_oom_report_now();
	rcu_read_unlock();
	return NOTIFY_OK;
}

static struct notifier_block kmp_oom_nb = {
	.notifier_call = kmp_oom_notify,
};

static void kmp_oom_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mark_victim") &&
	    !kmp_test_missing(tp->name))
		kmp_oom_tp = tp;
}

int kmp_oom_init(void)
{
	int ret;

	for_each_kernel_tracepoint(kmp_oom_find, NULL);
	if (kmp_oom_tp) {
		ret = tracepoint_probe_register(kmp_oom_tp, KMP_VICTIM_PROBE,
						NULL);
		if (!ret)
			return 0;
		kmp_oom_tp = NULL;
	}
	pr_info("tracepoint mark_victim not found: the OOM report covers the global OOM killer alone\n");
	ret = register_oom_notifier(&kmp_oom_nb);
	kmp_oom_nb_on = !ret;
	return ret;
}

void kmp_oom_exit(void)
{
	if (kmp_oom_tp) {
		tracepoint_probe_unregister(kmp_oom_tp, KMP_VICTIM_PROBE, NULL);
		tracepoint_synchronize_unregister();
		kmp_oom_tp = NULL;
	}
	if (kmp_oom_nb_on)
		unregister_oom_notifier(&kmp_oom_nb);
	kmp_oom_nb_on = false;
}
