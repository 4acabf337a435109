// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the views' numbers (fmt.h has the inline part). Notes on
 * locking: none; these print what their callers summed.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "fmt.h"

/*
 * @part of @whole in tenths of a percent, rounded to the nearest (a half
 * up): 2 of 3 is 66.7%, not 66.6%. 0 of 0 is 0.
 */
static u64 kmp_permille(u64 part, u64 whole)
{
	return whole ? div64_u64(part * 1000 + whole / 2, whole) : 0;
}

/* frag: 1 - requested/allocated of the live bytes, in percent. */
void kmp_put_frag(struct seq_file *m, u64 live_bytes, u64 live_req)
{
	u64 waste = live_bytes > live_req ? live_bytes - live_req : 0;
	u64 permille = kmp_permille(waste, live_bytes);

	seq_printf(m, " frag:%llu.%llu waste:%llu", permille / 10,
		   permille % 10, waste);
}

void kmp_put_permille(struct seq_file *m, u64 part, u64 whole)
{
	u64 pm = kmp_permille(part, whole);

	seq_printf(m, "%llu.%llu%%", pm / 10, pm % 10);
}
