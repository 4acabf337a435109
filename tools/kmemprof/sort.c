// SPDX-License-Identifier: GPL-2.0
/* kmemprof reader: sorting and filtering the parsed profile. */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

static const char * const key_names[] = {
	[KP_BYTES] = "bytes", [KP_OBJS] = "calls", [KP_AVG] = "avg",
	[KP_ALLOCS] = "allocs", [KP_FRAG] = "frag", [KP_RATE] = "rate",
	[KP_AGE] = "age", [KP_GROWTH] = "growth",
};

/* Other names of the keys: allocinfo calls its live objects "calls". */
static const struct { const char *name; enum kp_key key; } key_aliases[] = {
	{ "objs", KP_OBJS },
};

int kp_key_parse(const char *s, enum kp_key *key)
{
	size_t i;

	for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
		if (!strcmp(s, key_names[i])) {
			*key = (enum kp_key)i;
			return 0;
		}
	}
	for (i = 0; i < sizeof(key_aliases) / sizeof(key_aliases[0]); i++) {
		if (!strcmp(s, key_aliases[i].name)) {
			*key = key_aliases[i].key;
			return 0;
		}
	}
	return -1;
}

const char *kp_key_name(enum kp_key key)
{
	return key < KP_NKEYS ? key_names[key] : "?";
}

