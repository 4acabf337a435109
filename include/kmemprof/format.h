/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the /proc/kmemprof format and the views' headers, shared by
 * the module (which prints them) and the userspace reader (which parses
 * them: tools/kmemprof builds with -I include). Plain string literals
 * only, so that both sides can include it. Documentation/kmemprof.rst
 * describes the formats in full.
 */
#ifndef _KMEMPROF_FORMAT_H
#define _KMEMPROF_FORMAT_H

#define KMP_PROC_NAME		"kmemprof"
#define KMP_PROC_VERSION	"1.0"
/* The first line, up to its version: "kmemprof - version: 1.0". */
#define KMP_PROC_MAGIC		"kmemprof - version: "
#define KMP_PROC_HEADER		KMP_PROC_MAGIC KMP_PROC_VERSION "\n"
#define KMP_PROC_COLUMNS						\
	"# <live bytes> <live objects> <site> [<module>] func:<function>" \
	" kind:<kind> allocs:<n> frees:<n> bytes:<n> req:<n>"		\
	" [caller:<frame>]... [sampled:yes] [accurate:no]"		\
	" [module:unloaded]\n"

/*
 * debugfs views: /sys/kernel/debug/kmemprof/. Each starts with
 * "kmemprof <view> - version: 1.0"; KMP_VIEW_MAGIC_FMT is that line up to
 * the version, as a printf format taking the view's name.
 */
#define KMP_VIEW_VERSION	"1.0"
#define KMP_VIEW_MAGIC_FMT	"kmemprof %s - version: "
#define KMP_VIEW_HEADER(view)						\
	"kmemprof " view " - version: " KMP_VIEW_VERSION "\n"
#define KMP_HIST_HEADER		KMP_VIEW_HEADER("hist")
#define KMP_HIST_COLUMNS						\
	"# <site> [<module>] func:<function> kind:<kind>"		\
	" size:<20 counts> req:<20 counts> life:<36 counts>"		\
	" xcpu:<n> xcluster:<n> frag:<percent> waste:<bytes>\n"
#define KMP_AGES_HEADER		KMP_VIEW_HEADER("ages")
#define KMP_AGES_COLUMNS						\
	"# <live bytes> <live objects> <site> [<module>] func:<function>" \
	" kind:<kind> age:<36 counts>\n"
#define KMP_LEAKS_HEADER	KMP_VIEW_HEADER("leaks")
#define KMP_STACKS_HEADER	KMP_VIEW_HEADER("stacks")
#define KMP_CPUS_HEADER		KMP_VIEW_HEADER("cpus")
#define KMP_CPUS_COLUMNS	"# cpu cluster allocs frees remote xcluster\n"
#define KMP_OWNERS_HEADER	KMP_VIEW_HEADER("owners")
#define KMP_OWNERS_COLUMNS						\
	"# <live bytes> <live objects> <site> [<module>] func:<function>" \
	" kind:<kind> (owner:<comm> tgid:<n> | cgroup:<path>"		\
	" cgroup_id:<n> | owner:[<name>]) allocs:<n> [caller:<frame>]...\n"
/* What a view says while the data it needs is not being kept. */
#define KMP_HIST_OFF							\
	"# histograms off: echo 1 > /proc/sys/kmemprof/hist\n"
#define KMP_LIFE_OFF							\
	"# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n"
#define KMP_OWNERS_VIEW_OFF							\
	"# owners off: echo task > /proc/sys/kmemprof/owners\n"
/* The OOM report's first line (oom.c), before its sites. */
#define KMP_OOM_HEADER		"kmemprof oom - version: " KMP_VIEW_VERSION

/* Names of the kinds, in enum kmp_kind order, as printed after "kind:". */
#define KMP_KIND_NAMES		{ "slab", "page", "percpu" }

#endif /* _KMEMPROF_FORMAT_H */
