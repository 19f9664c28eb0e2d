/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The determinism digest (dataplane/digest.h), no EAL: the same deliveries
 * in another order give the same digest; one field of one delivery
 * changed, or a packet lost and another delivered twice where the
 * exactly-once sums cannot tell, give another.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "digest.h"

struct tuple {
	uint32_t src, seq, dst;
	uint64_t t;
};

static const struct tuple base[] = {
	{0, 0, 1, 1000},      {0, 1, 7, 1512},
	{3, 0, 0, 2048},      {3, 1, 0, 2048},
	{7, 42, 3, 99999999}, {0xffffffff, 0xffffffff, 0xffffffff, ~0ULL},
	{0, 0, 0, 0},
};
#define N (sizeof(base) / sizeof(base[0]))

static uint64_t digest_of(const struct tuple *tu, uint32_t n)
{
	uint64_t d = 0;

	for (uint32_t i = 0; i < n; i++)
		dp_digest_add(&d, tu[i].src, tu[i].seq, tu[i].dst, tu[i].t);
	return d;
}

static void order(uint64_t d0)
{
	struct tuple rev[N], shuf[N];

	for (uint32_t i = 0; i < N; i++) {
		rev[i] = base[N - 1 - i];
		shuf[i] = base[(i * 3 + 2) % N]; /* 3 and N = 7: coprime */
	}
	CHECK(digest_of(rev, N) == d0, "reversed: the same digest");
	CHECK(digest_of(shuf, N) == d0, "shuffled: the same digest");

	/* two workers, each its own sum, added up (emu/account.c) */
	uint64_t a = digest_of(shuf, 3), b = digest_of(shuf + 3, N - 3);
	CHECK(a + b == d0, "split over two workers and added: the same");
	CHECK(d0 != 0, "not zero (%016llx)", (unsigned long long)d0);
}

/* Field f (0 src, 1 seq, 2 dst, 3 t) of tu, plus one or its top bit. */
static void bump(struct tuple *tu, int f, int top)
{
	uint32_t d32 = top ? 1u << 31 : 1;

	if (f == 0)
		tu->src += d32;
	else if (f == 1)
		tu->seq += d32;
	else if (f == 2)
		tu->dst += d32;
	else
		tu->t += top ? 1ULL << 63 : 1;
}

/* Every field of every tuple, changed by one, and by its top bit. */
static void one_field(uint64_t d0)
{
	static const char *const name[] = {"src", "seq", "dst", "t"};

	for (int f = 0; f < 4; f++) {
		uint32_t same = 0;
		for (uint32_t i = 0; i < N; i++)
			for (int top = 0; top < 2; top++) {
				struct tuple tu[N];
				memcpy(tu, base, sizeof(tu));
				bump(&tu[i], f, top);
				same += digest_of(tu, N) == d0;
			}
		CHECK(same == 0,
		      "%s of one delivery changed (%u tuples, +1 and the top "
		      "bit): another digest every time (%u the same)",
		      name[f], (unsigned)N, same);
	}
}

/* Source 4's deliveries {1, 5, 6} and {2, 3, 7}: the same count, sum and
 * sum of squares (3, 12, 62); the digest tells them apart (as does the
 * exactly-once check's set hash, tests/test_once.c). */
static void lost_and_duplicate(void)
{
	static const struct tuple x[] = {
		{4, 1, 9, 5000}, {4, 5, 9, 5000}, {4, 6, 9, 5000}};
	static const struct tuple y[] = {
		{4, 2, 9, 5000}, {4, 3, 9, 5000}, {4, 7, 9, 5000}};
	/* a sum of hashes could cancel a packet counted twice: it does
	 * not, a duplicate adds its hash once more */
	static const struct tuple dup[] = {{4, 1, 9, 5000}, {4, 1, 9, 5000}};
	static const struct tuple two[] = {{4, 1, 9, 5000}, {4, 2, 9, 5000}};

	CHECK(digest_of(x, 3) != digest_of(y, 3),
	      "{1, 5, 6} and {2, 3, 7} of one source: two digests");
	CHECK(digest_of(dup, 2) != digest_of(two, 2),
	      "a packet delivered twice is not another delivered once");
}

/* The counters' chain: order matters there, and a zero counts. */
static void fold(void)
{
	uint64_t a = 0, b = 0, z = 0, zz = 0;

	dp_digest_fold(&a, 1);
	dp_digest_fold(&a, 2);
	dp_digest_fold(&b, 2);
	dp_digest_fold(&b, 1);
	CHECK(a != b, "folded counters: their order counts");
	dp_digest_fold(&z, 0);
	dp_digest_fold(&zz, 0);
	dp_digest_fold(&zz, 0);
	CHECK(z != 0 && z != zz, "a zero counter changes the chain");
}

int main(void)
{
	uint64_t d0 = digest_of(base, N);

	order(d0);
	one_field(d0);
	lost_and_duplicate();
	fold();
	return check_done();
}
