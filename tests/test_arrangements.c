/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The global-link arrangements of [SP] (control/wiring.c) for many (a, h)
 * at g = ah+1: each is a valid dragonfly (every router uses exactly its h
 * global ports, one link per group pair, symmetric: df_topo_check plus an
 * independent count here) and has its defining property:
 *   relative: S_{i,j} reaches groups i+jh+1..i+jh+h, landing on a-1-j;
 *   absolute: port k of group i reaches group k (k < i) or k+1;
 *   circulant: a link keeps the switch number at both ends;
 *   helix: an up link lands one switch higher; h = 1 equals relative;
 *   nautilus: every link lands, at one end, on switch (other group) mod a.
 * And file:PATH reproduces a wiring from its link list, and refuses bad
 * lists with file and line; OFAR's escape ring exists exactly when a
 * brute force finds one; the flattened butterfly's wiring ([FB] §2).
 * No EAL needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "paths.h"
#include "ring.h"
#include "wiring.h"

static int build(struct df_topo *t, uint32_t a, uint32_t h,
		 enum df_arrangement arr, const char *file, char *err, size_t n)
{
	struct df_config c;

	df_config_defaults(&c);
	c.p = 1;
	c.a = a;
	c.h = h;
	c.g = a * h + 1;
	c.arrangement = arr;
	if (file)
		snprintf(c.arr_file, sizeof(c.arr_file), "%s", file);
	return df_topo_build(t, &c, err, n);
}

/* Global links of each router and the groups they reach, counted here. */
static int valid(const struct df_topo *t)
{
	uint32_t g = t->g, a = t->a;
	uint32_t *pair = calloc((size_t)g * g, sizeof(*pair));
	int ok = pair != NULL;

	for (uint32_t r = 0; ok && r < t->nrouters; r++) {
		uint32_t n = 0;
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls != DF_LINK_GLOBAL || pi->peer == DF_NO_PEER)
				continue;
			n++;
			pair[(r / a) * g + pi->peer / a]++;
			const struct df_port_info *b =
				&t->ports[pi->peer * t->nports + pi->peer_port];
			ok &= b->peer == r && b->peer_port == k;
		}
		ok &= n == t->h;
	}
	for (uint32_t G = 0; ok && G < g; G++)
		for (uint32_t X = 0; X < g; X++)
			ok &= pair[G * g + X] == (G != X);
	free(pair);
	return ok;
}

/* Calls fn for every global link (each direction once). */
static int each_link(const struct df_topo *t,
		     int (*fn)(const struct df_topo *, uint32_t, uint32_t))
{
	int ok = 1;

	for (uint32_t r = 0; r < t->nrouters; r++)
		for (uint32_t k = 0; k < t->nports; k++) {
			const struct df_port_info *pi =
				&t->ports[r * t->nports + k];
			if (pi->cls == DF_LINK_GLOBAL && pi->peer != DF_NO_PEER)
				ok &= fn(t, r, pi->peer);
		}
	return ok;
}

static uint32_t off(const struct df_topo *t, uint32_t r, uint32_t s)
{
	return (s / t->a + t->g - r / t->a) % t->g;
}

static int relative_rule(const struct df_topo *t, uint32_t r, uint32_t s)
{
	uint32_t j = r % t->a, o = off(t, r, s);

	return o >= j * t->h + 1 && o <= j * t->h + t->h &&
	       s % t->a == t->a - 1 - j;
}

static int absolute_rule(const struct df_topo *t, uint32_t r, uint32_t s)
{
	uint32_t i = r / t->a, x = s / t->a;
	uint32_t k = x < i ? x : x - 1;

	return k / t->h == r % t->a;
}

static int circulant_rule(const struct df_topo *t, uint32_t r, uint32_t s)
{
	return r % t->a == s % t->a;
}

static int helix_rule(const struct df_topo *t, uint32_t r, uint32_t s)
{
	uint32_t h2 = t->h / 2, o = off(t, r, s);

	if (h2 && o <= t->a * h2) /* up: one switch higher */
		return s % t->a == (r % t->a + 1) % t->a;
	return 1;
}

