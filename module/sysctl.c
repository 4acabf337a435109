// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the knobs under /proc/sys/kmemprof/.
 *
 *   enabled  0|1                 attach or detach every probe
 *   events   slab,page,percpu    which kinds are traced ("none" for none)
 *   reset    write 1             zero every counter and the live table
 *   leak_age_ms  0..2^31-1       age from which live objects are leak suspects
 *   stack_depth  0..16           frames in a sampled stack (0: no stacks)
 *   stack_sample 1..2^31-1       one allocation in N has its stack saved
 *   key_depth    0..4            callers in a tag's key (0: call site only)
 *   sample_rate  1..2^31-1       one allocation in N is tracked live
 *   min_size, max_size           slab allocations outside are not traced
 *                                (max_size 0: no upper bound)
 *   hist         0|1             size, lifetime and cross-CPU histograms
 *   lifetimes    0|1             allocation times, for ages and leaks
 *   self_timing  0|1             time one probe in 1024 (probe.* in stats)
 *
 * Writes need CAP_SYS_ADMIN. A write is parsed whole, from offset 0: bad
 * input of any kind (empty, negative, too large, hex, trailing garbage,
 * unknown names, a write at another offset) is refused with -EINVAL and
 * changes nothing. Reads go through the kernel's own proc_do*() helpers.
 *
 * Notes on locking: the handlers change state only through control.c,
 * under its mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include "internal.h"

/* Longest accepted write: "slab,page,percpu\n" and a little slack. */
#define KMP_KNOB_MAX	32

/* Copy a whole write into @buf as a string, or refuse it. */
static int kmp_knob_input(char *buf, const void *buffer, size_t len,
			  loff_t *ppos)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (*ppos || len == 0 || len >= KMP_KNOB_MAX)
		return -EINVAL;
	memcpy(buf, buffer, len);
	buf[len] = '\0';
	return 0;
}

/* A decimal in [0, max], with at most one trailing newline. */
static int kmp_knob_uint(const void *buffer, size_t len, loff_t *ppos,
			 unsigned int max, unsigned int *val)
{
	char buf[KMP_KNOB_MAX];
	int ret = kmp_knob_input(buf, buffer, len, ppos);

	if (ret)
		return ret;
	if (kstrtouint(buf, 10, val) || *val > max)
		return -EINVAL;
	return 0;
}

static int kmp_read_int(KMP_CTL_TABLE *table, void *buffer, size_t *lenp,
			loff_t *ppos, int val)
{
	struct ctl_table t = *table;

	t.data = &val;
	t.maxlen = sizeof(val);
	return proc_dointvec(&t, 0, buffer, lenp, ppos);
}

static int kmp_enabled_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			       size_t *lenp, loff_t *ppos)
{
	unsigned int val;
	int ret;

	if (!write)
		return kmp_read_int(table, buffer, lenp, ppos,
				    kmemprof_is_enabled());
	ret = kmp_knob_uint(buffer, *lenp, ppos, 1, &val);
	if (!ret)
		ret = kmemprof_set_enabled(val);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

static int kmp_reset_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			     size_t *lenp, loff_t *ppos)
{
	unsigned int val;
	int ret;

	if (!write)
		return kmp_read_int(table, buffer, lenp, ppos, 0);
	ret = kmp_knob_uint(buffer, *lenp, ppos, 1, &val);
	if (!ret && val != 1)
		ret = -EINVAL;
	if (!ret)
		ret = kmemprof_reset();
	if (!ret)
		*ppos += *lenp;
	return ret;
}

unsigned int kmp_leak_age_ms = 10000;
unsigned int kmp_stack_depth;
unsigned int kmp_stack_sample = 1;
unsigned int kmp_key_depth;
unsigned int kmp_sample_rate = 1;
unsigned int kmp_min_size;
unsigned int kmp_max_size;
unsigned int kmp_hist_on;
unsigned int kmp_life_on;
unsigned int kmp_timing_on;

static unsigned int kmp_zero;
static unsigned int kmp_one = 1;
static unsigned int kmp_int_max = INT_MAX;
static unsigned int kmp_stack_max = KMP_STACK_DEPTH_MAX;
static unsigned int kmp_key_max = KMP_KEY_DEPTH_MAX;

/* Whether @val may go into @data: min_size never above a set max_size. */
static bool kmp_uint_consistent(const unsigned int *data, unsigned int val)
{
	if (data == &kmp_min_size)
		return !READ_ONCE(kmp_max_size) || val <= READ_ONCE(kmp_max_size);
	if (data == &kmp_max_size)
		return !val || val >= READ_ONCE(kmp_min_size);
	return true;
}

static int kmp_uint_set(KMP_CTL_TABLE *table, unsigned int val)
{
	unsigned int *data = table->data;

	if (val < *(unsigned int *)table->extra1 ||
	    val > *(unsigned int *)table->extra2 ||
	    !kmp_uint_consistent(data, val))
		return -EINVAL;
	if (data == &kmp_sample_rate)
		return kmemprof_set_sample_rate(val);
	if (data == &kmp_leak_age_ms) {
		WRITE_ONCE(*data, val);
		return 0;
	}
	return kmemprof_set_option(data, val);
}

