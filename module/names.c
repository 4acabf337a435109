// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the names of call sites and callers, as the views print them
 * ("symbol+0xoff/0xlen [module] func:symbol"), made in process context
 * (the names worker, a read). The probes never name anything here: the
 * walk's own lookups, which classify frames, are callsite.c's.
 *
 * Notes on locking:
 *
 * - kmp_names_lock (mutex, process context only) protects the names,
 *   kmp_names_gen and the symbol indexes (kmp_symidx_list). A lookup by
 *   sprint_symbol() runs outside it, under RCU; a flush meanwhile (the
 *   generation moved) keeps its result out of the cache. An index is made
 *   and read under it, its module's symbol table under RCU as well (see
 *   struct kmp_symidx). It nests inside kmp_gone_lock (main.c); inside it
 *   only the kernel's module_kset list_lock (a spinlock, briefly, to find
 *   a module by address) and the allocator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <kmemprof/test.h>

#include "internal.h"
#include "tables.h"

/*
 * Names: sprint_symbol() of an address. The kernel looks a module's
 * address up by a linear search of all the module's symbols (about 25
 * instructions a symbol), so naming n sites of a module of n functions
 * that way is O(n^2). Module addresses are named from an index of the
 * module's symbols instead (below); the rest, the kernel's own text (a
 * binary search already) and what the index cannot name, by
 * sprint_symbol(), whose results are kept in kmp_names.
 */
#define KMP_NAMES_BITS	10
#define KMP_NAMES_MAX	8192

struct kmp_name {
	struct hlist_node node;
	unsigned long addr;
	char text[];
};

static DEFINE_HASHTABLE(kmp_names, KMP_NAMES_BITS);
static DEFINE_MUTEX(kmp_names_lock);
static unsigned int kmp_names_n;
static unsigned long kmp_names_gen;

/*
 * The index of a module's symbols: the module's core text, and the
 * symbols in it sorted by address, as find_kallsyms_symbol() would choose
 * among them (named, defined, not a mapping symbol; of several at one
 * address the first in the symbol table). Made from the table the module
 * has when its first address is named (mod->kallsyms: all its symbols
 * while it is coming, then core_kallsyms, which 6.4's do_init_module()
 * switches to once init is done and frees the other after an RCU grace
 * period); checked against it at each lookup, under RCU, and made again
 * if the module switched.
 *
 * An index holds the module's own memory (symtab, strtab, name) without a
 * reference: it is dropped when the module is GOING (kmp_names_flush(),
 * from main.c's module notifier), before the kernel frees the module, and
 * only ever made for a module COMING or LIVE, under kmp_names_lock, which
 * the notifier's flush takes. Each entry is 8 bytes: the symbol's offset
 * in the text and its index in the table; all of them together are kept
 * under KMP_SYMIDX_MAX entries (4 MiB), past which a module is named by
 * sprint_symbol().
 */
#define KMP_SYMIDX_MAX	BIT(19)

struct kmp_symidx_ent {
	u32 off;
	u32 sym;
};

struct kmp_symidx {
	struct list_head node;
	struct module *mod;
	const struct mod_kallsyms *ks;
	unsigned long base, size;
	unsigned int n;
	struct kmp_symidx_ent e[];
};

static LIST_HEAD(kmp_symidx_list);
static unsigned int kmp_symidx_ents;

#ifdef KMP_HAVE_MODULE_SYMBOL_H
#include <linux/module_symbol.h>
#define kmp_mapping_symbol(str)	is_mapping_symbol(str)
#else
/* As 5.10 to 6.3 have it (is_arm_mapping_symbol()). */
static bool kmp_mapping_symbol(const char *str)
{
	if (str[0] == '.' && str[1] == 'L')
		return true;
	return str[0] == '$' && strchr("axtd", str[1]) &&
	       (str[2] == '\0' || str[2] == '.');
}
#endif

static void kmp_symidx_free(struct kmp_symidx *x)
{
	list_del(&x->node);
	kmp_symidx_ents -= x->n;
	kvfree(x);
}

