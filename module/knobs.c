// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the table of unsigned knobs, and the module parameters.
 *
 * Each knob is one entry: its name, its variable, its range and, where a
 * plain store is not enough, its setter. sysctl.c makes the files under
 * /proc/sys/kmemprof/ from the entries marked KMP_KNOB_SYSCTL, of.c reads
 * the device-tree properties of those marked KMP_KNOB_OF, the load checks
 * the ranges of those marked KMP_KNOB_PARAM, and the KUnit suites set
 * knobs through the same kmp_knob_set() a write to the file goes through.
 *
 * enabled, events and reset are not in the table: they are not numbers
 * kept in a variable but state of control.c (sysctl.c has their handlers).
 *
 * Precedence of the boot-time values, highest first: module parameters
 * given at load, the device-tree node, the built-in defaults. Whether a
 * parameter was given is noted by its ops' ->set (kmp_param_given()),
 * which the kernel calls only for the parameters given.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kmemprof/knobs.h>

#include "internal.h"
#include "options.h"
#include "owners.h"
#include "testpoints.h"

#define KMP_MIN_POOL	16
#define KMP_MAX_TAGS	BIT(24)
#define KMP_MAX_LIVE	BIT(28)
#define KMP_LIVE_GROW_MAX	16

/*
 * min_size never above a set max_size, nor max_size below min_size: each
 * is checked against the other under kmp_control_lock, with its store
 * (kmp_set_option_if()), so that two writers cannot both pass their
 * checks and leave the bounds crossed, which would filter out every slab
 * event.
 */
static bool kmp_min_size_ok(unsigned int val)
{
	unsigned int max = READ_ONCE(kmp_max_size);

	if (max && val > max)
		return false;
	kmp_knob_checked("min_size", val);
	return true;
}

static bool kmp_max_size_ok(unsigned int val)
{
	if (val && val < READ_ONCE(kmp_min_size))
		return false;
	kmp_knob_checked("max_size", val);
	return true;
}

static int kmp_set_min_size(unsigned int val)
{
	return kmp_set_option_if(&kmp_min_size, val, kmp_min_size_ok);
}

static int kmp_set_max_size(unsigned int val)
{
	return kmp_set_option_if(&kmp_max_size, val, kmp_max_size_ok);
}

#define KMP_ANY		(KMP_KNOB_SYSCTL | KMP_KNOB_OF)
#define KMP_OPT		(KMP_ANY | KMP_KNOB_MODE)

const struct kmp_knob kmp_knobs[] = {
	/* name		variable	  min  max		setter */
	{ "max_tags",	&kmp_max_tags,	  KMP_MIN_POOL, KMP_MAX_TAGS, NULL,
	  KMP_KNOB_PARAM | KMP_KNOB_OF },
	{ "max_live",	&kmp_max_live,	  KMP_MIN_POOL, KMP_MAX_LIVE, NULL,
	  KMP_KNOB_PARAM | KMP_KNOB_OF },
	{ "live_grow",	&kmp_live_grow,	  0, KMP_LIVE_GROW_MAX, NULL,
	  KMP_KNOB_PARAM | KMP_KNOB_OF },
	{ "max_hist",	&kmp_max_hist,	  0, UINT_MAX,	NULL, KMP_KNOB_PARAM },
	{ "max_stacks",	&kmp_max_stacks,  0, UINT_MAX,	NULL, KMP_KNOB_PARAM },
	{ "leak_age_ms", &kmp_leak_age_ms, 0, INT_MAX,	NULL, KMP_KNOB_SYSCTL },
	{ "stack_depth", &kmp_stack_depth, 0, KMP_STACK_DEPTH_MAX, NULL,
	  KMP_OPT },
	{ "stack_sample", &kmp_stack_sample, 1, INT_MAX, NULL,
	  KMP_KNOB_SYSCTL },
	{ "key_depth",	&kmp_key_depth,	  0, KMP_KEY_DEPTH_MAX, NULL, KMP_OPT },
	{ "sample_rate", &kmp_sample_rate, 1, INT_MAX,
	  kmemprof_set_sample_rate, KMP_ANY },
	{ "min_size",	&kmp_min_size,	  0, INT_MAX,	kmp_set_min_size,
	  KMP_KNOB_SYSCTL },
	{ "max_size",	&kmp_max_size,	  0, INT_MAX,	kmp_set_max_size,
	  KMP_KNOB_SYSCTL },
	{ "hist",	&kmp_hist_on,	  0, 1,		NULL, KMP_OPT },
	{ "lifetimes",	&kmp_life_on,	  0, 1,		NULL, KMP_OPT },
	{ "self_timing", &kmp_timing_on,  0, 1,		NULL, KMP_OPT },
	{ "max_owners",	&kmp_max_owners,  KMP_MIN_POOL, KMP_MAX_TAGS, NULL,
	  KMP_KNOB_PARAM | KMP_KNOB_OF },
	{ "max_owner_lines", &kmp_max_olines, KMP_MIN_POOL, KMP_MAX_LIVE, NULL,
	  KMP_KNOB_PARAM | KMP_KNOB_OF },
	{ "oom_report",	&kmp_oom_report,  0, KMP_OOM_REPORT_MAX, NULL, KMP_ANY },
};

