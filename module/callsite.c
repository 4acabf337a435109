// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: finding the call site of events that do not carry a useful one.
 *
 * mm_page_alloc carries no call site at all, and percpu_alloc_percpu on
 * kernels before 6.10 names the exported wrapper, not its caller. For
 * those, the probe unwinds a few frames with stack_trace_save() and takes
 * the first frame past the allocator's own entry points.
 *
 * Whether a frame belongs to an allocator is decided by its symbol name
 * (the prefixes below, which also match the _noprof forms of 6.10+) and
 * remembered in kmp_frame_cache, a direct-mapped cache of return addresses.
 * Each slot is one word, (addr << 2) | verdict, written and read whole,
 * so it needs no lock; a lost race only costs another lookup. Module code
 * is never an allocator entry point, so a verdict can never go stale when
 * modules come and go.
 *
 * Notes on locking: none. The symbol lookup on a cache miss uses a per-CPU
 * buffer with interrupts off; NMI never gets here (account.c skips it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include <kmemprof/kmemprof.h>

#define KMP_SITE_DEPTH		12
#define KMP_FRAME_CACHE_BITS	12

#define KMP_FRAME_PAGE		BIT(0)
#define KMP_FRAME_PERCPU	BIT(1)
#define KMP_FRAME_MASK		(KMP_FRAME_PAGE | KMP_FRAME_PERCPU)

static const char * const kmp_page_fns[] = {
	"__alloc_pages", "alloc_pages", "__get_free_pages", "get_zeroed_page",
	"get_free_pages", "__folio_alloc", "folio_alloc", "vma_alloc_folio",
	"alloc_page_interleave",
	"__alloc_frozen_pages", "alloc_frozen_pages",
};

static const char * const kmp_percpu_fns[] = {
	"pcpu_alloc", "__alloc_percpu", "__alloc_reserved_percpu",
};

static unsigned long kmp_frame_cache[1 << KMP_FRAME_CACHE_BITS];
static DEFINE_PER_CPU(char [KSYM_SYMBOL_LEN], kmp_sym_buf);

static bool kmp_has_prefix(const char *name, const char * const *list,
			   size_t n)
{
	while (n--)
		if (str_has_prefix(name, list[n]))
			return true;
	return false;
}

static unsigned long kmp_frame_lookup(unsigned long addr)
{
	unsigned long verdict = 0, flags;
	char *name;

	local_irq_save(flags);
	name = this_cpu_ptr(kmp_sym_buf);
	sprint_symbol_no_offset(name, addr);
	/* "name [module]": module code is never an allocator entry point. */
	if (!strchr(name, ' ')) {
		if (kmp_has_prefix(name, kmp_page_fns, ARRAY_SIZE(kmp_page_fns)))
			verdict |= KMP_FRAME_PAGE;
		if (kmp_has_prefix(name, kmp_percpu_fns,
				   ARRAY_SIZE(kmp_percpu_fns)))
			verdict |= KMP_FRAME_PERCPU;
	}
	local_irq_restore(flags);
	return verdict;
}

static unsigned long kmp_frame_kind(unsigned long addr)
{
	unsigned long *slot = &kmp_frame_cache[hash_long(addr,
							 KMP_FRAME_CACHE_BITS)];
	unsigned long v = READ_ONCE(*slot), verdict;

	if ((v >> 2) == (addr & (ULONG_MAX >> 2)))
		return v & KMP_FRAME_MASK;
	verdict = kmp_frame_lookup(addr);
	WRITE_ONCE(*slot, (addr << 2) | verdict);
	return verdict;
}

/*
 * The first frame past the allocator frames of @kind, or failing that the
 * first frame outside kmemprof.
 */
static unsigned long kmp_unwind_site(unsigned long kind)
{
	unsigned long entries[KMP_SITE_DEPTH], fallback = 0;
	unsigned int i, n;
	bool seen = false;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++) {
		if (kmp_frame_kind(entries[i]) & kind) {
			seen = true;
			continue;
		}
		if (seen)
			return entries[i];
		if (!fallback && !within_module(entries[i], THIS_MODULE))
			fallback = entries[i];
	}
	return fallback;
}

unsigned long kmp_page_site(void)
{
	return kmp_unwind_site(KMP_FRAME_PAGE);
}

unsigned long kmp_percpu_site(unsigned long call_site)
{
	if (call_site && !(kmp_frame_kind(call_site) & KMP_FRAME_PERCPU))
		return call_site;
	return kmp_unwind_site(KMP_FRAME_PERCPU);
}

/*
 * The text of a call site as /proc/kmemprof prints it, into @buf of
 * KMP_SITE_TEXT_LEN bytes: "symbol+0xoff/0xlen [module] func:symbol".
 */
int kmp_site_text(char *buf, unsigned long site)
{
	size_t n, flen;

	n = sprint_symbol(buf, site);
	flen = strcspn(buf, "+ ");
	n += scnprintf(buf + n, KMP_SITE_TEXT_LEN - n, " func:");
	if (flen > KMP_SITE_TEXT_LEN - n - 1)
		flen = KMP_SITE_TEXT_LEN - n - 1;
	memmove(buf + n, buf, flen);
	buf[n + flen] = '\0';
	return n + flen;
}