static int kmp_symidx_cmp(const void *a, const void *b)
{
	const struct kmp_symidx_ent *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/*
 * The module whose core text holds @addr, COMING or LIVE, with a reference
 * on its kobject in *@kobj (module_kset's, found through our own
 * kobject): the kernel waits for that reference before it frees the
 * module. NULL if none: the kernel's own text, or a module going away.
 */
static struct module *kmp_symidx_module(unsigned long addr,
					struct kobject **kobj)
{
	struct kset *kset = THIS_MODULE->mkobj.kobj.kset;
	struct module *found = NULL;
	struct kobject *k;

	if (!kset)
		return NULL;
	spin_lock(&kset->list_lock);
	list_for_each_entry(k, &kset->list, entry) {
		struct module *mod = container_of(k, struct module_kobject,
						  kobj)->mod;

		if (!mod || addr - KMP_MOD_TEXT_BASE(mod) >=
			    KMP_MOD_TEXT_SIZE(mod))
			continue;
		if ((mod->state == MODULE_STATE_COMING ||
		     mod->state == MODULE_STATE_LIVE) &&
		    kobject_get_unless_zero(k)) {
			*kobj = k;
			found = mod;
		}
		break;
	}
	spin_unlock(&kset->list_lock);
	return found;
}

/*
 * Index the symbols of the module whose text holds @addr. Under
 * kmp_names_lock: the notifier's flush cannot drop the module's index
 * meanwhile, and the kobject reference keeps the module from being freed
 * while the table is read.
 */
static struct kmp_symidx *kmp_symidx_make(unsigned long addr)
{
	const struct mod_kallsyms *ks;
	struct kmp_symidx *x = NULL;
	unsigned int i, j, n, num;
	struct kobject *kobj;
	struct module *mod;
	unsigned long base, size;

	lockdep_assert_held(&kmp_names_lock);
	mod = kmp_symidx_module(addr, &kobj);
	if (!mod)
		return NULL;
	base = KMP_MOD_TEXT_BASE(mod);
	size = KMP_MOD_TEXT_SIZE(mod);
	rcu_read_lock();
	num = rcu_dereference(mod->kallsyms)->num_symtab;
	rcu_read_unlock();
	if (kmp_symidx_ents + num > KMP_SYMIDX_MAX || size > U32_MAX)
		goto out;
	x = kvmalloc(struct_size(x, e, num), GFP_KERNEL);
	if (!x)
		goto out;
	rcu_read_lock();
	ks = rcu_dereference(mod->kallsyms);
	if (ks->num_symtab > num) {
		/* never: the table only ever shrinks (init done) */
		rcu_read_unlock();
		kvfree(x);
		x = NULL;
		goto out;
	}
	n = 0;
	/* ELF starts real symbols at 1 */
	for (i = 1; i < ks->num_symtab; i++) {
		const typeof(*ks->symtab) *sym = &ks->symtab[i];
		const char *name = ks->strtab + sym->st_name;

		if (sym->st_shndx == SHN_UNDEF || !*name ||
		    kmp_mapping_symbol(name) ||
		    sym->st_value - base >= size)
			continue;
		x->e[n].off = sym->st_value - base;
		x->e[n].sym = i;
		n++;
	}
	rcu_read_unlock();
	x->mod = mod;
	x->ks = ks;
	x->base = base;
	x->size = size;
	/* Usually in order already (the compiler's order in the text). */
	for (i = 1; i < n; i++)
		if (kmp_symidx_cmp(&x->e[i - 1], &x->e[i]) > 0)
			break;
	if (i < n)
		sort(x->e, n, sizeof(x->e[0]), kmp_symidx_cmp, NULL);
	/* Of several at one address, the first in the table */
	for (i = j = 0; i < n; i++)
		if (!j || x->e[i].off != x->e[j - 1].off)
			x->e[j++] = x->e[i];
	x->n = j;
	/* The table has data, init and mapping symbols too: keep these. */
	if (j < num / 2) {
		struct kmp_symidx *y = kvmalloc(struct_size(y, e, j),
						GFP_KERNEL);

		if (y) {
			memcpy(y, x, struct_size(y, e, j));
			kvfree(x);
			x = y;
		}
	}
	kmp_symidx_ents += j;
	list_add(&x->node, &kmp_symidx_list);
out:
	kobject_put(kobj);
	return x;
}

/* "0x" and @v in hex, as %#lx prints it, at @p; returns its end. */
static char *kmp_put_hex(char *p, unsigned long v)
{
	char tmp[2 * sizeof(v)];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * sprint_symbol() of @addr, in a module's core text, from its index, into
 * @buf of KSYM_SYMBOL_LEN bytes: the length, or 0 where the index cannot
 * say (no symbol at or before @addr, or @addr in no indexed module and
 * none to index). Under kmp_names_lock.
 */
static int kmp_symidx_text(char *buf, unsigned long addr)
{
	const struct kmp_symidx_ent *e;
	const struct mod_kallsyms *ks;
	struct kmp_symidx *x;
	unsigned long off, end;
	unsigned int lo, hi;
	const char *name;
	int len = 0;
	size_t n;
	char *p;

	lockdep_assert_held(&kmp_names_lock);
	list_for_each_entry(x, &kmp_symidx_list, node)
		if (addr - x->base < x->size)
			goto found;
	x = kmp_symidx_make(addr);
	if (!x)
		return 0;
found:
	rcu_read_lock();
	ks = rcu_dereference(x->mod->kallsyms);
	if (ks != x->ks) {
		/* the module's init is done: its table changed */
		rcu_read_unlock();
		kmp_symidx_free(x);
		x = kmp_symidx_make(addr);
		if (!x)
			return 0;
		rcu_read_lock();
		ks = rcu_dereference(x->mod->kallsyms);
		if (ks != x->ks)
			goto out;
	}
	/* the last entry at or before @addr */
	off = addr - x->base;
	lo = 0;
	hi = x->n;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (x->e[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		goto out;
	e = &x->e[lo - 1];
	end = lo < x->n ? x->e[lo].off : x->size;
	/* "%.*s+%#lx/%#lx [%s]", without vsnprintf()'s cost: it all fits */
	name = ks->strtab + ks->symtab[e->sym].st_name;
	p = buf + strnlen(name, KSYM_NAME_LEN - 1);
	memcpy(buf, name, p - buf);
	*p++ = '+';
	p = kmp_put_hex(p, off - e->off);
	*p++ = '/';
	p = kmp_put_hex(p, end - e->off);
	*p++ = ' ';
	*p++ = '[';
	n = strnlen(x->mod->name, MODULE_NAME_LEN);
	memcpy(p, x->mod->name, n);
	p += n;
	*p++ = ']';
	*p = '\0';
	len = p - buf;
out:
	rcu_read_unlock();
	/* Most recent first: a module's sites come in runs. */
	if (len)
		list_move(&x->node, &kmp_symidx_list);
	return len;
}

static void kmp_names_drop(void)
{
	struct hlist_node *tmp;
	struct kmp_name *n;
	unsigned int b;

	hash_for_each_safe(kmp_names, b, tmp, n, node) {
		hash_del(&n->node);
		kfree(n);
	}
	kmp_names_n = 0;
	kmp_names_gen++;
}

/*
 * Code went away (main.c's module notifier), or the module is unloading:
 * its addresses may name something else from now on. The indexes of
 * modules that are going go too (all of them when kmemprof itself is not
 * LIVE: it is unloading, or failed to load); a module's state is readable
 * here since its index, while it exists, means its GOING notifier has not
 * been through here yet.
 */
void kmp_names_flush(void)
{
	bool all = THIS_MODULE->state != MODULE_STATE_LIVE;
	struct kmp_symidx *x, *tmp;

	mutex_lock(&kmp_names_lock);
	kmp_names_drop();
	list_for_each_entry_safe(x, tmp, &kmp_symidx_list, node)
		if (all || (x->mod->state != MODULE_STATE_COMING &&
			    x->mod->state != MODULE_STATE_LIVE))
			kmp_symidx_free(x);
	mutex_unlock(&kmp_names_lock);
}

/* sprint_symbol() of @addr into @buf, from the cache. Process context. */
static int kmp_sym(char *buf, unsigned long addr)
{
	struct kmp_name *n;
	unsigned long gen;
	size_t len;

	mutex_lock(&kmp_names_lock);
	hash_for_each_possible(kmp_names, n, node, addr) {
		if (n->addr == addr) {
			len = strscpy(buf, n->text, KSYM_SYMBOL_LEN);
			mutex_unlock(&kmp_names_lock);
			return len;
		}
	}
	/* A module's: cheap enough not to be kept. */
	len = kmp_symidx_text(buf, addr);
	gen = kmp_names_gen;
	mutex_unlock(&kmp_names_lock);
	if (len)
		return len;

	/* A going module's symbols stay until an RCU grace period ends. */
	rcu_read_lock();
	len = sprint_symbol(buf, addr);
	rcu_read_unlock();

	n = kmalloc(struct_size(n, text, len + 1), GFP_KERNEL);
	if (!n)
		return len;
	n->addr = addr;
	memcpy(n->text, buf, len + 1);
	mutex_lock(&kmp_names_lock);
	/* Not if the code was flushed meanwhile: it may be gone. */
	if (gen != kmp_names_gen) {
		kfree(n);
	} else {
		if (kmp_names_n >= KMP_NAMES_MAX)
			kmp_names_drop();
		hash_add(kmp_names, &n->node, addr);
		kmp_names_n++;
	}
	mutex_unlock(&kmp_names_lock);
	return len;
}

#if KMP_TEST_HOOKS
/*
 * For the KUnit suites: @addr named as the views name it, through the
 * index where the index can (*@indexed), and as the kernel names it, into
 * @kernel; both of KSYM_SYMBOL_LEN bytes.
 */
int kmemprof_sym_text(unsigned long addr, char *buf, char *kernel,
		      bool *indexed)
{
	int len;

	mutex_lock(&kmp_names_lock);
	len = kmp_symidx_text(buf, addr);
	mutex_unlock(&kmp_names_lock);
	*indexed = len;
	if (!len)
		len = kmp_sym(buf, addr);
	rcu_read_lock();
	sprint_symbol(kernel, addr);
	rcu_read_unlock();
	return len;
}

kmp_export_test_hook(kmemprof_sym_text);
#endif

/*
 * A caller frame as one token: "symbol+0xoff/0xlen" or, in a module,
 * "symbol+0xoff/0xlen[module]". Into @buf of KSYM_SYMBOL_LEN bytes.
 */
int kmp_frame_text(char *buf, unsigned long addr)
{
	int n = kmp_sym(buf, addr);
	char *sp = strchr(buf, ' ');

	if (sp) {
		memmove(sp, sp + 1, n - (sp - buf));
		n--;
	}
	return n;
}

/* A tag's callers as " caller:<frame>" tokens, into @buf. */
void kmp_callers_text(const struct kmp_tag *tag, char *buf)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < tag->ncallers; i++) {
		kmp_frame_text(sym, tag->callers[i]);
		n += scnprintf(buf + n, KMP_CALLERS_TEXT_LEN - n, " caller:%s",
			       sym);
	}
}

/*
 * The text of a call site as /proc/kmemprof prints it, into @buf of
 * KMP_SITE_TEXT_LEN bytes: "symbol+0xoff/0xlen [module] func:symbol", or
 * a name for prior.c's sites, which are not code.
 */
int kmp_site_text(char *buf, unsigned long site)
{
	static const char * const prior[KMP_PRIOR_NR] = {
		[KMP_PRIOR_SLAB]	= "slab",
		[KMP_PRIOR_ANON]	= "anon",
		[KMP_PRIOR_FILE]	= "file",
		[KMP_PRIOR_PGTABLE]	= "pagetable",
		[KMP_PRIOR_OTHER]	= "other",
		[KMP_PRIOR_HUGETLB]	= "hugetlb",
		[KMP_PRIOR_RESERVED]	= "reserved",
		[KMP_PRIOR_STACK]	= "stack",
		[KMP_PRIOR_PERCPU]	= "percpu",
	};
	size_t n, flen;

	/* prior.c's: "before_load:<what> func:before_load" */
	if (site == KMP_SITE_SELF)
		return scnprintf(buf, KMP_SITE_TEXT_LEN,
				 "kmemprof:tables func:kmemprof");
	if (kmp_site_synthetic(site) &&
	    !((site - KMP_SITE_PRIOR) & (BIT(KMP_SITE_PRIOR_SHIFT) - 1)))
		return scnprintf(buf, KMP_SITE_TEXT_LEN,
				 "before_load:%s func:before_load",
				 prior[(site - KMP_SITE_PRIOR) >>
				       KMP_SITE_PRIOR_SHIFT]);
	/* kmp_sym()'s text is under half of @buf: " func:" fits */
	n = kmp_sym(buf, site);
	flen = strcspn(buf, "+ ");
	memcpy(buf + n, " func:", sizeof(" func:") - 1);
	n += sizeof(" func:") - 1;
	if (flen > KMP_SITE_TEXT_LEN - n - 1)
		flen = KMP_SITE_TEXT_LEN - n - 1;
	memmove(buf + n, buf, flen);
	buf[n + flen] = '\0';
	return n + flen;
}
