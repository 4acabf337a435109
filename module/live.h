/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: live.c's inline half, the live table's slots as every event
 * reaches them (probes.h, nmi.c, live.c): a key's group, the claim, fill
 * and take of a slot, and an object's time. See live.c for the table, its
 * spill chains and its notes on locking.
 */
#ifndef _KMEMPROF_LIVE_H
#define _KMEMPROF_LIVE_H

#include "internal.h"
#include "options.h"
#include "tables.h"

#define KMP_GROUP	4
/*
 * A slot being written. Live keys have their kind in the low two bits
 * (kmp_key_addr(), kmp_key_pfn()) and no kind is 3, so no key is
 * KMP_BUSY, not even PFN 0's (1) or a NULL percpu pointer's (2).
 */
#define KMP_BUSY	3UL

/* Its time is apart, in kmp_tab.times (kmp_slot_time()). */
struct kmp_slot {
	unsigned long key;
	u32 tag;
	u32 size;
	u32 req;
	u32 seq;	/* publishes of the slot, for the walkers: see live.c */
};

static_assert(sizeof(struct kmp_slot) == 24);

extern unsigned int kmp_group_bits;

/*
 * An object's time and CPU in one word: the time in units of 16 ns in the
 * low 52 bits (two years), the CPU above.
 */
#define KMP_TIME_SHIFT		4
#define KMP_CPU_SHIFT		52

static __always_inline u64 kmp_time_cpu(const struct kmp_obj *obj)
{
	return (obj->time >> KMP_TIME_SHIFT) | (u64)obj->cpu << KMP_CPU_SHIFT;
}

static __always_inline void kmp_time_cpu_split(u64 tc, struct kmp_obj *obj)
{
	obj->time = (tc & (BIT_ULL(KMP_CPU_SHIFT) - 1)) << KMP_TIME_SHIFT;
	obj->cpu = tc >> KMP_CPU_SHIFT;
}

static __always_inline u32 kmp_live_group(unsigned long key)
{
	return kmp_hash(key) >> kmp_tab.group_shift;
}

/*
 * The time of slot @s (kmp_time_cpu()), 0 for none: also where the times
 * are not allocated. Only right while the slot is held, as its other
 * fields: live.c's notes say what a slot filled with no time keeps.
 */
static __always_inline u64 kmp_slot_time(const struct kmp_slot *s)
{
	u64 *times = READ_ONCE(kmp_tab.times);

	return times ? READ_ONCE(times[s - kmp_tab.slots]) : 0;
}

static __always_inline void kmp_slot_set_time(struct kmp_slot *s,
					      u64 time_cpu)
{
	u64 *times = READ_ONCE(kmp_tab.times);

	if (times)
		WRITE_ONCE(times[s - kmp_tab.slots], time_cpu);
}

/*
 * The slots of group @g, 96 bytes a group. Written as (g * 3) << 5, which
 * the compiler makes two shifted adds, where g * 96 comes out as a
 * constant, a shift and a multiply; and hidden from it once made, so
 * that a scan of the group ends at the pointer plus 96, rather than at
 * the offset added again (a shift more at every event than the groups of
 * 128 bytes took).
 */
static __always_inline struct kmp_slot *kmp_live_slots(u32 g)
{
	unsigned long off = (unsigned long)(g * 3) << 5;
	struct kmp_slot *s;

	BUILD_BUG_ON(KMP_GROUP * sizeof(struct kmp_slot) != 3 << 5);
	s = (void *)kmp_tab.slots + off;
	OPTIMIZER_HIDE_VAR(s);
	return s;
}

/* Slot @s's object, into @obj; its time too where @timed, else none. */
static __always_inline void __kmp_slot_get(const struct kmp_slot *s,
					   struct kmp_obj *obj,
					   const bool timed)
{
	obj->tag = READ_ONCE(s->tag);
	obj->size = READ_ONCE(s->size);
	obj->req = READ_ONCE(s->req);
	kmp_time_cpu_split(timed ? kmp_slot_time(s) : 0, obj);
}

/*
 * The slots' owner lines (owners.c), one u32 a slot at the slot's index,
 * as the times are kept: NULL until owners first go on, then kept. Only
 * the general path and nmi.c read or write them, never the fast paths,
 * which owners keep off (live.c's notes say why that is enough).
 */
extern u32 *kmp_live_owners;

static __always_inline u32 kmp_slot_owner(const struct kmp_slot *s)
{
	u32 *owners = READ_ONCE(kmp_live_owners);

	return owners ? READ_ONCE(owners[s - kmp_tab.slots]) : 0;
}

static __always_inline void kmp_slot_set_owner(struct kmp_slot *s, u32 own)
{
	u32 *owners = READ_ONCE(kmp_live_owners);

	if (owners)
		WRITE_ONCE(owners[s - kmp_tab.slots], own);
}

/* Slot @s's object, with its time and its owner line, into @obj. */
static __always_inline void kmp_slot_get(const struct kmp_slot *s,
					 struct kmp_obj *obj)
{
	__kmp_slot_get(s, obj, true);
	obj->own = kmp_slot_owner(s);
}

