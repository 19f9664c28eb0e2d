/* SPDX-License-Identifier: BSD-3-Clause */
#include "wheel.h"

/* The wakes of slot i of level lv, taken out. */
static struct dp_wake *take(struct dp_wheel_level *lv, uint32_t i)
{
	struct dp_wake *w = lv->slot[i];

	lv->slot[i] = NULL;
	lv->used[i >> 6] &= ~(1ULL << (i & 63));
	return w;
}

/* Fine slot s (the cursor on it): fire its wakes due by now; the others
 * (later in the slot, or a later turn's) go back in. */
static void fire_slot(struct dp_wheel *wh, uint64_t s, uint64_t now)
{
	struct dp_wake *w =
		take(&wh->fine, (uint32_t)(s & (DP_WHEEL_SLOTS - 1)));

	wh->cur = s;
	while (w != NULL) {
		struct dp_wake *next = w->next;

		if (w->due <= now)
			dp_wake_fire(wh, w);
		else
			dp_wheel_insert(wh, w, w->due);
		w = next;
	}
}

/* The fine cursor entered coarse slot s1: its wakes move to the fine
 * wheel (those placed in the last coarse slot from further ahead go back
 * to their own coarse slot). */
static void cascade(struct dp_wheel *wh, uint64_t s1)
{
	uint32_t i = (uint32_t)(s1 & (DP_WHEEL_SLOTS - 1));
	struct dp_wake *w;

	wh->cur1 = s1;
	if (!(wh->coarse.used[i >> 6] & (1ULL << (i & 63))))
		return;
	w = take(&wh->coarse, i);
	while (w != NULL) {
		struct dp_wake *next = w->next;

		dp_wheel_insert(wh, w, w->due);
		w = next;
	}
}

void dp_wheel_advance(struct dp_wheel *wh, uint64_t now)
{
	uint64_t end = now >> DP_WHEEL_SHIFT, s = wh->cur, s1;

	if (now > wh->now) {
		/* what was due by this step is: its nodes step now */
		for (uint32_t i = 0; i < wh->nwords; i++) {
			wh->active[i] |= wh->soon[i];
			wh->soon[i] = 0;
		}
		wh->now = now;
		wh->next = wh->quantum ? now + wh->quantum : 0;
	}
	if (end < s)
		return;
	/* a host stall longer than a turn: every fine slot once */
	if (end - s >= DP_WHEEL_SLOTS)
		s = wh->cur = end - (DP_WHEEL_SLOTS - 1);
	/* the coarse slots entered since last time (every one once after
	 * a stall of a coarse turn), before their fine slots are looked at */
	s1 = wh->cur1 + 1;
	if ((end >> DP_WHEEL_BITS) >= s1 + DP_WHEEL_SLOTS)
		s1 = (end >> DP_WHEEL_BITS) - (DP_WHEEL_SLOTS - 1);
	for (; s1 <= end >> DP_WHEEL_BITS; s1++)
		cascade(wh, s1);
	/* the fine slots with wakes, a word of the used mask at a time:
	 * a sweep passes hundreds of slots, most of them empty (and
	 * fire_slot may put a wake in a later one, so the word is read
	 * again after each) */
	while (s <= end) {
		uint32_t i = (uint32_t)(s & (DP_WHEEL_SLOTS - 1));
		uint64_t w = wh->fine.used[i >> 6] >> (i & 63);

		if (w == 0) {
			s += 64 - (i & 63);
			continue;
		}
		s += (uint64_t)__builtin_ctzll(w);
		if (s > end)
			break;
		fire_slot(wh, s, now);
		s++;
	}
	wh->cur = end;
}

/* The first slot with wakes from cur on, within a turn, or SLOTS. */
static uint32_t first_used(const struct dp_wheel_level *lv, uint64_t cur)
{
	uint32_t start = (uint32_t)(cur & (DP_WHEEL_SLOTS - 1));

	for (uint32_t d = 0; d < DP_WHEEL_SLOTS;) {
		uint32_t i = (start + d) & (DP_WHEEL_SLOTS - 1);
		uint64_t w = lv->used[i >> 6] >> (i & 63);

		if (w != 0)
			return d + (uint32_t)__builtin_ctzll(w);
		d += 64 - (i & 63);
	}
	return DP_WHEEL_SLOTS;
}

/* The earlier of the first fine slot with wakes and the first coarse
 * one: the fine turn reaches into the next coarse slot, whose wakes stay
 * there until the cursor enters it (cascade), so a fine wake may come
 * after a coarse one. At a coarse slot's start its wakes move to the fine
 * wheel, and the next call finds them. */
uint64_t dp_wheel_next(const struct dp_wheel *wh)
{
	uint64_t f = UINT64_MAX, c = UINT64_MAX;
	uint32_t d = first_used(&wh->fine, wh->cur);

	if (d < DP_WHEEL_SLOTS)
		f = (wh->cur + d) << DP_WHEEL_SHIFT;
	d = first_used(&wh->coarse, wh->cur1);
	if (d < DP_WHEEL_SLOTS)
		c = (wh->cur1 + d) << DP_WHEEL_SHIFT1;
	return f < c ? f : c;
}
