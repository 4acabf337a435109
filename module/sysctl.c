// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the knobs under /proc/sys/kmemprof/.
 *
 *   enabled  0|1                 attach or detach every probe
 *   events   slab,page,percpu    which kinds are traced ("none" for none)
 *   reset    write 1             zero every counter and the live table
 *   leak_age_ms  0..2^31-1       age from which live objects are leak suspects
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

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

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

static int kmp_leak_age_handler(KMP_CTL_TABLE *table, int write, void *buffer,
				size_t *lenp, loff_t *ppos)
{
	unsigned int val;
	int ret;

	if (!write)
		return kmp_read_int(table, buffer, lenp, ppos,
				    READ_ONCE(kmp_leak_age_ms));
	ret = kmp_knob_uint(buffer, *lenp, ppos, INT_MAX, &val);
	if (!ret) {
		WRITE_ONCE(kmp_leak_age_ms, val);
		*ppos += *lenp;
	}
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
	{
		.procname	= "leak_age_ms",
		.mode		= 0600,
		.proc_handler	= kmp_leak_age_handler,
	},
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

/* For the KUnit suites: the parser behind the events knob. */
int kmemprof_parse_events(const char *s, unsigned int *kinds)
{
	char buf[KMP_KNOB_MAX];

	if (strscpy(buf, s, sizeof(buf)) < 0)
		return -EINVAL;
	return kmp_parse_kinds(buf, kinds);
}
EXPORT_SYMBOL_GPL(kmemprof_parse_events);
