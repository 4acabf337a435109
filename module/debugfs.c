// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the debugfs views under /sys/kernel/debug/kmemprof/, all root
 * only. Their formats are the contract in Documentation/kmemprof.rst:
 *
 *   stats   self-statistics, "key value" per line
 *   hist    size, requested-size and lifetime histograms per tag and kind,
 *           cross-CPU and cross-cluster frees, live fragmentation
 *   ages    the live objects of each tag, by age
 *   leaks   tags with objects live longer than leak_age_ms, oldest first
 *   cpus    allocations and frees per CPU, with its cluster
 *   stacks  the top sampled stacks of each tag
 *   owners  live bytes and objects per (site, owner), while owners are on
 *
 * hist, ages, leaks and the cpus view's remote and xcluster columns need
 * data that is kept only while the hist or lifetimes knob is on; while it
 * is off, the view says so in a '#' line and prints no numbers for it.
 *
 * Notes on locking: hist and cpus read per-CPU counters and take no lock.
 * ages and leaks walk the live table through kmp_live_walk() into a
 * buffer allocated for the read, under kmp_walk_views()'s kmp_control_lock,
 * so that a reset cannot empty the table under the walk.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include <kmemprof/format.h>
#include "fmt.h"
#include "hist.h"
#include "internal.h"
#include "options.h"
#include "owners.h"
#include "paths.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"

static struct dentry *kmp_debugfs_dir;

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int kinds = kmemprof_events();
	enum kmp_event ev;
	enum kmp_stat st;
	int k, n = 0;

	seq_printf(m, "enabled %d\n", kmemprof_is_enabled());
	seq_puts(m, "events ");
	for (k = 0; k < KMP_KIND_NR; k++)
		if (kinds & BIT(k))
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_kind_name(k));
	seq_puts(m, n ? "\n" : "none\n");
	seq_puts(m, "unavailable ");
	for (k = 0, n = 0; k < KMP_KIND_NR; k++)
		if (!(kmp_probes_avail() & BIT(k)))
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_kind_name(k));
	seq_puts(m, n ? "\n" : "none\n");
	kmp_hooks_show(m);
	for (ev = 0; ev < KMP_EV_NR; ev++)
		seq_printf(m, "events.%s %llu\n", kmemprof_event_name(ev),
			   kmemprof_event_count(ev));
	for (st = 0; st < KMP_ST_NR; st++)
		seq_printf(m, "%s %llu\n", kmp_stat_name(st), kmp_stat_read(st));
	seq_printf(m, "tags.used %u\n", kmp_tags_used());
	seq_printf(m, "tags.max %u\n", kmp_max_tags);
	seq_printf(m, "tags.bytes %zu\n", kmp_tags_memory());
	seq_printf(m, "sites.used %u\n", kmp_sites_count());
	seq_printf(m, "tags.unnamed %u\n", kmp_tags_unnamed());
	seq_printf(m, "tags.naming_ns %llu\n", kmp_tags_naming_ns());
	seq_printf(m, "live.used %u\n", kmp_live_used());
	seq_printf(m, "live.max %u\n", kmp_max_live);
	seq_printf(m, "live.grown %u\n", kmp_live_grown());
	seq_printf(m, "live.grow_max %u\n", kmp_live_grow_max());
	seq_printf(m, "live.bytes %zu\n", kmp_live_memory());
	seq_printf(m, "hist.used %u\n", kmp_hist_used());
	seq_printf(m, "hist.max %u\n", kmp_max_hist);
	seq_printf(m, "hist.bytes %zu\n", kmp_hist_memory());
	seq_printf(m, "stacks.used %u\n", kmp_stacks_used());
	seq_printf(m, "stacks.max %u\n", kmp_max_stacks);
	seq_printf(m, "stacks.bytes %zu\n", kmp_stacks_memory());
	seq_printf(m, "pfnmap.bytes %zu\n", kmp_pfnmap_memory());
	seq_printf(m, "percpu.bytes %zu\n", kmp_cpu_bufs_memory());
	seq_printf(m, "memory.bytes %zu\n", kmp_self_memory());
	/* Self-timing is opt-in: no numbers that were never measured. */
	if (READ_ONCE(kmp_timing_on) || kmp_probe_samples()) {
		seq_printf(m, "probe.samples %llu\n", kmp_probe_samples());
		seq_printf(m, "probe.ns_per_event %llu\n", kmp_probe_ns());
	}
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, inode->i_private);
}