/* An unsigned knob in [*extra1, *extra2], read on the allocation path. */
static int kmp_uint_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			    size_t *lenp, loff_t *ppos)
{
	unsigned int *data = table->data, val;
	int ret;

	if (!write)
		return kmp_read_int(table, buffer, lenp, ppos, READ_ONCE(*data));
	ret = kmp_knob_uint(buffer, *lenp, ppos,
			    *(unsigned int *)table->extra2, &val);
	if (!ret)
		ret = kmp_uint_set(table, val);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

/* "slab,page,percpu", any subset in any order, or "none". */
static int kmp_parse_kinds(char *s, unsigned int *kinds)
{
	char *tok;
	int k;

	*kinds = 0;
	s = strim(s);
	if (!strcmp(s, "none"))
		return 0;
	while ((tok = strsep(&s, ","))) {
		for (k = 0; k < KMP_KIND_NR; k++)
			if (!strcmp(tok, kmp_kind_name(k)))
				break;
		if (k == KMP_KIND_NR || (*kinds & BIT(k)))
			return -EINVAL;
		*kinds |= BIT(k);
	}
	return 0;
}

static void kmp_format_kinds(char *buf, size_t len, unsigned int kinds)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < KMP_KIND_NR; k++)
		if (kinds & BIT(k))
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       kmp_kind_name(k));
	if (!n)
		strscpy(buf, "none", len);
}

static int kmp_events_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			      size_t *lenp, loff_t *ppos)
{
	char buf[KMP_KNOB_MAX];
	unsigned int kinds;
	int ret;

	if (!write) {
		struct ctl_table t = *table;

		kmp_format_kinds(buf, sizeof(buf), kmemprof_events());
		t.data = buf;
		t.maxlen = sizeof(buf);
		return proc_dostring(&t, 0, buffer, lenp, ppos);
	}
	ret = kmp_knob_input(buf, buffer, *lenp, ppos);
	if (!ret)
		ret = kmp_parse_kinds(buf, &kinds);
	/* A kind whose tracepoints this kernel lacks cannot be asked for. */
	if (!ret && (kinds & ~kmp_probes_avail()))
		ret = -EINVAL;
	if (!ret)
		ret = kmemprof_set_events(kinds);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

static struct ctl_table kmp_sysctls[] = {
	{
		.procname	= "enabled",
		.mode		= 0600,
		.proc_handler	= kmp_enabled_handler,
	},
	{
		.procname	= "events",
		.mode		= 0600,
		.proc_handler	= kmp_events_handler,
	},
	{
		.procname	= "reset",
		.mode		= 0600,
		.proc_handler	= kmp_reset_handler,
	},
#define KMP_UINT_KNOB(name, var, min, max) {			\
		.procname	= name,					\
		.data		= &(var),				\
		.maxlen		= sizeof(unsigned int),			\
		.mode		= 0600,					\
		.proc_handler	= kmp_uint_handler,			\
		.extra1		= &(min),				\
		.extra2		= &(max),				\
	}
	KMP_UINT_KNOB("leak_age_ms", kmp_leak_age_ms, kmp_zero, kmp_int_max),
	KMP_UINT_KNOB("stack_depth", kmp_stack_depth, kmp_zero, kmp_stack_max),
	KMP_UINT_KNOB("stack_sample", kmp_stack_sample, kmp_one, kmp_int_max),
	KMP_UINT_KNOB("key_depth", kmp_key_depth, kmp_zero, kmp_key_max),
	KMP_UINT_KNOB("sample_rate", kmp_sample_rate, kmp_one, kmp_int_max),
	KMP_UINT_KNOB("min_size", kmp_min_size, kmp_zero, kmp_int_max),
	KMP_UINT_KNOB("max_size", kmp_max_size, kmp_zero, kmp_int_max),
	KMP_UINT_KNOB("hist", kmp_hist_on, kmp_zero, kmp_one),
	KMP_UINT_KNOB("lifetimes", kmp_life_on, kmp_zero, kmp_one),
	KMP_UINT_KNOB("self_timing", kmp_timing_on, kmp_zero, kmp_one),
	KMP_CTL_TERMINATOR
};

static struct ctl_table_header *kmp_sysctl_header;

int kmp_sysctl_init(void)
{
	kmp_sysctl_header = register_sysctl("kmemprof", kmp_sysctls);
	return kmp_sysctl_header ? 0 : -ENOMEM;
}

void kmp_sysctl_exit(void)
{
	unregister_sysctl_table(kmp_sysctl_header);
}

/* For the KUnit suites: set an unsigned knob as a write to it would. */
int kmemprof_set_knob(const char *name, unsigned int val)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmp_sysctls); i++)
		if (kmp_sysctls[i].procname &&
		    kmp_sysctls[i].proc_handler == kmp_uint_handler &&
		    !strcmp(kmp_sysctls[i].procname, name))
			return kmp_uint_set(&kmp_sysctls[i], val);
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(kmemprof_set_knob);

/* For the KUnit suites: the parser behind the events knob. */
int kmemprof_parse_events(const char *s, unsigned int *kinds)
{
	char buf[KMP_KNOB_MAX];

	if (strscpy(buf, s, sizeof(buf)) < 0)
		return -EINVAL;
	return kmp_parse_kinds(buf, kinds);
}
EXPORT_SYMBOL_GPL(kmemprof_parse_events);
