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
 *   owners   task|cgroup|0       charge allocations to their owners
 *   oom_report   0..64           sites in the OOM report (0: none)
 *
 * Writes need CAP_SYS_ADMIN. A write is parsed whole, from offset 0: bad
 * input of any kind (empty, negative, too large, hex, trailing garbage,
 * unknown names, a write at another offset) is refused with -EINVAL and
 * changes nothing. Reads go through the kernel's own proc_do*() helpers.
 *
 * The unsigned knobs' files are made from the knob table (knobs.c), which
 * has their ranges; enabled, events and reset have handlers of their own.
 *
 * Notes on locking: the handlers change state only through control.c,
 * under its mutex, or by one WRITE_ONCE() of a knob's variable.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include <kmemprof/knobs.h>

#include "internal.h"
#include "options.h"

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

/* An unsigned knob of the table (knobs.c), which is in table->extra1. */
static int kmp_uint_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			    size_t *lenp, loff_t *ppos)
{
	const struct kmp_knob *k = table->extra1;
	unsigned int val;
	int ret;

	if (!write)
		return kmp_read_int(table, buffer, lenp, ppos,
				    READ_ONCE(*k->var));
	ret = kmp_knob_uint(buffer, *lenp, ppos, k->max, &val);
	if (!ret)
		ret = kmp_knob_set(k, val);
	if (!ret)
		*ppos += *lenp;
	return ret;
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
		ret = kmemprof_parse_events(buf, &kinds);
	/* A kind whose tracepoints this kernel lacks cannot be asked for. */
	if (!ret && (kinds & ~kmp_probes_avail()))
		ret = -EINVAL;
	if (!ret)
		ret = kmemprof_set_events(kinds);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

static int kmp_owners_handler(KMP_CTL_TABLE *table, int write, void *buffer,
			      size_t *lenp, loff_t *ppos)
{
	char buf[KMP_KNOB_MAX];
	unsigned int val;
	int ret;

	if (!write) {
		struct ctl_table t = *table;

		strscpy(buf, kmp_owners_name(READ_ONCE(kmp_owners)),
			sizeof(buf));
		t.data = buf;
		t.maxlen = sizeof(buf);
		return proc_dostring(&t, 0, buffer, lenp, ppos);
	}
	ret = kmp_knob_input(buf, buffer, *lenp, ppos);
	if (!ret)
		ret = kmp_parse_owners(buf, &val);
	if (!ret)
		ret = kmemprof_set_owners(val);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

/* The knobs that are not numbers; the table's follow them. */
static const struct ctl_table kmp_sysctl_state[] = {
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
	{
		.procname	= "owners",
		.mode		= 0600,
		.proc_handler	= kmp_owners_handler,
	},
};

static struct ctl_table *kmp_sysctls;
static struct ctl_table_header *kmp_sysctl_header;

/* The files: the state knobs, then every KMP_KNOB_SYSCTL entry of the table. */
int kmp_sysctl_init(void)
{
	const unsigned int nstate = ARRAY_SIZE(kmp_sysctl_state);
	const struct kmp_knob *k;
	unsigned int n = nstate;

	/* One entry more, zeroed: the terminator before 6.6. */
	kmp_sysctls = kcalloc(nstate + (kmp_knobs_end - kmp_knobs) + 1,
			      sizeof(*kmp_sysctls), GFP_KERNEL);
	if (!kmp_sysctls)
		return -ENOMEM;
	memcpy(kmp_sysctls, kmp_sysctl_state, sizeof(kmp_sysctl_state));
	for (k = kmp_knobs; k < kmp_knobs_end; k++) {
		if (!(k->where & KMP_KNOB_SYSCTL))
			continue;
		kmp_sysctls[n] = (struct ctl_table) {
			.procname	= k->name,
			.data		= k->var,
			.maxlen		= sizeof(unsigned int),
			.mode		= 0600,
			.proc_handler	= kmp_uint_handler,
			.extra1		= (void *)k,
		};
		n++;
	}
	kmp_sysctl_header = kmp_register_sysctl("kmemprof", kmp_sysctls, n);
	if (!kmp_sysctl_header) {
		kfree(kmp_sysctls);
		return -ENOMEM;
	}
	return 0;
}

void kmp_sysctl_exit(void)
{
	unregister_sysctl_table(kmp_sysctl_header);
	kfree(kmp_sysctls);
}