const struct kmp_knob *const kmp_knobs_end =
	kmp_knobs + ARRAY_SIZE(kmp_knobs);

/* The knob called @name that can be set from @where, or NULL. */
const struct kmp_knob *kmp_knob_find(const char *name, unsigned int where)
{
	const struct kmp_knob *k;

	for (k = kmp_knobs; k < kmp_knobs_end; k++)
		if ((k->where & where) && !strcmp(k->name, name))
			return k;
	return NULL;
}

/* Set @k to @val as a write to its file would: -EINVAL out of range. */
int kmp_knob_set(const struct kmp_knob *k, unsigned int val)
{
	if (val < k->min || val > k->max)
		return -EINVAL;
	if (k->set)
		return k->set(val);
	if (k->where & KMP_KNOB_MODE)
		return kmemprof_set_option(k->var, val);
	WRITE_ONCE(*k->var, val);
	return 0;
}

/*
 * Whether a parameter was given at load: the kernel's own parsers do the
 * parsing, and these ops note the names they were called for. (The
 * arguments kept in THIS_MODULE->args can't tell: parse_args() cuts them
 * up in place before init runs.)
 */
#define KMP_PARAMS	16

static const char *kmp_given[KMP_PARAMS];
static unsigned int kmp_ngiven;

static void kmp_note_given(const struct kernel_param *kp)
{
	if (kmp_ngiven < KMP_PARAMS)
		kmp_given[kmp_ngiven++] = kp->name;
}

#define KMP_PARAM_OPS(type)						\
static int kmp_set_##type(const char *val, const struct kernel_param *kp) \
{									\
	int ret = param_set_##type(val, kp);				\
									\
	if (!ret)							\
		kmp_note_given(kp);					\
	return ret;							\
}									\
static const struct kernel_param_ops kmp_##type##_ops = {		\
	.set = kmp_set_##type,						\
	.get = param_get_##type,					\
}

KMP_PARAM_OPS(bool);
KMP_PARAM_OPS(uint);

static int kmp_set_charp(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_charp(val, kp);

	if (!ret)
		kmp_note_given(kp);
	return ret;
}

static const struct kernel_param_ops kmp_charp_ops = {
	.set = kmp_set_charp,
	.get = param_get_charp,
	.free = param_free_charp,
};

static bool enabled = true;
module_param_cb(enabled, &kmp_bool_ops, &enabled, 0444);
__MODULE_PARM_TYPE(enabled, "bool");
MODULE_PARM_DESC(enabled, "Attach the probes at load (default: 1)");

static char *events = "slab,page,percpu";
module_param_cb(events, &kmp_charp_ops, &events, 0444);
__MODULE_PARM_TYPE(events, "charp");
MODULE_PARM_DESC(events, "Kinds traced from load: slab,page,percpu or none");

