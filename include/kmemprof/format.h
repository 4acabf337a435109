/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the /proc/kmemprof format, shared by the module and the
 * userspace reader. Documentation/kmemprof.rst describes it in full.
 */
#ifndef _KMEMPROF_FORMAT_H
#define _KMEMPROF_FORMAT_H

#define KMP_PROC_NAME		"kmemprof"
#define KMP_PROC_VERSION	"1.0"
#define KMP_PROC_HEADER		"kmemprof - version: " KMP_PROC_VERSION "\n"
#define KMP_PROC_COLUMNS						\
	"# <live bytes> <live objects> <site> [<module>] func:<function>" \
	" kind:<kind> allocs:<n> frees:<n> bytes:<n> req:<n>"		\
	" [caller:<frame>]... [sampled:yes] [accurate:no]"		\
	" [module:unloaded]\n"

/* debugfs views: /sys/kernel/debug/kmemprof/ */
#define KMP_HIST_HEADER		"kmemprof hist - version: 1.0\n"
#define KMP_HIST_COLUMNS						\
	"# <site> [<module>] func:<function> kind:<kind>"		\
	" size:<20 counts> req:<20 counts> life:<36 counts>"		\
	" xcpu:<n> xcluster:<n> frag:<percent> waste:<bytes>\n"
#define KMP_AGES_HEADER		"kmemprof ages - version: 1.0\n"
#define KMP_AGES_COLUMNS						\
	"# <live bytes> <live objects> <site> [<module>] func:<function>" \
	" kind:<kind> age:<36 counts>\n"
#define KMP_LEAKS_HEADER	"kmemprof leaks - version: 1.0\n"
#define KMP_STACKS_HEADER	"kmemprof stacks - version: 1.0\n"
#define KMP_CPUS_HEADER		"kmemprof cpus - version: 1.0\n"
#define KMP_CPUS_COLUMNS	"# cpu cluster allocs frees remote xcluster\n"
/* What a view says while the data it needs is not being kept. */
#define KMP_HIST_OFF							\
	"# histograms off: echo 1 > /proc/sys/kmemprof/hist\n"
#define KMP_LIFE_OFF							\
	"# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n"

/* Names of the kinds, in enum kmp_kind order, as printed after "kind:". */
#define KMP_KIND_NAMES		{ "slab", "page", "percpu" }

#endif /* _KMEMPROF_FORMAT_H */