/*
 * stats is read through read_iter, not read, so that kernel_read() can
 * read it (the benchmark waits on tags.unnamed with it). debugfs's full proxy has no
 * read_iter, so stats is made with debugfs_create_file_unsafe(): what the
 * proxy guards against, a read running into the file's removal, cannot
 * happen, since an open file holds the module (.owner) and the view's data
 * lives as long as the module.
 */
static const struct file_operations stats_fops = {
	.owner		= THIS_MODULE,
	.open		= stats_open,
	.read_iter	= seq_read_iter,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static void kmp_put_buckets(struct seq_file *m, const char *key,
			    const u64 *v, unsigned int n)
{
	unsigned int i;

	seq_printf(m, " %s:", key);
	for (i = 0; i < n; i++)
		seq_printf(m, i ? ",%llu" : "%llu", v[i]);
}

static void kmp_put_hist(struct seq_file *m, const struct kmp_hist_totals *h)
{
	kmp_put_buckets(m, "size", h->size, KMP_SIZE_BUCKETS);
	kmp_put_buckets(m, "req", h->req, KMP_SIZE_BUCKETS);
	kmp_put_buckets(m, "life", h->life, KMP_LIFE_BUCKETS);
	seq_printf(m, " xcpu:%llu xcluster:%llu", h->xcpu, h->xcluster);
}

struct kmp_view_iter {
	char text[KMP_TAG_TEXT_LEN];
};

/*
 * hist: positions 0..KMP_KIND_NR are the header and one "all" line per
 * kind; then one position per tag.
 */
static void *hist_seek(loff_t pos)
{
	if (pos <= KMP_KIND_NR)
		return (void *)(uintptr_t)(pos + 1);
	if (pos - KMP_KIND_NR > kmp_tags_used())
		return NULL;
	return kmp_tag_at(pos - KMP_KIND_NR - 1);
}

static void *hist_start(struct seq_file *m, loff_t *pos)
{
	return hist_seek(*pos);
}

static void *hist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return hist_seek(++*pos);
}

static void hist_stop(struct seq_file *m, void *v)
{
}

/* The histograms of all the tags of @kind that have them, summed. */
static void hist_kind_sum(enum kmp_kind kind, struct kmp_hist_totals *t)
{
	struct kmp_hist_totals *one = kmalloc(sizeof(*one), GFP_KERNEL);
	u64 *out = (u64 *)t, *in = (u64 *)one;
	u32 idx, used = kmp_tags_used();
	unsigned int f;

	memset(t, 0, sizeof(*t));
	if (!one)
		return;
	for (idx = 0; idx < used; idx++) {
		const struct kmp_tag *tag = kmp_tag_at(idx);

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    !kmp_hist_sum(kmp_tag_hist(tag), one))
			continue;
		for (f = 0; f < KMP_HIST_N; f++)
			out[f] += in[f];
	}
	kfree(one);
}

static void hist_all(struct seq_file *m, enum kmp_kind kind)
{
	u64 live_bytes = 0, live_req = 0;
	struct kmp_hist_totals h;
	struct kmp_totals t;
	u32 idx;

	for (idx = 0; idx < kmp_tags_used(); idx++) {
		if (!kmp_tag_ready(idx) || kmp_tag_at(idx)->kind != kind)
			continue;
		kmp_tag_totals(idx, &t);
		live_bytes += t.live_bytes;
		live_req += t.live_req;
	}
	hist_kind_sum(kind, &h);
	seq_printf(m, "all kind:%s", kmp_kind_name(kind));
	kmp_put_hist(m, &h);
	kmp_put_frag(m, live_bytes, live_req);
	seq_putc(m, '\n');
}

