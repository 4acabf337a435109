// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile as a gzipped pprof profile (profile.proto,
 * encoded with protobuf-c, compressed with zlib), which go tool pprof,
 * Parca and Pyroscope read.
 *
 * Sample types, in this order: alloc_objects/count, alloc_space/bytes,
 * inuse_objects/count, inuse_space/bytes (the default). Each site is one
 * sample whose locations are the site and its caller: keys, nearest first.
 * With the stacks view, a site that has sampled stacks is split into one
 * sample per stack, by the stacks' share of the tag's sampled bytes, plus
 * one sample for the share of the stacks the view does not list; the
 * split values add up to the site's exactly. With the owners view, a
 * site is first split by owner (site_samples()), each part labelled
 * owner="<owner>" (kp_oline.owner).
 *
 * One location per distinct frame (a site is a frame), its address the
 * frame's offset in its function ("+0x98"), so that pprof keeps two call
 * sites of one function apart; one function per distinct symbol and
 * module; one mapping per module, named "[module]" as perf names them,
 * after "[kernel.kallsyms]", which is always the first (pprof's "File:").
 * Symbols are up to KSYM_NAME_LEN bytes, as the kernel allows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "keymap.h"
#include "outfile.h"
#include "output.h"
#include "profile.h"

#ifndef KP_HAVE_PPROF

int kp_pprof_gz(const struct kp_profile *p, const struct kp_stacks *st,
		const struct kp_owners *ow, const char *deflt, void **buf,
		size_t *len, char *err, size_t errlen)
{
	(void)p;
	(void)st;
	(void)ow;
	(void)deflt;
	*buf = NULL;
	*len = 0;
	snprintf(err, errlen, "built without protobuf-c and zlib (pprof)");
	return -ENOTSUP;
}

int kp_out_pprof(const char *path, const struct kp_profile *p,
		 const struct kp_stacks *st, const struct kp_owners *ow,
		 mode_t mode, char *err, size_t errlen)
{
	(void)path;
	(void)p;
	(void)st;
	(void)ow;
	(void)mode;
	snprintf(err, errlen, "built without protobuf-c and zlib (pprof)");
	return -ENOTSUP;
}

#else

#include <zlib.h>
#include "profile.pb-c.h"

/* The kernel's longest symbol (include/linux/kallsyms.h), and module name. */
#define KSYM_NAME_LEN 512
#define MODULE_NAME_LEN 64
/* A frame's text: "sym+0xoff/0xlen [module]". */
#define FRAME_LEN (KSYM_NAME_LEN + MODULE_NAME_LEN + 48)

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__ValueType pb_vtype;
typedef Perftools__Profiles__Label pb_label;

/*
 * Interned strings, numbered in the order they came: keymap.c's table (the
 * string table is its keys, in their order). -1 on ENOMEM; @added (if
 * not NULL) says whether @s was new.
 */
static int64_t intern(struct kp_keymap *t, const char *s, bool *added)
{
	bool dummy;

	return kp_keymap_get(t, s, true, added ? added : &dummy);
}

/*
 * Growing arrays of protobuf messages (pointers, as protobuf-c wants):
 * PUSH() is 0, or -1 when @item is NULL or the array cannot grow.
 */
static void *grow(void *arr, size_t n, size_t *cap, size_t size)
{
	size_t c;
	void *v;

	if (n < *cap)
		return arr;
	c = *cap ? 2 * *cap : 64;
	v = realloc(arr, c * size);
	if (v)
		*cap = c;
	return v;
}

#define PUSH(arr, n, cap, item)						\
	(!(item) || !(pp->tmp = grow((arr), (n), &(cap), sizeof(*(arr)))) ? \
	 -1 : ((arr) = pp->tmp, (arr)[(n)++] = (item), 0))

struct pp {
	pb_profile prof;
	struct kp_keymap strs;	/* the string table */
	struct kp_keymap funcs;	/* "sym [module]" -> function id - 1 */
	struct kp_keymap locs;	/* frame text -> location id - 1 */
	struct kp_keymap maps;	/* module ("" kernel) -> mapping id - 1 */
	size_t csample, cloc, cfunc, cmap;
	void *tmp;		/* PUSH()'s */
	bool oom;
};

/* @s in the string table, valid UTF-8 as proto3 wants (escape.c). */
static int64_t str(struct pp *pp, const char *s)
{
	char *copy;
	const char *v = kp_utf8_fixed(s ? s : "", &copy);
	int64_t i = v ? intern(&pp->strs, v, NULL) : -1;

	free(copy);
	if (i < 0) {
		pp->oom = true;
		return 0;
	}
	return i;
}

static uint64_t mapping(struct pp *pp, const char *module)
{
	bool added;
	int64_t i = intern(&pp->maps, module ? module : "", &added);
	pb_mapping *m;
	char name[MODULE_NAME_LEN + 2];

	if (i < 0 || !added) {
		pp->oom |= i < 0;
		return i + 1;
	}
	m = calloc(1, sizeof(*m));
	if (PUSH(pp->prof.mapping, pp->prof.n_mapping, pp->cmap, m)) {
		free(m);
		pp->oom = true;
		return 0;
	}
	perftools__profiles__mapping__init(m);
	m->id = i + 1;
	if (module)
		snprintf(name, sizeof(name), "[%s]", module);
	m->filename = str(pp, module ? name : "[kernel.kallsyms]");
	m->has_functions = true;
	return m->id;
}

static uint64_t function(struct pp *pp, const char *sym, const char *module,
			 const char *file, int64_t line)
{
	char key[FRAME_LEN];
	bool added;
	int64_t i;
	pb_function *f;

	snprintf(key, sizeof(key), "%s [%s]", sym, module ? module : "");
	i = intern(&pp->funcs, key, &added);
	if (i < 0 || !added) {
		pp->oom |= i < 0;
		return i + 1;
	}
	f = calloc(1, sizeof(*f));
	if (PUSH(pp->prof.function, pp->prof.n_function, pp->cfunc, f)) {
		free(f);
		pp->oom = true;
		return 0;
	}
	perftools__profiles__function__init(f);
	f->id = i + 1;
	f->name = str(pp, sym);
	f->system_name = f->name;
	f->filename = str(pp, file);
	f->start_line = line;
	return f->id;
}

/*
 * A frame as the views print it, "sym+0x38/0x48", "sym+0x38/0x48 [mod]" or
 * "sym+0x38/0x48[mod]" (caller: keys), or an allocinfo site "file:line"
 * with @func. @srcline, "file:line" from DWARF, names the source, and
 * @srcfunc the function inlined at the frame that holds that line: the
 * location's first line then, as pprof has inlined calls, and the
 * symbol's function its second, the caller, at line 0 (not known).
 */
static uint64_t location(struct pp *pp, const char *frame, const char *func,
			 const char *module, const char *srcline,
			 const char *srcfunc)
{
	char sym[KSYM_NAME_LEN], mod[MODULE_NAME_LEN], file[512], key[FRAME_LEN];
	const char *br = strchr(frame, '[');
	const char *colon, *plus;
	int64_t line = 0, i;
	size_t len, nl;
	bool added;
	pb_location *l;
	pb_line *ln, *outer = NULL;

	mod[0] = file[0] = '\0';
	if (br) {
		snprintf(mod, sizeof(mod), "%s", br + 1);
		mod[strcspn(mod, "]")] = '\0';
		module = mod;
	}
	len = br ? (size_t)(br - frame) : strlen(frame);
	while (len && frame[len - 1] == ' ')
		len--;
	snprintf(key, sizeof(key), "%.*s [%s]", (int)len, frame,
		 module ? module : "");
	i = intern(&pp->locs, key, &added);
	if (i < 0 || !added) {
		pp->oom |= i < 0;
		return i + 1;
	}
	if (func) {
		/* allocinfo: the site is file:line */
		snprintf(sym, sizeof(sym), "%s", func);
		srcline = srcline ? srcline : frame;
	} else {
		len = strcspn(frame, "+ [");
		snprintf(sym, sizeof(sym), "%.*s", (int)len, frame);
	}
	if (srcline && (colon = strrchr(srcline, ':'))) {
		snprintf(file, sizeof(file), "%.*s", (int)(colon - srcline),
			 srcline);
		line = strtoll(colon + 1, NULL, 10);
	}
	nl = srcfunc && line ? 2 : 1;
	l = calloc(1, sizeof(*l));
	ln = calloc(1, sizeof(*ln));
	if (nl == 2)
		outer = calloc(1, sizeof(*outer));
	if (!ln || (nl == 2 && !outer) ||
	    PUSH(pp->prof.location, pp->prof.n_location, pp->cloc, l)) {
		free(l);
		free(ln);
		free(outer);
		pp->oom = true;
		return 0;
	}
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(ln);
	l->id = i + 1;
	l->mapping_id = mapping(pp, module && *module ? module : NULL);
	/* "sym+0x98/0x5d4": 0x98, the call site's offset in its function. */
	plus = func ? NULL : strstr(frame, "+0x");
	if (plus)
		l->address = strtoull(plus + 1, NULL, 16);
	ln->line = line;
	if (outer) {
		perftools__profiles__line__init(outer);
		ln->function_id = function(pp, srcfunc, module, file, line);
		outer->function_id = function(pp, sym, module, "", 0);
	} else {
		ln->function_id = function(pp, sym, module, file, line);
	}
	l->line = calloc(nl, sizeof(*l->line));
	if (!l->line) {
		free(ln);
		free(outer);
		pp->oom = true;
		return l->id;
	}
	l->line[0] = ln;
	if (outer)
		l->line[1] = outer;
	l->n_line = nl;
	return l->id;
}

static int add_label(struct pp *pp, pb_sample *s, const char *key,
		     const char *val)
{
	pb_label *lb = calloc(1, sizeof(*lb));
	pb_label **v = realloc(s->label, (s->n_label + 1) * sizeof(*v));

	if (!lb || !v) {
		free(lb);
		if (v)
			s->label = v;
		return -1;
	}
	perftools__profiles__label__init(lb);
	lb->key = str(pp, key);
	lb->str = str(pp, val);
	s->label = v;
	s->label[s->n_label++] = lb;
	return 0;
}

/*
 * One sample: @frames (nearest first) then the site's callers; labelled
 * with @owner if not NULL.
 */
static void sample(struct pp *pp, const struct kp_site *site,
		   char *const *frames, size_t nframes, const int64_t v[4],
		   const char *owner)
{
	pb_sample *s = calloc(1, sizeof(*s));
	const char *c, *comma;
	char frame[FRAME_LEN];
	size_t i, ncallers = 0;

	if (PUSH(pp->prof.sample, pp->prof.n_sample, pp->csample, s)) {
		free(s);
		pp->oom = true;
		return;
	}
	perftools__profiles__sample__init(s);
	for (c = site->callers; c && *c; c = comma ? comma + 1 : NULL) {
		comma = strchr(c, ',');
		ncallers++;
	}
	s->location_id = calloc(nframes + ncallers + 1,
				sizeof(*s->location_id));
	s->value = calloc(4, sizeof(*s->value));
	if (!s->location_id || !s->value) {
		pp->oom = true;
		return;
	}
	if (!nframes) {
		s->location_id[s->n_location_id++] = location(pp, site->site,
			strstr(site->site, "+0x") ? NULL : site->func,
			site->module, site->srcline, site->srcfunc);
	}
	for (i = 0; i < nframes; i++)
		s->location_id[s->n_location_id++] = location(pp, frames[i],
			NULL, i ? NULL : site->module, i ? NULL : site->srcline,
			i ? NULL : site->srcfunc);
	/* Stacks from the view hold the callers already. */
	for (c = nframes ? NULL : site->callers; c && *c;
	     c = comma ? comma + 1 : NULL) {
		comma = strchr(c, ',');
		snprintf(frame, sizeof(frame), "%.*s",
			 (int)(comma ? (size_t)(comma - c) : strlen(c)), c);
		s->location_id[s->n_location_id++] = location(pp, frame, NULL,
							      NULL, NULL, NULL);
	}
	memcpy(s->value, v, 4 * sizeof(*v));
	s->n_value = 4;
	if ((site->kind && add_label(pp, s, "kind", site->kind)) ||
	    (site->module && add_label(pp, s, "module", site->module)) ||
	    (owner && add_label(pp, s, "owner", owner)))
		pp->oom = true;
}

/* Split @v by @w / @wsum; the last share takes what rounding left. */
static void share(const int64_t v[4], int64_t left[4], int64_t w,
		  int64_t wsum, bool last, int64_t out[4])
{
	int i;

	for (i = 0; i < 4; i++) {
		out[i] = last ? left[i] :
			(int64_t)((long double)v[i] * w / wsum);
		if (out[i] > left[i])
			out[i] = left[i];
		left[i] -= out[i];
	}
}

/* @v of @site, split by its stacks (@idx of @st) if it has any. */
static void stack_samples(struct pp *pp, const struct kp_site *site,
			  const struct kp_stacks *st, const size_t *idx,
			  size_t nidx, const int64_t v[4], const char *owner)
{
	int64_t left[4], out[4], wsum = 0, wtag = 0, w;
	size_t i;

	for (i = 0; i < 4; i++)
		left[i] = v[i];
	for (i = 0; i < nidx; i++) {
		wsum += st->v[idx[i]].bytes > 0 ? st->v[idx[i]].bytes : 0;
		wtag = st->v[idx[i]].tag_bytes;
	}
	if (!nidx || wsum <= 0) {
		sample(pp, site, NULL, 0, v, owner);
		return;
	}
	/* The stacks the view left out get the rest, with the site alone. */
	if (wtag > wsum)
		w = wtag;
	else
		w = wsum;
	for (i = 0; i < nidx; i++) {
		const struct kp_stack *k = &st->v[idx[i]];

		share(v, left, k->bytes > 0 ? k->bytes : 0, w,
		      i == nidx - 1 && w == wsum, out);
		sample(pp, site, k->frames, k->nframes, out, owner);
	}
	if (w > wsum)
		sample(pp, site, NULL, 0, left, owner);
}

/*
 * A site's samples. With its lines of the owners view (@ol, @nol), one
 * part per line, labelled owner, then what no line holds, unlabelled:
 * a line's live objects and bytes are its own, its allocations those
 * charged to it, and its allocated bytes those at the site's mean size
 * (the view has no allocated bytes); each part is at most what is left
 * of the site's, so that the parts add up to the site's exactly. Each
 * part is split by the stacks as the site is (the view has no owner a
 * stack).
 */
static void site_samples(struct pp *pp, const struct kp_site *site,
			 const struct kp_stacks *st, const size_t *idx,
			 size_t nidx, const struct kp_oline *const *ol,
			 size_t nol)
{
	int64_t v[4], left[4], ov[4];
	size_t i, j;
	bool rest = false;

	v[0] = site->allocs >= 0 ? site->allocs : site->objs;
	v[1] = site->total >= 0 ? site->total : site->bytes;
	v[2] = site->objs;
	v[3] = site->bytes;
	for (i = 0; i < 4; i++)
		left[i] = v[i] = v[i] > 0 ? v[i] : 0;
	if (!nol) {
		stack_samples(pp, site, st, idx, nidx, v, NULL);
		return;
	}
	for (j = 0; j < nol; j++) {
		const struct kp_oline *l = ol[j];

		ov[0] = l->tag.allocs > 0 ? l->tag.allocs : 0;
		ov[1] = v[0] ? (int64_t)((long double)ov[0] * v[1] / v[0]) : 0;
		ov[2] = l->tag.objs > 0 ? l->tag.objs : 0;
		ov[3] = l->tag.bytes > 0 ? l->tag.bytes : 0;
		for (i = 0; i < 4; i++) {
			if (ov[i] > left[i])
				ov[i] = left[i];
			left[i] -= ov[i];
		}
		stack_samples(pp, site, st, idx, nidx, ov, l->owner);
	}
	for (i = 0; i < 4; i++)
		rest |= left[i] > 0;
	if (rest)
		stack_samples(pp, site, st, idx, nidx, left, NULL);
}

/*
 * The owners view's lines of each site key, chained: @first[k] and
 * @next[i] are line indexes + 1 (0 ends), k the key's in @keys.
 */
struct owner_chain {
	struct kp_keymap keys;
	size_t *first, *next;
	bool *used;		/* a key's lines go to its first site only */
	const struct kp_oline **v;	/* one site's, for site_samples() */
};

static void chain_free(struct owner_chain *c)
{
	kp_keymap_free(&c->keys);
	free(c->first);
	free(c->next);
	free(c->used);
	free(c->v);
}

static int chain_init(struct owner_chain *c, const struct kp_owners *ow)
{
	char key[KP_KEY_LEN];
	size_t i;
	int64_t k;

	memset(c, 0, sizeof(*c));
	if (kp_keymap_init(&c->keys, ow->n))
		return -1;
	c->first = calloc(ow->n + 1, sizeof(*c->first));
	c->next = calloc(ow->n + 1, sizeof(*c->next));
	c->used = calloc(ow->n + 1, sizeof(*c->used));
	c->v = calloc(ow->n + 1, sizeof(*c->v));
	if (!c->first || !c->next || !c->used || !c->v)
		return -1;
	for (i = ow->n; i-- > 0;) {
		k = intern(&c->keys, kp_site_key(&ow->v[i].tag, key,
						 sizeof(key)), NULL);
		if (k < 0)
			return -1;
		c->next[i] = c->first[k];
		c->first[k] = i + 1;
	}
	return 0;
}

/* The lines of @site's key into @c->v, the first time it is met. */
static size_t site_owners(struct owner_chain *c, const struct kp_owners *ow,
			  const struct kp_site *site)
{
	char key[KP_KEY_LEN];
	bool added;
	size_t j, n = 0;
	long k = kp_keymap_get(&c->keys, kp_site_key(site, key, sizeof(key)),
			       false, &added);

	if (k < 0 || c->used[k])
		return 0;
	c->used[k] = true;
	for (j = c->first[k]; j; j = c->next[j - 1])
		c->v[n++] = &ow->v[j - 1];
	return n;
}

static int build(struct pp *pp, const struct kp_profile *p,
		 const struct kp_stacks *st, const struct kp_owners *ow,
		 const char *deflt)
{
	struct owner_chain oc = { 0 };
	size_t nol;
	static const char *const types[4][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};
	struct kp_keymap keys;
	size_t i, j, *first = NULL, *next = NULL, *idx = NULL, nidx;
	char key[1024];
	pb_vtype *vt;
	int64_t k;

	if (kp_keymap_init(&keys, st ? st->n : 0))
		return -ENOMEM;
	if (ow && ow->n && chain_init(&oc, ow))
		goto oom;
	str(pp, "");
	pp->prof.sample_type = calloc(4, sizeof(*pp->prof.sample_type));
	if (!pp->prof.sample_type)
		goto oom;
	for (i = 0; i < 4; i++) {
		vt = calloc(1, sizeof(*vt));
		if (!vt)
			goto oom;
		perftools__profiles__value_type__init(vt);
		vt->type = str(pp, types[i][0]);
		vt->unit = str(pp, types[i][1]);
		pp->prof.sample_type[pp->prof.n_sample_type++] = vt;
	}
	pp->prof.default_sample_type = str(pp, deflt);
	pp->prof.period_type = calloc(1, sizeof(*pp->prof.period_type));
	if (!pp->prof.period_type)
		goto oom;
	perftools__profiles__value_type__init(pp->prof.period_type);
	pp->prof.period_type->type = str(pp, "space");
	pp->prof.period_type->unit = str(pp, "bytes");
	pp->prof.period = 1;
	pp->prof.time_nanos = p->time > 0 ? (int64_t)(p->time * 1e9) :
		(int64_t)time(NULL) * 1000000000;
	pp->prof.comment = calloc(1, sizeof(*pp->prof.comment));
	if (!pp->prof.comment)
		goto oom;
	snprintf(key, sizeof(key), "kmemprof: %s %s",
		 p->source == KP_ALLOCINFO ? "allocinfo" : "kmemprof",
		 p->version);
	pp->prof.comment[pp->prof.n_comment++] = str(pp, key);
	mapping(pp, NULL);	/* [kernel.kallsyms] is mapping 1, pprof's File: */

	/* The stacks of each tag, chained by tag key. */
	if (st && st->n) {
		first = calloc(st->n, sizeof(*first));
		next = calloc(st->n, sizeof(*next));
		idx = calloc(st->n, sizeof(*idx));
		if (!first || !next || !idx)
			goto oom;
		for (i = st->n; i-- > 0;) {
			k = intern(&keys, kp_site_key(&st->v[i].tag, key,
						     sizeof(key)), NULL);
			if (k < 0)
				goto oom;
			next[i] = first[k];
			first[k] = i + 1;
		}
	}
	for (i = 0; i < p->n && !pp->oom; i++) {
		nidx = 0;
		if (first) {
			k = intern(&keys, kp_site_key(&p->sites[i], key,
						      sizeof(key)), NULL);
			if (k < 0)
				goto oom;
			for (j = (size_t)k < st->n ? first[k] : 0; j;
			     j = next[j - 1])
				idx[nidx++] = j - 1;
		}
		nol = oc.first ? site_owners(&oc, ow, &p->sites[i]) : 0;
		site_samples(pp, &p->sites[i], st, idx, nidx, oc.v, nol);
	}
	chain_free(&oc);
	kp_keymap_free(&keys);
	free(first);
	free(next);
	free(idx);
	return pp->oom ? -ENOMEM : 0;
oom:
	chain_free(&oc);
	kp_keymap_free(&keys);
	free(first);
	free(next);
	free(idx);
	return -ENOMEM;
}

static void pp_free(struct pp *pp)
{
	pb_profile *pr = &pp->prof;
	size_t i, j;

	for (i = 0; i < pr->n_sample_type; i++)
		free(pr->sample_type[i]);
	free(pr->sample_type);
	for (i = 0; i < pr->n_sample; i++) {
		for (j = 0; j < pr->sample[i]->n_label; j++)
			free(pr->sample[i]->label[j]);
		free(pr->sample[i]->label);
		free(pr->sample[i]->location_id);
		free(pr->sample[i]->value);
		free(pr->sample[i]);
	}
	free(pr->sample);
	for (i = 0; i < pr->n_location; i++) {
		for (j = 0; j < pr->location[i]->n_line; j++)
			free(pr->location[i]->line[j]);
		free(pr->location[i]->line);
		free(pr->location[i]);
	}
	free(pr->location);
	for (i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	free(pr->function);
	for (i = 0; i < pr->n_mapping; i++)
		free(pr->mapping[i]);
	free(pr->mapping);
	free(pr->period_type);
	free(pr->comment);
	kp_keymap_free(&pp->strs);
	kp_keymap_free(&pp->funcs);
	kp_keymap_free(&pp->locs);
	kp_keymap_free(&pp->maps);
}

/* @in, gzipped (as gzip(1) writes it) into a malloc()ed buffer. */
static int gzip_buf(const uint8_t *in, size_t len, void **out, size_t *olen)
{
	z_stream z = { 0 };
	size_t cap;
	uint8_t *buf;
	int rc;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS,
			 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)in;
	z.avail_in = len;
	z.next_out = buf;
	z.avail_out = cap;
	rc = deflate(&z, Z_FINISH);
	*olen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	return 0;
}

int kp_pprof_gz(const struct kp_profile *p, const struct kp_stacks *st,
		const struct kp_owners *ow, const char *deflt, void **out,
		size_t *olen, char *err, size_t errlen)
{
	struct pp pp = { 0 };
	uint8_t *buf = NULL;
	size_t len;
	int ret;

	*out = NULL;
	*olen = 0;
	perftools__profiles__profile__init(&pp.prof);
	if (kp_keymap_init(&pp.strs, 4 * p->n + 64) ||
	    kp_keymap_init(&pp.funcs, p->n + 16) ||
	    kp_keymap_init(&pp.locs, 2 * p->n + 16) ||
	    kp_keymap_init(&pp.maps, 64))
		ret = -ENOMEM;
	else
		ret = build(&pp, p, st, ow, deflt);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* The string table is the interned strings, in their order. */
	pp.prof.string_table = pp.strs.keys;
	pp.prof.n_string_table = pp.strs.n;
	len = perftools__profiles__profile__get_packed_size(&pp.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	perftools__profiles__profile__pack(&pp.prof, buf);
	pp.prof.string_table = NULL;
	pp.prof.n_string_table = 0;
	ret = gzip_buf(buf, len, out, olen);
	if (ret)
		snprintf(err, errlen, "gzip: %s", strerror(-ret));
out:
	free(buf);
	pp_free(&pp);
	return ret;
}

int kp_out_pprof(const char *path, const struct kp_profile *p,
		 const struct kp_stacks *st, const struct kp_owners *ow,
		 mode_t mode, char *err, size_t errlen)
{
	struct kp_outfile of;
	char why[256];
	void *buf;
	size_t len;
	int ret;

	ret = kp_pprof_gz(p, st, ow, "inuse_space", &buf, &len, why,
			  sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		return ret;
	}
	ret = kp_outfile_open(&of, path, mode, err, errlen);
	if (ret) {
		free(buf);
		return ret;
	}
	/* Close whatever the write did; either failing fails the file. */
	ret = fwrite(buf, 1, len, of.f) != len ? -EIO : 0;
	if (ret) {
		kp_outfile_close(&of, false, true, err, errlen);
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(EIO));
	} else {
		ret = kp_outfile_close(&of, true, true, err, errlen);
	}
	free(buf);
	return ret;
}

#endif /* KP_HAVE_PPROF */