int kp_keys_parse(const char *s, struct kp_keys *keys, char *bad,
		  size_t badlen)
{
	size_t n;

	keys->n = 0;
	for (;;) {
		char word[32];

		n = strcspn(s, ",");
		snprintf(word, sizeof(word), "%.*s", (int)n, s);
		if (keys->n == KP_MAX_KEYS)
			return -2;
		if (n >= sizeof(word) ||
		    kp_key_parse(word, &keys->k[keys->n])) {
			if (bad)
				snprintf(bad, badlen, "%.*s", (int)n, s);
			return -1;
		}
		keys->n++;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

bool kp_keys_has(const struct kp_keys *keys, enum kp_key key)
{
	size_t i;

	for (i = 0; i < keys->n; i++)
		if (keys->k[i] == key)
			return true;
	return false;
}

int64_t kp_ratio_round(int64_t part, int64_t whole, int64_t scale)
{
	bool neg = (part < 0) != (whole < 0);
	uint64_t p = part < 0 ? -(uint64_t)part : (uint64_t)part;
	uint64_t w = whole < 0 ? -(uint64_t)whole : (uint64_t)whole;
	uint64_t r;

	if (!w)
		return 0;
#ifdef __SIZEOF_INT128__
	{
		unsigned __int128 x = (unsigned __int128)p * (uint64_t)scale;

		x = (x + w / 2) / w;
		r = x > INT64_MAX ? INT64_MAX : (uint64_t)x;
	}
#else
	{
		double x = (double)p * (double)scale / (double)w + 0.5;

		r = x >= 9.2e18 ? INT64_MAX : (uint64_t)x;
	}
#endif
	return neg ? -(int64_t)r : (int64_t)r;
}

/*
 * Fragmentation, 1 - requested / allocated over every allocation since
 * load (bytes: and req:), in tenths of a percent, rounded; -1 where it
 * means nothing: a site with no live objects wastes nothing now, and
 * allocinfo has no requested sizes.
 */
int64_t kp_frag(const struct kp_site *s)
{
	if (s->objs <= 0 || s->bytes <= 0 || s->total <= 0 || s->req < 0)
		return -1;
	if (s->req >= s->total)
		return 0;
	return kp_ratio_round(s->total - s->req, s->total, 1000);
}

/* Live bytes an object, rounded; -1 for a site with no live objects. */
int64_t kp_avg(const struct kp_site *s)
{
	if (s->objs <= 0 || s->bytes < 0)
		return -1;
	return kp_ratio_round(s->bytes, s->objs, 1);
}

/*
 * The sort key of a ratio, finer than it prints (1/1024 of a byte, of a
 * tenth of a percent); INT64_MIN where it is undefined, which ranks last.
 */
static int64_t ratio_key(const struct kp_site *s, enum kp_key key)
{
	if (key == KP_AVG)
		return kp_avg(s) < 0 ? INT64_MIN :
		       kp_ratio_round(s->bytes, s->objs, 1024);
	if (kp_frag(s) < 0)
		return INT64_MIN;
	return s->req >= s->total ? 0 :
	       kp_ratio_round(s->total - s->req, s->total, 1000 * 1024);
}

static int64_t value(const struct kp_site *s, enum kp_key key)
{
	switch (key) {
	case KP_OBJS:
		return s->objs;
	case KP_AVG:
	case KP_FRAG:
		return ratio_key(s, key);
	case KP_ALLOCS:
		return s->allocs;
	case KP_RATE:
		/* allocations a second, in thousandths */
		return s->rate >= 9e15 ? INT64_MAX :
		       s->rate <= -9e15 ? INT64_MIN : (int64_t)(s->rate * 1000);
	case KP_AGE:
		return s->age_ms;
	case KP_GROWTH:
		return 0;
	case KP_BYTES:
	default:
		return s->bytes;
	}
}

int64_t kp_key_value(const struct kp_site *s, enum kp_key key)
{
	return value(s, key);
}

/*
 * Why a radix sort and not qsort(): make bench's 100k lines (-n 0, parse,
 * sort, print) under callgrind, instructions executed:
 *
 *   radix sort, hand-made printing (this)       295 M
 *   qsort_r(), hand-made printing                352 M  (sort 34 M -> 90 M)
 *   qsort_r(), printf() on a 64 KiB stdout       1067 M  (vfprintf 704 M)
 *
 * The same three with bench.sh (CPU time, best of 7; the machine at a load
 * of 7 on 2 cores, so all three are slow): 135-148, 188-195 and
 * 229-245 ms. qsort with printf misses the 100 ms target by far, and
 * qsort alone costs a fifth more; both stay. Measured 2026-11 on x86-64.
 */

/*
 * The sort works on keys computed once: the value as an unsigned number
 * that orders largest first, the first 8 bytes of the site as a number
 * that orders as strcmp() does, and the index, for a total order.
 */
struct sort_item {
	uint64_t k, pre;
	size_t i;
};

/* How many sites ahead the permutation fetches, and how. */
#define PREFETCH 8

static void prefetch_site(const struct kp_site *s)
{
	__builtin_prefetch(s);
	__builtin_prefetch((const char *)s + sizeof(*s) - 1);
}

static uint64_t prefix(const char *s)
{
	uint64_t x = 0;
	int b;

	for (b = 0; b < 8 && s[b]; b++)
		x |= (uint64_t)(unsigned char)s[b] << (56 - 8 * b);
	return x;
}

/* What the runs of equal first keys are sorted by: the other keys. */
struct sort_ctx {
	const struct kp_site *sites;
	const enum kp_key *more;	/* the keys after the first */
	size_t nmore;
};

/*
 * Equal values: by the other keys, then by site text, so the order is the
 * same every run; equal sites in the order they came.
 */
static int cmp_site(const struct sort_item *x, const struct sort_item *y,
		    const struct sort_ctx *ctx)
{
	const struct kp_site *sites = ctx->sites;
	size_t k;
	int c;

	for (k = 0; k < ctx->nmore; k++) {
		int64_t a = value(&sites[x->i], ctx->more[k]);
		int64_t b = value(&sites[y->i], ctx->more[k]);

		if (a != b)
			return a > b ? -1 : 1;
	}

	if (x->pre != y->pre)
		return x->pre < y->pre ? -1 : 1;
	/* A site shorter than 8 bytes ends in its prefix. */
	if (x->pre & 0xff) {
		c = strcmp(sites[x->i].site + 8, sites[y->i].site + 8);
		if (c)
			return c;
	}
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A run of equal values, by site: insertion sort, or merge sort. */
static void sort_run(struct sort_item *v, struct sort_item *tmp, size_t n,
		     const struct sort_ctx *sites)
{
	size_t i, j, m, h = n / 2;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			struct sort_item x = v[i];

			for (m = i; m > 0 && cmp_site(&v[m - 1], &x, sites) > 0;
			     m--)
				v[m] = v[m - 1];
			v[m] = x;
		}
		return;
	}
	sort_run(v, tmp, h, sites);
	sort_run(v + h, tmp, n - h, sites);
	for (i = 0, j = h, m = 0; i < h && j < n; m++)
		tmp[m] = cmp_site(&v[j], &v[i], sites) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[m++] = v[i++];
	while (j < n)
		tmp[m++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/*
 * Sort @n items by k, then by site, then by index: a stable LSD radix
 * sort by k (a byte a pass; passes where every item has the same byte
 * are skipped), then each run of equal k by site. @tmp holds @n items.
 */
static void sort_items(struct sort_item *v, struct sort_item *tmp, size_t n,
		       const struct sort_ctx *sites)
{
	size_t count[8][256];
	struct sort_item *src = v, *dst = tmp, *t;
	size_t i, j, sum, c;
	unsigned int d, b;

	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
		for (d = 0; d < 8; d++)
			count[d][(v[i].k >> (8 * d)) & 0xff]++;
	for (d = 0; d < 8; d++) {
		if (count[d][(v[0].k >> (8 * d)) & 0xff] == n)
			continue;
		for (b = 0, sum = 0; b < 256; b++) {
			c = count[d][b];
			count[d][b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[d][(src[i].k >> (8 * d)) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].k == v[i].k; j++)
			;
		if (j - i > 1)
			sort_run(v + i, tmp, j - i, sites);
	}
}

void kp_sort(struct kp_profile *p, enum kp_key key)
{
	struct kp_keys keys = { { key }, 1 };

	kp_sort_keys(p, &keys);
}

void kp_sort_keys(struct kp_profile *p, const struct kp_keys *keys)
{
	struct sort_ctx ctx = { p->sites, keys->k + 1,
				keys->n ? keys->n - 1 : 0 };
	enum kp_key key = keys->n ? keys->k[0] : KP_BYTES;
	struct sort_item *items;
	struct kp_site tmp;
	size_t i, j, k, ahead, *perm;

	if (p->n < 2 || p->n > SIZE_MAX / 2 / sizeof(*items))
		return;
	items = malloc(2 * p->n * sizeof(*items));
	if (!items)
		return;		/* out of memory: left as it was */
	/* Largest first: the sign bit flipped and every bit inverted. */
	for (i = 0; i < p->n; i++)
		items[i] = (struct sort_item){
			~((uint64_t)value(&p->sites[i], key) ^ (1ull << 63)),
			prefix(p->sites[i].site), i };
	sort_items(items, items + p->n, p->n, &ctx);
	/*
	 * Permute in place, cycle by cycle: sites[i] = old sites[perm[i]].
	 * perm, the items' indexes copied into the radix sort's spare half,
	 * is small enough to stay in the cache; the sites are read in a
	 * random order: a second walk, PREFETCH steps ahead along the
	 * cycle, fetches them before they are needed.
	 */
	perm = (size_t *)(items + p->n);
	for (i = 0; i < p->n; i++)
		perm[i] = items[i].i;
	for (i = 0; i < p->n; i++) {
		if (perm[i] == i || perm[i] == SIZE_MAX)
			continue;
		tmp = p->sites[i];
		for (ahead = i, k = 0; k < PREFETCH && perm[ahead] != i; k++) {
			ahead = perm[ahead];
			prefetch_site(&p->sites[ahead]);
		}
		for (j = i; perm[j] != i; j = k) {
			k = perm[j];
			if (perm[ahead] != i) {
				ahead = perm[ahead];
				prefetch_site(&p->sites[ahead]);
			}
			p->sites[j] = p->sites[k];
			perm[j] = SIZE_MAX;
		}
		p->sites[j] = tmp;
		perm[j] = SIZE_MAX;
	}
	free(items);
}

/* Whether @s passes @f, its --func compiled into @re. */
static bool site_keep(const struct kp_site *s, const struct kp_filter *f,
		      const regex_t *re)
{
	if (f->kind && (!s->kind || strcmp(s->kind, f->kind)))
		return false;
	if (f->module && (!s->module || strcmp(s->module, f->module)))
		return false;
	if (f->func_re && (!s->func || regexec(re, s->func, 0, NULL, 0)))
		return false;
	return f->min_bytes <= 0 || s->bytes >= f->min_bytes;
}

/* --func, compiled; -1 with @err. */
static int func_re(const struct kp_filter *f, regex_t *re, char *err,
		   size_t errlen)
{
	int rc;

	if (!f->func_re)
		return 0;
	rc = regcomp(re, f->func_re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, re, msg, sizeof(msg));
		snprintf(err, errlen, "--func '%s': %s", f->func_re, msg);
		return -1;
	}
	return 0;
}

int kp_filter_apply(struct kp_profile *p, const struct kp_filter *f,
		    char *err, size_t errlen)
{
	regex_t re;
	size_t i, kept = 0;

	if (!f->kind && !f->module && !f->func_re && f->min_bytes <= 0)
		return 0;	/* nothing to filter: keep every site */
	if (func_re(f, &re, err, errlen))
		return -1;
	for (i = 0; i < p->n; i++) {
		struct kp_site *s = &p->sites[i];

		if (site_keep(s, f, &re))
			p->sites[kept++] = *s;
		else
			kp_site_release(s);
	}
	p->n = kept;
	if (f->func_re)
		regfree(&re);
	return 0;
}

int kp_filter_keep(const struct kp_site *first, size_t n, size_t stride,
		   const struct kp_filter *f, bool *keep, char *err,
		   size_t errlen)
{
	const char *t = (const char *)first;
	regex_t re;
	size_t i;

	if (func_re(f, &re, err, errlen))
		return -1;
	for (i = 0; i < n; i++, t += stride)
		keep[i] = site_keep((const struct kp_site *)t, f, &re);
	if (f->func_re)
		regfree(&re);
	return 0;
}