static int nautilus_rule(const struct df_topo *t, uint32_t r, uint32_t s)
{
	return s % t->a == (r / t->a) % t->a || r % t->a == (s / t->a) % t->a;
}

static void test_sp(uint32_t a, uint32_t h)
{
	static const struct {
		enum df_arrangement arr;
		int (*rule)(const struct df_topo *, uint32_t, uint32_t);
		const char *what;
	} arrs[] = {
		{DF_ARR_RELATIVE, relative_rule,
		 "groups i+jh+1..i+jh+h, far "
		 "switch a-1-j"},
		{DF_ARR_ABSOLUTE, absolute_rule, "port k to group k or k+1"},
		{DF_ARR_CIRCULANT, circulant_rule, "switch number kept"},
		{DF_ARR_HELIX, helix_rule, "up links land one switch higher"},
		{DF_ARR_NAUTILUS, nautilus_rule,
		 "one end on switch (other group) mod a"},
	};

	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		struct df_topo t;
		char err[512] = "";
		if (arrs[i].arr == DF_ARR_CIRCULANT && h % 2)
			continue;
		int ok = build(&t, a, h, arrs[i].arr, NULL, err, sizeof(err)) ==
			 0;
		CHECK(ok && valid(&t) && each_link(&t, arrs[i].rule),
		      "a=%u h=%u %s: valid (h global links per router, one "
		      "per group pair, symmetric), %s %s",
		      a, h, df_arrangement_name(arrs[i].arr), arrs[i].what,
		      err);
		if (ok)
			df_topo_free(&t);
	}
}

/* helix with h = 1 is the relative arrangement, port for port */
static void test_helix_h1(uint32_t a)
{
	struct df_topo x, y;
	char err[256];
	int same;

	if (build(&x, a, 1, DF_ARR_HELIX, NULL, err, sizeof(err)) ||
	    build(&y, a, 1, DF_ARR_RELATIVE, NULL, err, sizeof(err))) {
		CHECK(0, "a=%u h=1 helix and relative build: %s", a, err);
		return;
	}
	same = !memcmp(x.ports, y.ports,
		       (size_t)x.nrouters * x.nports * sizeof(*x.ports));
	CHECK(same, "a=%u h=1: helix = relative, port for port", a);
	df_topo_free(&x);
	df_topo_free(&y);
}

/* file:PATH with the links of an arrangement gives the same links */
static void test_file(uint32_t a, uint32_t h, enum df_arrangement arr)
{
	char path[] = "/tmp/dfemu-links-XXXXXX", err[512] = "";
	struct df_topo t, u;
	int fd = mkstemp(path), same = 1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL || build(&t, a, h, arr, NULL, err, sizeof(err)) != 0) {
		CHECK(0, "file test set-up: %s", err);
		return;
	}
	fprintf(f, "# %s a=%u h=%u\n", df_arrangement_name(arr), a, h);
	for (uint32_t r = 0; r < t.nrouters; r++)
		for (uint32_t k = 0; k < t.nports; k++) {
			const struct df_port_info *pi =
				&t.ports[r * t.nports + k];
			if (pi->cls == DF_LINK_GLOBAL && pi->peer > r)
				fprintf(f, "%u.%u %u.%u  # port %u\n", r / a,
					r % a, pi->peer / a, pi->peer % a, k);
		}
	fclose(f);
	int ok = build(&u, a, h, DF_ARR_FILE, path, err, sizeof(err)) == 0;
	for (uint32_t r = 0; ok && r < t.nrouters; r++)
		for (uint32_t k = 0; k < t.nports; k++) {
			/* same neighbour set per router (ports may differ) */
			uint32_t want = t.ports[r * t.nports + k].peer,
				 found = 0;
			if (t.ports[r * t.nports + k].cls != DF_LINK_GLOBAL)
				continue;
			for (uint32_t q = 0; q < u.nports; q++)
				found |= u.ports[r * u.nports + q].cls ==
						 DF_LINK_GLOBAL &&
					 u.ports[r * u.nports + q].peer == want;
			same &= found;
		}
	CHECK(ok && same && valid(&u),
	      "a=%u h=%u file: the %s link list gives the same links %s", a, h,
	      df_arrangement_name(arr), err);
	if (ok)
		df_topo_free(&u);
	df_topo_free(&t);
	unlink(path);
}