static int hist_show(struct seq_file *m, void *v)
{
	struct kmp_view_iter *it = m->private;
	struct kmp_hist_totals h;
	struct kmp_totals t;
	struct kmp_tag *tag;
	u32 idx;

	if ((uintptr_t)v == 1) {
		seq_puts(m, KMP_HIST_HEADER KMP_HIST_COLUMNS);
		if (!READ_ONCE(kmp_hist_on))
			seq_puts(m, KMP_HIST_OFF);
		return 0;
	}
	/* Nothing was ever counted: no lines of zeros. */
	if (!kmp_hist_used())
		return 0;
	if ((uintptr_t)v <= KMP_KIND_NR + 1) {
		hist_all(m, (uintptr_t)v - 2);
		return 0;
	}
	tag = v;
	idx = kmp_tag_index(tag);
	if (!kmp_tag_ready(idx) || !kmp_hist_sum(kmp_tag_hist(tag), &h))
		return 0;
	kmp_tag_totals(idx, &t);
	kmp_seq_tag_name(m, tag, it->text);
	kmp_put_hist(m, &h);
	kmp_put_frag(m, t.live_bytes, t.live_req);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations hist_sops = {
	.start = hist_start,
	.next = hist_next,
	.stop = hist_stop,
	.show = hist_show,
};

static int hist_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &hist_sops,
				sizeof(struct kmp_view_iter));
}

