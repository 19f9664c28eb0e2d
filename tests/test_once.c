/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exactly-once check (dataplane/once.h), no EAL, on crafted counters:
 * a source's packets settled once each pass, in any order and split over
 * workers or instances; one lost, one settled twice, one corrupt (settled
 * under another sequence number), and {1, 5, 6} lost with {2, 3, 7} twice
 * (the count, sum and sum of squares the check used before agree) fail;
 * with an instance lost, only more settled than injected fails.
 */
#include "check.h"
#include "once.h"

#define KEY_SEED 42
#define SRC	 7
#define N	 1000

struct tally {
	uint64_t cnt, hash;
};

/* Settle packets seq[0..n-1] of source SRC into *t. */
static void settle(struct tally *t, uint64_t key, const uint32_t *seq,
		   uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		t->cnt++;
		t->hash += dp_once_hash(key, SRC, seq[i]);
	}
}

/* Packets 0..N-1 settled, then each change asked: packet `drop` not
 * settled (-1: none), packets `twice` settled again (-1: none). */
static struct tally all_but(uint64_t key, int64_t drop, int64_t twice)
{
	struct tally t = {0, 0};

	for (uint32_t s = 0; s < N; s++)
		if ((int64_t)s != drop)
			settle(&t, key, &s, 1);
	if (twice >= 0) {
		uint32_t s = (uint32_t)twice;

		settle(&t, key, &s, 1);
	}
	return t;
}

static int ok(uint64_t key, struct tally t, int lost_instance)
{
	return dp_once_ok(key, SRC, N, t.cnt, t.hash, lost_instance);
}

static void exact(uint64_t key)
{
	struct tally a = all_but(key, -1, -1), w[2] = {{0, 0}, {0, 0}};
	uint32_t s;

	CHECK(ok(key, a, 0), "0..%u settled once each: exactly once", N - 1);
	/* backwards, split over two workers as their sums are */
	for (s = N; s-- > 0;)
		settle(&w[s % 2], key, &s, 1);
	CHECK(dp_once_ok(key, SRC, N, w[0].cnt + w[1].cnt,
			 w[0].hash + w[1].hash, 0),
	      "the same, backwards and split over two workers");
	CHECK(dp_once_ok(key, SRC, 0, 0, 0, 0), "no packets, none settled");
	CHECK(!dp_once_ok(key, SRC, 0, 1, dp_once_hash(key, SRC, 0), 0),
	      "no packets, one settled: not exactly once");
}

static void broken(uint64_t key)
{
	struct tally t;
	uint32_t bad = N + 3;

	CHECK(!ok(key, all_but(key, 500, -1), 0), "one lost: fails");
	CHECK(!ok(key, all_but(key, -1, 500), 0), "one settled twice: fails");
	/* 500 came as 1003: the count is right, the set is not */
	t = all_but(key, 500, -1);
	settle(&t, key, &bad, 1);
	CHECK(!ok(key, t, 0), "one corrupt (500 settled as %u): fails", bad);
	/* packet 999 lost, 0 twice: count right */
	CHECK(!ok(key, all_but(key, 999, 0), 0),
	      "the last lost and the first twice: fails");
}

/* {1, 5, 6} lost, {2, 3, 7} twice: count, sum and sum of squares agree
 * (997 + 3, and 12 and 62 either way), the set hash does not. */
static void same_moments(uint64_t key)
{
	static const uint32_t lost[] = {1, 5, 6}, twice[] = {2, 3, 7};
	struct tally t = {0, 0};
	uint64_t sum = 0, sq = 0;

	for (uint32_t s = 0; s < N; s++)
		if (s != lost[0] && s != lost[1] && s != lost[2])
			settle(&t, key, &s, 1);
	settle(&t, key, twice, 3);
	for (int i = 0; i < 3; i++) {
		sum += (uint64_t)lost[i] - twice[i];
		sq += (uint64_t)lost[i] * lost[i] -
		      (uint64_t)twice[i] * twice[i];
	}
	CHECK(t.cnt == N && sum == 0 && sq == 0,
	      "{1, 5, 6} lost and {2, 3, 7} twice: the same count, sum and "
	      "sum of squares");
	CHECK(!ok(key, t, 0), "... and the set hash fails it");
}

/* An instance lost took what it settled with it. */
static void lost_instance(uint64_t key)
{
	struct tally part = {0, 0};
	uint32_t half[N / 2];

	for (uint32_t i = 0; i < N / 2; i++)
		half[i] = 2 * i;
	settle(&part, key, half, N / 2);
	CHECK(ok(key, part, 1), "an instance lost, half settled here: passes");
	CHECK(!ok(key, part, 0), "... and fails with no instance lost");
	CHECK(!ok(key, all_but(key, -1, 3), 1),
	      "an instance lost, more settled than injected: fails");
}

int main(void)
{
	uint64_t key = dp_once_key(KEY_SEED);

	CHECK(dp_once_key(KEY_SEED) == key && dp_once_key(KEY_SEED + 1) != key,
	      "the key: one per seed, the same in every instance");
	exact(key);
	broken(key);
	same_moments(key);
	lost_instance(key);
	return check_done();
}
