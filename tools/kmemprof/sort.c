// SPDX-License-Identifier: GPL-2.0
/* kmemprof reader: sorting and filtering the parsed profile. */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

static const char * const key_names[] = {
	[KP_BYTES] = "bytes", [KP_OBJS] = "calls", [KP_AVG] = "avg",
	[KP_ALLOCS] = "allocs", [KP_FRAG] = "frag", [KP_RATE] = "rate",
	[KP_AGE] = "age",
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
	return -1;
}

/* Fragmentation in thousandths: 1 - requested / allocated, cumulative. */
static int64_t frag(const struct kp_site *s)
{
	if (s->total <= 0 || s->req < 0 || s->req > s->total)
		return 0;
	return (s->total - s->req) * 1000 / s->total;
}

static int64_t value(const struct kp_site *s, enum kp_key key)
{
	switch (key) {
	case KP_OBJS:
		return s->objs;
	case KP_AVG:
		return s->objs > 0 ? s->bytes / s->objs : 0;
	case KP_ALLOCS:
		return s->allocs;
	case KP_FRAG:
		return frag(s);
	case KP_RATE:
		/* allocations a second, in thousandths */
		return s->rate >= 9e15 ? INT64_MAX :
		       s->rate <= -9e15 ? INT64_MIN : (int64_t)(s->rate * 1000);
	case KP_AGE:
		return s->age_ms;
	case KP_BYTES:
	default:
		return s->bytes;
	}
}

/* The sort works on keys computed once: (value, site, index). */
struct sort_item {
	int64_t v;
	const char *site;
	size_t i;
};

/* Largest first; ties by site text, so the order is the same every run. */
static int cmp(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return strcmp(x->site, y->site);
}

void kp_sort(struct kp_profile *p, enum kp_key key)
{
	struct sort_item *items;
	struct kp_site tmp;
	size_t i, j, k;

	if (p->n < 2)
		return;
	items = malloc(p->n * sizeof(*items));
	if (!items)
		return;		/* out of memory: left as it was */
	for (i = 0; i < p->n; i++)
		items[i] = (struct sort_item){ value(&p->sites[i], key),
					       p->sites[i].site, i };
	qsort(items, p->n, sizeof(*items), cmp);
	/* Permute in place, cycle by cycle: sites[i] = old sites[items[i].i]. */
	for (i = 0; i < p->n; i++) {
		if (items[i].i == i || items[i].i == SIZE_MAX)
			continue;
		tmp = p->sites[i];
		for (j = i; items[j].i != i; j = k) {
			k = items[j].i;
			p->sites[j] = p->sites[k];
			items[j].i = SIZE_MAX;
		}
		p->sites[j] = tmp;
		items[j].i = SIZE_MAX;
	}
	free(items);
}

int kp_filter_apply(struct kp_profile *p, const struct kp_filter *f,
		    char *err, size_t errlen)
{
	regex_t re;
	size_t i, kept = 0;
	int rc;

	if (!f->kind && !f->module && !f->func_re && f->min_bytes <= 0)
		return 0;	/* nothing to filter: keep every site */
	if (f->func_re) {
		rc = regcomp(&re, f->func_re, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			snprintf(err, errlen, "--func '%s': %s", f->func_re, msg);
			return -1;
		}
	}
	for (i = 0; i < p->n; i++) {
		struct kp_site *s = &p->sites[i];
		int keep = 1;

		if (f->kind && (!s->kind || strcmp(s->kind, f->kind)))
			keep = 0;
		if (f->module && (!s->module || strcmp(s->module, f->module)))
			keep = 0;
		if (f->func_re && regexec(&re, s->func, 0, NULL, 0))
			keep = 0;
		if (f->min_bytes > 0 && s->bytes < f->min_bytes)
			keep = 0;
		if (keep)
			p->sites[kept++] = *s;
		else
			kp_site_release(s);
	}
	p->n = kept;
	if (f->func_re)
		regfree(&re);
	return 0;
}
