// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: boot-time defaults from the device tree: reading the node's
 * properties. Which knob each sets is the knob table's business (knobs.c).
 *
 * A node with compatible = "kmemprof" (dts/rock-5b-plus-kmemprof.dtso) may
 * set what the module starts with. Precedence, highest first:
 *
 *   1. module parameters given at load (insmod, modprobe.d, the kernel
 *      command line);
 *   2. the device-tree node;
 *   3. the built-in defaults.
 *
 * Properties, all optional (the knob table, knobs.c, says which knobs
 * have one, and their ranges):
 *
 *   enabled      u32, 0 or 1          the enabled parameter
 *   events       string               the events parameter ("slab,page")
 *   max-tags     u32, [16, 2^24]      the max_tags parameter
 *   max-live     u32, [16, 2^28]      the max_live parameter
 *   live-grow    u32, [0, 16]         the live_grow parameter
 *   stack-depth  u32                  the stack_depth knob's first value
 *   key-depth    u32                  the key_depth knob's first value
 *   sample-rate  u32                  the sample_rate knob's first value
 *   hist, lifetimes, self-timing  u32, 0 or 1   those knobs' first values
 *   owners       string               the owners knob's first value
 *                                     ("task", "cgroup" or "0")
 *   max-owners, max-owner-lines  u32  those parameters
 *   oom-report   u32, [0, 64]         the oom_report knob's first value
 *
 * A property of the wrong type (a u32 property that is not one cell, an
 * events string that is not a string) or out of range is refused with a
 * line in dmesg naming it, and the value it would have set stays as it
 * was. The others still apply.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/of.h>
#include <linux/string.h>

#include "internal.h"
#include "options.h"

#define KMP_OF_COMPATIBLE	"kmemprof"

struct device_node *kmp_of_node(void)
{
	return of_find_compatible_node(NULL, NULL, KMP_OF_COMPATIBLE);
}

void kmp_of_put(struct device_node *np)
{
	of_node_put(np);
}

/*
 * Read u32 property @name of @np into @val if it is one cell in [min, max].
 * Returns 0 when @val was set, -ENOENT when there is no such property and
 * -EINVAL when it was refused.
 */
int kmp_of_u32(struct device_node *np, const char *name, u32 min, u32 max,
	       u32 *val)
{
	int len;
	u32 v;

	if (!np || !of_find_property(np, name, &len))
		return -ENOENT;
	if (len != sizeof(u32) || of_property_read_u32(np, name, &v)) {
		pr_warn("device tree: %pOF/%s is not one u32 cell; ignored\n",
			np, name);
		return -EINVAL;
	}
	if (v < min || v > max) {
		pr_warn("device tree: %pOF/%s = %u is outside [%u, %u]; ignored\n",
			np, name, v, min, max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/* The events property: a string the events knob would take. */
int kmp_of_events(struct device_node *np, unsigned int *kinds)
{
	const char *s;
	unsigned int k;

	if (!np || !of_find_property(np, "events", NULL))
		return -ENOENT;
	if (of_property_read_string(np, "events", &s)) {
		pr_warn("device tree: %pOF/events is not a string; ignored\n",
			np);
		return -EINVAL;
	}
	if (kmemprof_parse_events(s, &k)) {
		pr_warn("device tree: %pOF/events = \"%s\": expected slab,page,percpu or none; ignored\n",
			np, s);
		return -EINVAL;
	}
	*kinds = k;
	return 0;
}

/* The owners property: a string the owners knob would take. */
int kmp_of_owners(struct device_node *np, unsigned int *val)
{
	const char *s;
	unsigned int v;

	if (!np || !of_find_property(np, "owners", NULL))
		return -ENOENT;
	if (of_property_read_string(np, "owners", &s)) {
		pr_warn("device tree: %pOF/owners is not a string; ignored\n",
			np);
		return -EINVAL;
	}
	if (kmp_parse_owners(s, &v)) {
		pr_warn("device tree: %pOF/owners = \"%s\": expected task, cgroup or 0; ignored\n",
			np, s);
		return -EINVAL;
	}
	*val = v;
	return 0;
}