static const struct file_operations hist_fops = {
	.owner = THIS_MODULE,
	.open = hist_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/* ages and leaks: one walk of the live table into per-tag accumulators. */
#define KMP_LEAK_SAMPLES	5

struct kmp_leak_sample {
	unsigned long key;
	u64 time;
	u32 size;
	u16 cpu;
};

struct kmp_acc {
	u64 objs;
	u64 bytes;
	u32 age[KMP_LIFE_BUCKETS];
	struct kmp_leak_sample oldest[KMP_LEAK_SAMPLES];
	unsigned int nsamples;
};

struct kmp_walk {
	struct kmp_acc *acc;
	u32 ntags;
	u64 now;
	u64 min_age;	/* leaks only */
	bool leaks;
};

static void kmp_walk_one(unsigned long key, const struct kmp_obj *obj,
			 void *priv)
{
	struct kmp_walk *w = priv;
	u64 age = w->now > obj->time ? w->now - obj->time : 0;
	struct kmp_acc *a;
	unsigned int i;

	/* An object allocated while lifetimes were off has no time. */
	if (!obj->time || obj->tag >= w->ntags ||
	    (w->leaks && age < w->min_age))
		return;
	a = &w->acc[obj->tag];
	a->objs++;
	a->bytes += obj->size;
	if (!w->leaks) {
		a->age[kmp_life_bucket(age)]++;
		return;
	}
	/* Keep the oldest few, oldest first. */
	for (i = a->nsamples; i > 0 && a->oldest[i - 1].time > obj->time; i--)
		if (i < KMP_LEAK_SAMPLES)
			a->oldest[i] = a->oldest[i - 1];
	if (i < KMP_LEAK_SAMPLES) {
		a->oldest[i] = (struct kmp_leak_sample) {
			.key = key, .time = obj->time,
			.size = obj->size, .cpu = obj->cpu,
		};
		a->nsamples = min(a->nsamples + 1, KMP_LEAK_SAMPLES);
	}
}

static struct kmp_acc *kmp_walk_live(bool leaks, u32 *ntags)
{
	struct kmp_walk w = {
		.ntags = kmp_tags_used(),
		.leaks = leaks,
		.min_age = (u64)READ_ONCE(kmp_leak_age_ms) * NSEC_PER_MSEC,
	};

	w.acc = vzalloc(array_size(w.ntags ?: 1, sizeof(*w.acc)));
	if (!w.acc)
		return NULL;
	w.now = kmp_now();
	if (kmp_walk_views(kmp_walk_one, &w)) {
		vfree(w.acc);
		return NULL;
	}
	*ntags = w.ntags;
	return w.acc;
}

static int ages_show(struct seq_file *m, void *v)
{
	char *text = kmalloc(KMP_TAG_TEXT_LEN, GFP_KERNEL);
	struct kmp_acc *acc;
	u64 age[KMP_LIFE_BUCKETS];
	unsigned int b;
	u32 idx, n;

	acc = kmp_walk_live(false, &n);
	if (!acc || !text) {
		vfree(acc);
		kfree(text);
		return -ENOMEM;
	}
	seq_puts(m, KMP_AGES_HEADER KMP_AGES_COLUMNS);
	if (!(READ_ONCE(kmp_mode) & (KMP_M_LIFE | KMP_M_HIST)))
		seq_puts(m, KMP_LIFE_OFF);
	for (idx = 0; idx < n; idx++) {
		if (!acc[idx].objs || !kmp_tag_ready(idx))
			continue;
		seq_printf(m, "%llu %llu ", acc[idx].bytes, acc[idx].objs);
		kmp_seq_tag_name(m, kmp_tag_at(idx), text);
		for (b = 0; b < KMP_LIFE_BUCKETS; b++)
			age[b] = acc[idx].age[b];
		kmp_put_buckets(m, "age", age, KMP_LIFE_BUCKETS);
		seq_putc(m, '\n');
	}
	vfree(acc);
	kfree(text);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ages);

static int kmp_cmp_bytes(const void *a, const void *b, const void *priv)
{
	const struct kmp_acc *acc = priv;
	u64 x = acc[*(const u32 *)a].bytes, y = acc[*(const u32 *)b].bytes;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void leaks_sample(struct seq_file *m, const struct kmp_leak_sample *s,
			 u64 now)
{
	u64 age_ms = div_u64(now > s->time ? now - s->time : 0, NSEC_PER_MSEC);

	if (kmp_key_kind(s->key) == KMP_KIND_PAGE)
		seq_printf(m, "  %pK", pfn_to_page(s->key >> 2));
	else
		seq_printf(m, "  %pK", (void *)(s->key & ~3UL));
	seq_printf(m, " size:%u age_ms:%llu cpu:%u\n", s->size, age_ms,
		   s->cpu);
}

static int leaks_show(struct seq_file *m, void *v)
{
	char *text = kmalloc(KMP_TAG_TEXT_LEN, GFP_KERNEL);
	u64 now, objs = 0, bytes = 0;
	u32 idx, n, nsites = 0, i;
	struct kmp_acc *acc;
	u32 *order = NULL;
	unsigned int s;

	acc = kmp_walk_live(true, &n);
	if (acc)
		order = kvmalloc_array(n ?: 1, sizeof(*order), GFP_KERNEL);
	if (!acc || !order || !text) {
		kvfree(order);
		vfree(acc);
		kfree(text);
		return -ENOMEM;
	}
	now = kmp_now();
	for (idx = 0; idx < n; idx++) {
		if (!acc[idx].objs || !kmp_tag_ready(idx))
			continue;
		order[nsites++] = idx;
		objs += acc[idx].objs;
		bytes += acc[idx].bytes;
	}
	sort_r(order, nsites, sizeof(*order), kmp_cmp_bytes, NULL, acc);

	seq_puts(m, KMP_LEAKS_HEADER);
	if (!(READ_ONCE(kmp_mode) & (KMP_M_LIFE | KMP_M_HIST)))
		seq_puts(m, KMP_LIFE_OFF);
	seq_printf(m, "# live longer than %u ms: %llu objects, %llu bytes, %u sites\n",
		   READ_ONCE(kmp_leak_age_ms), objs, bytes, nsites);
	for (i = 0; i < nsites; i++) {
		struct kmp_acc *a = &acc[order[i]];

		seq_printf(m, "%llu %llu ", a->bytes, a->objs);
		kmp_seq_tag_name(m, kmp_tag_at(order[i]), text);
		seq_putc(m, '\n');
		for (s = 0; s < a->nsamples; s++)
			leaks_sample(m, &a->oldest[s], now);
	}
	kvfree(order);
	vfree(acc);
	kfree(text);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(leaks);

/*
 * stacks: for each tag with sampled stacks, by sampled bytes, its top
 * KMP_TOP_STACKS stacks in the layout of perf-prof's kmemprof.
 */
#define KMP_TOP_STACKS	5

struct kmp_stack_group {
	u32 tag;
	u32 first;	/* into the sorted snapshot */
	u32 count;
	u64 allocs;
	u64 bytes;
};

/* A stack record as it was when the view started: reset may move on. */
struct kmp_stack_snap {
	u32 idx;
	u32 tag;
	u64 allocs;
	u64 bytes;
};

static int kmp_cmp_snap(const void *a, const void *b)
{
	const struct kmp_stack_snap *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static int kmp_cmp_group(const void *a, const void *b)
{
	const struct kmp_stack_group *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* The frames of record @idx, or its text if its code went away. */
static void stacks_frames(struct seq_file *m, u32 idx)
{
	const struct kmp_stack *st;
	const char *gone;
	unsigned int f;

	rcu_read_lock();	/* kmp_stacks_reset() waits for us */
	st = kmp_stack_at(idx);
	if (st) {
		/* pairs with the release in kmp_stacks_code_going() */
		gone = smp_load_acquire(&st->gone_text);
		if (gone)
			seq_puts(m, gone);
		for (f = 0; !gone && f < min_t(u32, READ_ONCE(st->depth),
					       KMP_STACK_DEPTH_MAX); f++)
			seq_printf(m, "    %pS\n", (void *)st->frames[f]);
	}
	rcu_read_unlock();
}

static void stacks_group(struct seq_file *m, const struct kmp_stack_group *g,
			 const struct kmp_stack_snap *snap, char *text)
{
	unsigned int i;

	kmp_seq_tag_name(m, kmp_tag_at(g->tag), text);
	seq_printf(m, " stacks:%u allocs:%llu bytes:%llu\n", g->count,
		   g->allocs, g->bytes);
	for (i = 0; i < g->count && i < KMP_TOP_STACKS; i++) {
		const struct kmp_stack_snap *s = &snap[g->first + i];

		seq_printf(m, "Allocate %llu (", s->bytes);
		kmp_put_permille(m, s->bytes, g->bytes);
		seq_printf(m, ") bytes on %llu (", s->allocs);
		kmp_put_permille(m, s->allocs, g->allocs);
		seq_puts(m, ") objects:\n");
		stacks_frames(m, s->idx);
	}
}

static int stacks_show(struct seq_file *m, void *v)
{
	u32 n = kmp_stacks_used(), tags = kmp_tags_used();
	u32 nsnap = 0, ngroups = 0, i;
	struct kmp_stack_group *groups;
	struct kmp_stack_snap *snap;
	char *text;

	snap = kvmalloc_array(n ?: 1, sizeof(*snap), GFP_KERNEL);
	groups = kvmalloc_array(n ?: 1, sizeof(*groups), GFP_KERNEL);
	text = kmalloc(KMP_TAG_TEXT_LEN, GFP_KERNEL);
	if (!snap || !groups || !text)
		goto out;
	for (i = 0; i < n; i++) {
		const struct kmp_stack *st = kmp_stack_at(i);
		struct kmp_stack_snap *s = &snap[nsnap];

		if (!st)
			continue;
		s->idx = i;
		s->tag = READ_ONCE(st->tag);
		s->allocs = atomic64_read(&st->allocs);
		s->bytes = atomic64_read(&st->bytes);
		if (s->tag < tags && kmp_tag_ready(s->tag))
			nsnap++;
	}
	sort(snap, nsnap, sizeof(*snap), kmp_cmp_snap, NULL);
	for (i = 0; i < nsnap; i++) {
		struct kmp_stack_group *g;

		if (!ngroups || groups[ngroups - 1].tag != snap[i].tag) {
			g = &groups[ngroups++];
			*g = (struct kmp_stack_group) {
				.tag = snap[i].tag, .first = i,
			};
		}
		g = &groups[ngroups - 1];
		g->count++;
		g->allocs += snap[i].allocs;
		g->bytes += snap[i].bytes;
	}
	sort(groups, ngroups, sizeof(*groups), kmp_cmp_group, NULL);

	seq_puts(m, KMP_STACKS_HEADER);
	seq_printf(m, "# stack_depth:%u stack_sample:%u stacks:%u tags:%u\n",
		   READ_ONCE(kmp_stack_depth), READ_ONCE(kmp_stack_sample),
		   nsnap, ngroups);
	for (i = 0; i < ngroups; i++)
		stacks_group(m, &groups[i], snap, text);
out:
	kfree(text);
	kvfree(groups);
	kvfree(snap);
	return snap && groups && text ? 0 : -ENOMEM;
}
DEFINE_SHOW_ATTRIBUTE(stacks);

/* Per-CPU breakdown, by the CPU the event ran on. */
struct cpu_totals {
	u64 allocs;
	u64 frees;
	u64 remote;	/* paired frees of objects allocated on another CPU */
	u64 xcluster;	/* ... on another cluster */
};

/*
 * One CPU's share: allocations and frees from every tag's counters, and
 * frees across CPUs and clusters from the tags that have histograms (a
 * count folded at 2^30 keeps no CPU).
 */
static void cpu_totals(int cpu, struct cpu_totals *t)
{
	u32 idx, used = kmp_tags_used();

	memset(t, 0, sizeof(*t));
	for (idx = 0; idx < used; idx++) {
		const struct kmp_counters *c;
		const struct kmp_hist *h;
		u32 slot;

		if (!kmp_tag_ready(idx))
			continue;
		c = per_cpu_ptr(kmp_tag_counters(idx), cpu);
		t->allocs += READ_ONCE(c->allocs);
		t->frees += READ_ONCE(c->frees);
		slot = kmp_tag_hist(kmp_tag_at(idx));
		if (slot == KMP_NIL)
			continue;
		h = per_cpu_ptr(kmp_hist_slot(slot), cpu);
		t->remote += (s32)READ_ONCE(h->xcpu);
		t->xcluster += (s32)READ_ONCE(h->xcluster);
	}
}

static int cpus_show(struct seq_file *m, void *v)
{
	struct cpu_totals t;
	int cpu;

	seq_puts(m, KMP_CPUS_HEADER KMP_CPUS_COLUMNS);
	if (!READ_ONCE(kmp_hist_on))
		seq_puts(m, "# remote, xcluster: counted only with hist on\n");
	for_each_possible_cpu(cpu) {
		cpu_totals(cpu, &t);
		seq_printf(m, "%d %d %llu %llu %llu %llu\n", cpu,
			   kmp_cpu_cluster(cpu), t.allocs, t.frees, t.remote,
			   t.xcluster);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cpus);

/*
 * owners: one line per (tag, owner) with live objects, in allocinfo's
 * layout, while owners are on (owners.c). Lines of owners whose process
 * or cgroup is gone stay until they reach zero; lines at zero are not
 * printed.
 */
struct kmp_owners_show {
	struct seq_file *m;
	char text[KMP_SITE_TEXT_LEN];
	char callers[KMP_CALLERS_TEXT_LEN];
	char owner[KMP_OWNER_TEXT_LEN];
};

static void kmp_owners_line(u32 idx, void *priv)
{
	struct kmp_owners_show *p = priv;
	const struct kmp_oline *l = kmp_oline_at(idx);
	const struct kmp_owner *o;
	struct kmp_tag *tag;
	s64 bytes, objs;

	if (!l)
		return;
	bytes = atomic64_read(&l->bytes);
	objs = atomic64_read(&l->objs);
	if (bytes <= 0 && objs <= 0)
		return;
	o = kmp_owner_at(l->owner);
	if (!o || !kmp_tag_ready(l->tag))
		return;
	tag = kmp_tag_at(l->tag);
	kmp_owner_text(o, p->owner, sizeof(p->owner));
	seq_printf(p->m, "%12lld %8lld %s kind:%s%s allocs:%lld%s\n",
		   max_t(s64, bytes, 0), max_t(s64, objs, 0),
		   kmp_tag_site(tag, p->text, NULL), kmp_kind_name(tag->kind),
		   p->owner, (s64)atomic64_read(&l->allocs),
		   kmp_tag_callers(tag, p->callers, NULL));
}

static int owners_show(struct seq_file *m, void *v)
{
	struct kmp_owners_show *p = kmalloc(sizeof(*p), GFP_KERNEL);
	int ret;

	if (!p)
		return -ENOMEM;
	p->m = m;
	seq_puts(m, KMP_OWNERS_HEADER);
	if (!(READ_ONCE(kmp_mode) & KMP_M_OWNERS)) {
		seq_puts(m, KMP_OWNERS_VIEW_OFF);
		kfree(p);
		return 0;
	}
	seq_puts(m, KMP_OWNERS_COLUMNS);
	ret = kmp_walk_owner_lines(kmp_owners_line, p);
	if (ret == -ENODATA)	/* off since: the lines are gone */
		ret = 0;
	kfree(p);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(owners);

int kmp_debugfs_init(void)
{
	kmp_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("stats", 0400, kmp_debugfs_dir, NULL,
				   &stats_fops);
	debugfs_create_file("hist", 0400, kmp_debugfs_dir, NULL, &hist_fops);
	debugfs_create_file("ages", 0400, kmp_debugfs_dir, NULL, &ages_fops);
	debugfs_create_file("leaks", 0400, kmp_debugfs_dir, NULL,
			    &leaks_fops);
	debugfs_create_file("cpus", 0400, kmp_debugfs_dir, NULL, &cpus_fops);
	debugfs_create_file("stacks", 0400, kmp_debugfs_dir, NULL,
			    &stacks_fops);
	debugfs_create_file("owners", 0400, kmp_debugfs_dir, NULL,
			    &owners_fops);
	kmp_paths_debugfs(kmp_debugfs_dir);
	return 0;
}

void kmp_debugfs_exit(void)
{
	debugfs_remove_recursive(kmp_debugfs_dir);
}