/* owners: not a number, so not in the table: sysctl.c and of.c's own too */
static char *owners = "0";
module_param_cb(owners, &kmp_charp_ops, &owners, 0444);
__MODULE_PARM_TYPE(owners, "charp");
MODULE_PARM_DESC(owners,
		 "Charge allocations to their owners from load: task, cgroup or 0 (default: 0)");

module_param_cb(max_owners, &kmp_uint_ops, &kmp_max_owners, 0444);
__MODULE_PARM_TYPE(max_owners, "uint");
MODULE_PARM_DESC(max_owners,
		 "Size of the owner table, 72 bytes an owner, made at the first owners= (default: 2048)");

module_param_cb(max_owner_lines, &kmp_uint_ops, &kmp_max_olines, 0444);
__MODULE_PARM_TYPE(max_owner_lines, "uint");
MODULE_PARM_DESC(max_owner_lines,
		 "Lines of (site, owner), 64 bytes a line, made at the first owners= (default: 16384)");

module_param_cb(max_tags, &kmp_uint_ops, &kmp_max_tags, 0444);
__MODULE_PARM_TYPE(max_tags, "uint");
MODULE_PARM_DESC(max_tags,
		 "Size of the tag pool (default: 16384, 8192 below 2 GiB of RAM)");

module_param_cb(max_live, &kmp_uint_ops, &kmp_max_live, 0444);
__MODULE_PARM_TYPE(max_live, "uint");
MODULE_PARM_DESC(max_live,
		 "Size of the live-object table, about 30 bytes an entry (default: one per 16 KiB of RAM)");

module_param_cb(live_grow, &kmp_uint_ops, &kmp_live_grow, 0444);
__MODULE_PARM_TYPE(live_grow, "uint");
MODULE_PARM_DESC(live_grow,
		 "Times max_live the live table may add under load, 36 bytes an entry added (default: 3; 0: never)");

module_param_cb(max_hist, &kmp_uint_ops, &kmp_max_hist, 0444);
__MODULE_PARM_TYPE(max_hist, "uint");
MODULE_PARM_DESC(max_hist,
		 "Tags that get size and lifetime histograms (default: 2048)");

module_param_cb(max_stacks, &kmp_uint_ops, &kmp_max_stacks, 0444);
__MODULE_PARM_TYPE(max_stacks, "uint");
MODULE_PARM_DESC(max_stacks,
		 "Size of the stack store, 160 bytes a stack (default: 4096)");

/* Whether parameter @name was given at load. */
bool kmp_param_given(const char *name)
{
	unsigned int i;

	for (i = 0; i < kmp_ngiven; i++)
		if (!strcmp(kmp_given[i], name))
			return true;
	return false;
}

/*
 * The pools' sizes from the RAM, where no parameter gives them (the
 * device tree's word comes after): memory at load stays within 0.5% of
 * the RAM from 1 GiB up (Documentation/kmemprof.rst, "Memory"). The live
 * table takes one entry per 16 KiB of RAM, at least KMP_DEF_LIVE_MIN,
 * under 31 bytes each with the spill's share (live.c), and 8 more a slot
 * once histograms or lifetimes have been on; tags KMP_DEF_TAGS from
 * 2 GiB, half that below.
 *
 * Not rounded up to a power of two: kmp_live_init() makes the slots a
 * power of two below seven eighths of max_live and the spill the rest,
 * so any size is used whole, and rounding up would double the table
 * just above each power of two (0.58% of the RAM at 1100 MiB). Just
 * below 8/7 of one, the spill takes more of the table (up to nine
 * sixteenths, against a half at a power of two).
 */
#define KMP_DEF_LIVE_MIN	BIT(15)
#define KMP_DEF_LIVE_PER_MIB	64
#define KMP_DEF_TAGS		16384

/* max_live's default for @mib MiB of RAM. */
unsigned int kmp_default_max_live(unsigned long mib)
{
	unsigned long live = min_t(unsigned long, mib, KMP_MAX_LIVE) *
			     KMP_DEF_LIVE_PER_MIB;

	return clamp_t(unsigned long, live, KMP_DEF_LIVE_MIN, KMP_MAX_LIVE);
}

