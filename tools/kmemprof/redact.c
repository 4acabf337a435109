// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the one redaction of every output that leaves the
 * machine: serve's answers, --prometheus, --openmetrics, --pprof and
 * watch --prometheus-file. The tables, --json, --csv, snapshots and
 * records are for root on the machine itself and keep the addresses.
 *
 * A site the kernel could not name is printed as its address ("0x" and
 * 16 hex digits; sprint_symbol() and %pS ignore kptr_restrict), which
 * would undo KASLR for whoever reads the output. Each such word becomes
 * "unknown#N", N the order in which this redactor first met the
 * address: stable for as long as it lives (serve's run, watch's), up to
 * KP_REDACT_MAX addresses, "unknown" past that.
 *
 * Locking: @lock guards the address table; the strings are the caller's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "redact.h"

void kp_redactor_init(struct kp_redactor *r)
{
	pthread_mutex_init(&r->lock, NULL);
	r->n = 0;
}

void kp_redactor_destroy(struct kp_redactor *r)
{
	pthread_mutex_destroy(&r->lock);
}

/* The number of @a, from 1; 0 when the table is full. */
static size_t addr_number(struct kp_redactor *r, uint64_t a)
{
	size_t i;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->n && r->addrs[i] != a; i++)
		;
	if (i == r->n && i < KP_REDACT_MAX)
		r->addrs[r->n++] = a;
	pthread_mutex_unlock(&r->lock);
	return i < KP_REDACT_MAX ? i + 1 : 0;
}

void kp_redact(struct kp_redactor *r, char *s)
{
	char ph[32], *p;
	size_t off, n, len, pl;

	for (p = s; p && *p; p++) {
		if (p != s && p[-1] != ' ' && p[-1] != ',')
			continue;
		off = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 2 : 0;
		for (n = 0; isxdigit((unsigned char)p[off + n]); n++)
			;
		if (off ? n < 8 : n < 16)
			continue;
		len = off + n;
		n = addr_number(r, strtoull(p + off, NULL, 16));
		pl = (size_t)snprintf(ph, sizeof(ph), "unknown#%zu", n);
		if (!n || pl > len)
			pl = (size_t)snprintf(ph, sizeof(ph), "unknown");
		memcpy(p, ph, pl);
		memmove(p + pl, p + len, strlen(p + len) + 1);
		p += pl - 1;
	}
}

static void redact_site(struct kp_redactor *r, struct kp_site *s)
{
	kp_redact(r, s->site);
	kp_redact(r, s->func);
	kp_redact(r, s->callers);
}

void kp_redact_profile(struct kp_redactor *r, struct kp_profile *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		redact_site(r, &p->sites[i]);
}

void kp_redact_stacks(struct kp_redactor *r, struct kp_stacks *st)
{
	size_t i, f;

	for (i = 0; i < st->n; i++) {
		for (f = 0; f < st->v[i].nframes; f++)
			kp_redact(r, st->v[i].frames[f]);
		kp_redact(r, st->v[i].site);
		redact_site(r, &st->v[i].tag);
	}
}

void kp_redact_owners(struct kp_redactor *r, struct kp_owners *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		redact_site(r, &o->v[i].tag);
}