static void test_bad_file(const char *body, const char *want)
{
	char path[] = "/tmp/dfemu-links-XXXXXX", err[512] = "";
	struct df_topo t;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL) {
		CHECK(0, "bad file set-up");
		return;
	}
	fputs(body, f);
	fclose(f);
	int rc = build(&t, 2, 1, DF_ARR_FILE, path, err, sizeof(err));
	CHECK(rc != 0 && strstr(err, want) != NULL,
	      "bad link list refused with \"%s\" (%s)", want, err);
	if (rc == 0)
		df_topo_free(&t);
	unlink(path);
}

/* The router of group G holding the link to group X (one per pair). */
static uint32_t holder(const struct df_topo *t, uint32_t G, uint32_t X)
{
	for (uint32_t r = G * t->a; r < G * t->a + t->a; r++)
		for (uint32_t k = 0; k < t->nports; k++)
			if (t->ports[r * t->nports + k].cls == DF_LINK_GLOBAL &&
			    t->ports[r * t->nports + k].peer / t->a == X)
				return r;
	return UINT32_MAX;
}

/* Brute force, independent of ring.c: does some order of the groups
 * (starting at 0) enter and leave every group by different routers?
 * Heap's algorithm over the other g-1 groups; small g only. */
static int ring_exists(const struct df_topo *t)
{
	uint32_t g = t->g, seq[16], c[16] = {0};
	uint32_t n = g - 1, *x = seq + 1, i = 1;

	for (uint32_t k = 0; k < g; k++)
		seq[k] = k;
	for (;;) {
		int ok = 1;
		for (uint32_t k = 0; ok && k < g; k++)
			ok = holder(t, seq[k], seq[(k + g - 1) % g]) !=
			     holder(t, seq[k], seq[(k + 1) % g]);
		if (ok)
			return 1;
		while (i < n && c[i] >= i) {
			c[i] = 0;
			i++;
		}
		if (i >= n)
			return 0;
		uint32_t j = i % 2 ? c[i] : 0, tmp = x[j];
		x[j] = x[i];
		x[i] = tmp;
		c[i]++;
		i = 1;
	}
}

/* OFAR's escape ring: found (a regular group order where one works,
 * else by search, control/ring.c) exactly when one exists, as a brute
 * force over group orders says (g <= 9). */
static void test_ring(uint32_t a, uint32_t h)
{
	for (int arr = 0; arr <= DF_ARR_NAUTILUS; arr++) {
		struct df_topo t;
		struct df_ring ring;
		char err[512] = "";
		if (arr == DF_ARR_CIRCULANT && h % 2)
			continue;
		if (build(&t, a, h, arr, NULL, err, sizeof(err))) {
			CHECK(0, "ring set-up: %s", err);
			continue;
		}
		int ok = df_ring_build(&ring, &t, err, sizeof(err)) == 0;
		int exists = t.g <= 9 ? ring_exists(&t) : 1;
		CHECK(ok == exists && (!ok || ring.n == t.nrouters),
		      "a=%u h=%u %s: escape ring %s (%s) %s", a, h,
		      df_arrangement_name(arr),
		      ok ? "through all routers" : "refused",
		      ok ? (ring.step ? "regular order" : "searched order")
			 : "none exists, by brute force",
		      ok ? "" : err);
		if (ok)
			df_ring_free(&ring);
		df_topo_free(&t);
	}
}

/* Flattened butterfly ([FB] §2.1-2.2): k^(n-1) routers of radix
 * n(k-1)+1, k-1 links per dimension each to the router differing in that
 * coordinate only; shortest distance = number of differing digits, with
 * j! shortest paths for j of them. */