/*
 * Fill a slot this CPU holds as KMP_BUSY (claimed with a fully ordered
 * cmpxchg), and publish it as @key with the next sequence number.
 */
static __always_inline void kmp_slot_publish(struct kmp_slot *s,
					     unsigned long key,
					     const struct kmp_obj *obj)
{
	WRITE_ONCE(s->tag, obj->tag);
	WRITE_ONCE(s->size, obj->size);
	WRITE_ONCE(s->req, obj->req);
	kmp_slot_set_time(s, kmp_time_cpu(obj));
	kmp_slot_set_owner(s, obj->own);
	WRITE_ONCE(s->seq, s->seq + 1);
	smp_store_release(&s->key, key);	/* pairs with the acquires */
}

/* Whether live @key is in its group's slots, with its slot in *@sp. */
static __always_inline bool kmp_live_find(unsigned long key,
					  struct kmp_slot **sp)
{
	struct kmp_slot *s = kmp_live_slots(kmp_live_group(key));
	unsigned int i;

	for (i = 0; i < KMP_GROUP; i++) {
		/* pairs with kmp_slot_publish()'s release */
		if (smp_load_acquire(&s[i].key) == key) {
			*sp = &s[i];
			return true;
		}
	}
	return false;
}

/*
 * Take @key out of its group's slots, into @obj, with its time and its
 * owner line; false if not there. The general path's and nmi.c's take
 * (the fast paths use probes.h's __kmp_live_slots_remove(), no owner): the
 * slot's owner line is zeroed before the slot is free again, so that a
 * fast path's fill, which writes none, finds none there.
 */
static __always_inline bool kmp_live_slots_remove(unsigned long key,
						  struct kmp_obj *obj)
{
	struct kmp_slot *s;

	if (!kmp_live_find(key, &s))
		return false;
	kmp_slot_get(s, obj);
	if (obj->own)
		kmp_slot_set_owner(s, 0);
	/* the reads above before the slot is free again */
	smp_store_release(&s->key, 0);
	return true;
}

/*
 * Claim a slot of @key's group for it, as KMP_BUSY: NULL, with nothing
 * changed, if the group has spilled, holds the key already, or has no
 * room. The four keys are read at once rather than in a loop, so the test
 * for the key and the pick of the first empty slot are compares with no
 * branch back.
 */
static __always_inline struct kmp_slot *kmp_live_claim(unsigned long key)
{
	u32 g = kmp_live_group(key);
	struct kmp_slot *s = kmp_live_slots(g), *empty;
	unsigned long k0, k1, k2, k3;

	BUILD_BUG_ON(KMP_GROUP != 4);
	if (atomic_read(&kmp_tab.group_spill[g]))
		return NULL;
	k0 = READ_ONCE(s[0].key);
	k1 = READ_ONCE(s[1].key);
	k2 = READ_ONCE(s[2].key);
	k3 = READ_ONCE(s[3].key);
	if (k0 == key || k1 == key || k2 == key || k3 == key)
		return NULL;
	if (!k0)
		empty = &s[0];
	else if (!k1)
		empty = &s[1];
	else if (!k2)
		empty = &s[2];
	else if (!k3)
		empty = &s[3];
	else
		return NULL;
	/* fully ordered: the walkers' sequence check needs it (live.c) */
	if (cmpxchg(&empty->key, 0, KMP_BUSY) != 0)
		return NULL;
	return empty;
}

/*
 * Fill a claimed slot, and publish it. A copy of the fast paths that
 * carries no time (kmp_time_key_on() off) passes @time_cpu as a constant 0 and
 * stores none, so that the defaults' copy has no store of a time:
 * live.c's notes say what the slot keeps then. Only the
 * instruction count rests on the constant; a 0 the compiler cannot see
 * as one is stored.
 */
static __always_inline void kmp_live_fill(struct kmp_slot *s,
					  unsigned long key, u32 tag,
					  u32 size, u32 req, u64 time_cpu)
{
	WRITE_ONCE(s->tag, tag);
	WRITE_ONCE(s->size, size);
	WRITE_ONCE(s->req, req);
	if (!__builtin_constant_p(time_cpu) || time_cpu)
		kmp_slot_set_time(s, time_cpu);
	WRITE_ONCE(s->seq, s->seq + 1);
	/* the object before the key: pairs with the walkers' acquire */
	smp_store_release(&s->key, key);
}

/*
 * Enter a new object with no time (none stored: see kmp_live_fill()):
 * false, with nothing changed, if its group has spilled, holds the key
 * already, or has no room.
 */
static __always_inline bool kmp_live_add_fast(unsigned long key, u32 tag,
					      u32 size, u32 req)
{
	struct kmp_slot *s = kmp_live_claim(key);

	if (!s)
		return false;
	kmp_live_fill(s, key, tag, size, req, 0);
	return true;
}

#endif /* _KMEMPROF_LIVE_H */
