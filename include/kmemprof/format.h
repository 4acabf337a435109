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
	" [accurate:no] [module:unloaded]\n"

/* Names of the kinds, in enum kmp_kind order, as printed after "kind:". */
#define KMP_KIND_NAMES		{ "slab", "page", "percpu" }

#endif /* _KMEMPROF_FORMAT_H */