static void kmp_size_defaults(void)
{
	unsigned long mib = totalram_pages() >> (20 - PAGE_SHIFT);

	if (!kmp_param_given("max_live"))
		kmp_max_live = kmp_default_max_live(mib);
	if (!kmp_param_given("max_tags"))
		kmp_max_tags = mib < 2048 ? KMP_DEF_TAGS / 2 : KMP_DEF_TAGS;
}

/*
 * The load-time values: the parameters' ranges checked, the pools sized
 * from the RAM where no parameter sizes them, then the device tree's
 * word on what no parameter set. Returns -EINVAL on a bad
 * parameter; a bad property is only ignored (of.c says so in dmesg).
 */
int kmp_params_load(struct device_node *np, unsigned int *kinds,
		    bool *enabled_out)
{
	const struct kmp_knob *k;
	u32 v;

	for (k = kmp_knobs; k < kmp_knobs_end; k++) {
		if ((k->where & KMP_KNOB_PARAM) &&
		    (*k->var < k->min || *k->var > k->max)) {
			pr_err("%s=%u: expected [%u, %u]\n", k->name, *k->var,
			       k->min, k->max);
			return -EINVAL;
		}
	}
	if (kmemprof_parse_events(events, kinds)) {
		pr_err("events=%s: expected slab,page,percpu or none\n", events);
		return -EINVAL;
	}
	if (kmp_parse_owners(owners, &v)) {
		pr_err("owners=%s: expected task, cgroup or 0\n", owners);
		return -EINVAL;
	}
	kmp_size_defaults();
	if (np) {
		pr_info("defaults from the device tree: %pOF\n", np);
		if (!kmp_param_given("enabled") &&
		    !kmp_of_u32(np, "enabled", 0, 1, &v))
			enabled = v;
		if (!kmp_param_given("events"))
			kmp_of_events(np, kinds);
		kmp_of_params(np);
	}
	*enabled_out = enabled;
	return 0;
}

/*
 * The owners knob's first value, once the tables are made: the parameter
 * if given, else the device tree's owners property, else off.
 */
int kmp_owners_load(struct device_node *np)
{
	unsigned int v = KMP_OWNERS_OFF;

	if (kmp_param_given("owners"))
		kmp_parse_owners(owners, &v);	/* checked at load */
	else if (kmp_of_owners(np, &v))
		return 0;
	return v ? kmemprof_set_owners(v) : 0;
}

/* The property of knob @k: its name with '-' for '_'. */
static const char *kmp_of_prop(const struct kmp_knob *k, char *buf,
			       size_t len)
{
	char *c;

	strscpy(buf, k->name, len);
	for (c = buf; *c; c++)
		if (*c == '_')
			*c = '-';
	return buf;
}

/* The parameters' values, where no parameter was given (before the tables). */
void kmp_of_params(struct device_node *np)
{
	const struct kmp_knob *k;
	char prop[32];

	for (k = kmp_knobs; k < kmp_knobs_end; k++)
		if ((k->where & KMP_KNOB_OF) && (k->where & KMP_KNOB_PARAM) &&
		    !kmp_param_given(k->name))
			kmp_of_u32(np, kmp_of_prop(k, prop, sizeof(prop)),
				   k->min, k->max, k->var);
}

/*
 * The knobs' first values. Each is range-checked by the knob itself, as
 * a write to /proc/sys/kmemprof/ would be.
 */
void kmp_of_knobs(struct device_node *np)
{
	const struct kmp_knob *k;
	char prop[32];
	u32 v;

	for (k = kmp_knobs; k < kmp_knobs_end; k++) {
		if (!(k->where & KMP_KNOB_OF) || !(k->where & KMP_KNOB_SYSCTL) ||
		    kmp_of_u32(np, kmp_of_prop(k, prop, sizeof(prop)), 0,
			       U32_MAX, &v))
			continue;
		if (kmp_knob_set(k, v))
			pr_warn("device tree: %pOF/%s = %u: refused by %s; ignored\n",
				np, prop, v, k->name);
	}
}
