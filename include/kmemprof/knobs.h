/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the table of unsigned knobs (module/knobs.c). One entry per
 * knob serves every way in: the sysctl files under /proc/sys/kmemprof/,
 * the device-tree node (of.c), the module parameters (their ranges and
 * whether they were given) and the KUnit suites (kmemprof_set_knob()).
 */
#ifndef _KMEMPROF_KNOBS_H
#define _KMEMPROF_KNOBS_H

#include <linux/types.h>

/* Where a knob can be set from (kmp_knob.where). */
#define KMP_KNOB_SYSCTL	BIT(0)	/* /proc/sys/kmemprof/NAME, at any time */
#define KMP_KNOB_PARAM	BIT(1)	/* module parameter NAME, at load */
#define KMP_KNOB_OF	BIT(2)	/* device-tree property NAME, '_' as '-' */
#define KMP_KNOB_MODE	BIT(3)	/* an option: kmp_mode follows its value */

struct kmp_knob {
	const char *name;
	unsigned int *var;
	unsigned int min, max;
	/* Sets a value already in [min, max]; NULL: a plain store. */
	int (*set)(unsigned int val);
	unsigned int where;
};

/* The table, walked as for (k = kmp_knobs; k < kmp_knobs_end; k++). */
extern const struct kmp_knob kmp_knobs[];
extern const struct kmp_knob *const kmp_knobs_end;

const struct kmp_knob *kmp_knob_find(const char *name, unsigned int where);
int kmp_knob_set(const struct kmp_knob *k, unsigned int val);
bool kmp_param_given(const char *name);

struct device_node;
int kmp_params_load(struct device_node *np, unsigned int *kinds,
		    bool *enabled);
/* of.c: the table's device-tree properties, for parameters and for knobs. */
void kmp_of_params(struct device_node *np);
int kmp_owners_load(struct device_node *np);

#endif /* _KMEMPROF_KNOBS_H */
