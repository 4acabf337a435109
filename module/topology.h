/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: topology.c's map of each CPU's cluster, which the histograms
 * read inline (hist.h) for a free's cross-cluster count.
 */
#ifndef _KMEMPROF_TOPOLOGY_H
#define _KMEMPROF_TOPOLOGY_H

extern int *kmp_cluster;		/* nr_cpu_ids entries */

#endif /* _KMEMPROF_TOPOLOGY_H */