static void test_flatfly(uint32_t k, uint32_t n)
{
	struct df_config c;
	struct df_topo t;
	struct df_paths ps;
	char err[512] = "";
	int ok = 1;

	df_config_defaults(&c);
	c.type = DF_TOPO_FLATFLY;
	c.k = k;
	c.n = n;
	c.p = c.a = k;
	c.h = (n - 2) * (k - 1);
	c.g = 1;
	for (uint32_t i = 2; i < n; i++)
		c.g *= k;
	if (df_topo_build(&t, &c, err, sizeof(err)) ||
	    df_paths_compute(&ps, &t, err, sizeof(err))) {
		CHECK(0, "%u-ary %u-flat builds: %s", k, n, err);
		return;
	}
	ok &= t.nports == n * (k - 1) + 1 && t.nterms == t.nrouters * k;
	for (uint32_t r = 0; r < t.nrouters; r++) {
		uint32_t per[8] = {0};
		for (uint32_t q = t.p; q < t.nports; q++) {
			uint32_t s = t.ports[r * t.nports + q].peer, dims = 0;
			uint32_t x = r, y = s, dim = 0;
			for (uint32_t d = 1; d < n; d++, x /= k, y /= k)
				if (x % k != y % k) {
					dims++;
					dim = d;
				}
			ok &= dims == 1;
			if (dims == 1)
				per[dim]++;
		}
		for (uint32_t d = 1; d < n; d++)
			ok &= per[d] == k - 1;
	}
	for (uint32_t s = 0; s < ps.n; s++)
		for (uint32_t d = 0; d < ps.n; d++) {
			uint32_t j = 0;
			uint64_t fact = 1;
			for (uint32_t x = s, y = d, i = 1; i < n;
			     i++, x /= k, y /= k)
				j += x % k != y % k;
			for (uint32_t i = 2; i <= j; i++)
				fact *= i;
			ok &= ps.dist[(size_t)s * ps.n + d] == j &&
			      ps.nshort[(size_t)s * ps.n + d] == fact;
		}
	CHECK(ok,
	      "%u-ary %u-flat: %u routers of radix %u, k-1 links per "
	      "dimension one coordinate away, distance = differing digits "
	      "with j! shortest paths",
	      k, n, t.nrouters, t.nports);
	if (k == 2 && n == 4) {
		/* [FB] Fig. 1(d): "R4' is connected to R5' in dimension 1,
		 * R6' in dimension 2, and R0' in dimension 3" */
		const struct df_port_info *p4 = &t.ports[4 * t.nports];
		CHECK(p4[t.p].peer == 5 && p4[t.p + 1].peer == 6 &&
			      p4[t.p + 2].peer == 0,
		      "2-ary 4-flat: R4 links R5, R6, R0 in dimensions 1-3 "
		      "([FB] Fig. 1(d))");
	}
	df_paths_free(&ps);
	df_topo_free(&t);
}

int main(void)
{
	static const uint32_t ff[][2] = {{2, 2}, {4, 2}, {8, 2}, {16, 2},
					 {2, 3}, {3, 3}, {4, 3}, {2, 4},
					 {3, 4}, {4, 4}, {2, 5}, {2, 6}};

	for (size_t i = 0; i < sizeof(ff) / sizeof(ff[0]); i++)
		test_flatfly(ff[i][0], ff[i][1]);
	for (uint32_t a = 2; a <= 8; a++)
		for (uint32_t h = 1; h <= 4; h++)
			test_ring(a, h);
	for (uint32_t a = 1; a <= 8; a++)
		for (uint32_t h = 1; h <= 5; h++)
			if (a * (a * h + 1) <= 4096 && a + h <= 31)
				test_sp(a, h);
	for (uint32_t a = 2; a <= 6; a++)
		test_helix_h1(a);
	test_file(4, 2, DF_ARR_RELATIVE);
	test_file(3, 4, DF_ARR_CIRCULANT);
	test_file(5, 3, DF_ARR_NAUTILUS);
	/* a = 2, h = 1, g = 3: routers 0.0 0.1 1.0 1.1 2.0 2.1 */
	test_bad_file("0.0 1.1\n0.1 2.0\nnonsense\n",
		      ":3: 'nonsense' is not a link");
	test_bad_file("0.0 1.1\n0.1 7.0\n", ":2: 0.1 7.0: groups are 0..2");
	test_bad_file("0.0 1.1\n0.0 2.0\n", ":2: router 0.0 has its h = 1");
	test_bad_file("0.0 0.1\n", ":1: 0.0 0.1: groups are 0..2");
	test_bad_file("0.0 1.1\n",
		      ": wiring: groups 0 and 2 have 0 global links");
	return check_done();
}
