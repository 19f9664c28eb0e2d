/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

enum sel_kind {
	SEL_ALL,
	SEL_NONE,
	SEL_CLASS,
	SEL_GROUP,
	SEL_ROUTER,
	SEL_PORT,
	SEL_TERM
};

struct sel {
	enum sel_kind kind;
	uint32_t a, b; /* class, group, router (and port), terminal */
};

static const char *const class_tok[] = {"terminal", "local", "global"};

/* Reads "123" at *s; returns -1 if there is no number. */
static long number(const char **s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**s))
		return -1;
	v = strtol(*s, &end, 10);
	*s = end;
	return v;
}

/* One selector (tok, NUL-terminated); 0 or -1 with why filled in. */
static int parse_sel(const struct df_config *c, const char *tok, struct sel *s,
		     char *why, size_t n)
{
	uint32_t nr = c->a * c->g, nt = c->p * nr;
	uint32_t np = c->p + c->a - 1 + c->h;
	const char *p = tok + 1;
	long v, w;

	if (!strcmp(tok, "all") || !strcmp(tok, "none")) {
		s->kind = tok[0] == 'a' ? SEL_ALL : SEL_NONE;
		return 0;
	}
	for (int k = 0; k < 3; k++)
		if (!strcmp(tok, class_tok[k])) {
			s->kind = SEL_CLASS;
			s->a = (uint32_t)k;
			return 0;
		}
	v = number(&p);
	if (tok[0] == 'g' && v >= 0 && *p == '\0') {
		s->kind = SEL_GROUP;
		s->a = (uint32_t)v;
		if (s->a < c->g)
			return 0;
		snprintf(why, n, "'%s' is not a group (g0..g%u)", tok,
			 c->g - 1);
		return -1;
	}
	if (tok[0] == 't' && v >= 0 && *p == '\0') {
		s->kind = SEL_TERM;
		s->a = (uint32_t)v;
		if (s->a < nt)
			return 0;
		snprintf(why, n, "'%s' is not a terminal (t0..t%u)", tok,
			 nt - 1);
		return -1;
	}
	if (tok[0] == 'r' && v >= 0) {
		s->kind = SEL_ROUTER;
		s->a = (uint32_t)v;
		if (s->a >= nr) {
			snprintf(why, n, "'%s' is not a router (r0..r%u)", tok,
				 nr - 1);
			return -1;
		}
		if (*p == '\0')
			return 0;
		if (p[0] == '.' && p[1] == 'p') {
			p += 2;
			w = number(&p);
			if (w >= 0 && *p == '\0') {
				s->kind = SEL_PORT;
				s->b = (uint32_t)w;
				if (s->b < np)
					return 0;
				snprintf(why, n,
					 "'%s': routers have ports p0..p%u",
					 tok, np - 1);
				return -1;
			}
		}
	}
	snprintf(why, n, "'%s' is not a selector", tok);
	return -1;
}

/* Calls fn for each selector of the links spec; stops at the first error. */
static int each_sel(const struct df_config *c, char *why, size_t n,
		    int (*fn)(const struct sel *, void *), void *arg)
{
	char buf[sizeof(c->cap_links)], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", c->cap_links);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		struct sel s;
		if (parse_sel(c, tok, &s, why, n))
			return -1;
		if (fn && fn(&s, arg))
			return 1;
	}
	return 0;
}

static int not_none(const struct sel *s, void *arg)
{
	(void)arg;
	return s->kind != SEL_NONE;
}

int df_cap_enabled(const struct df_config *c)
{
	char why[160]; /* unused: the config was validated */

	return each_sel(c, why, sizeof(why), not_none, NULL) == 1;
}

struct match {
	const struct df_config *c;
	const struct df_cap_link *l;
};

static int sel_matches(const struct sel *s, void *arg)
{
	const struct match *m = arg;
	const struct df_config *c = m->c;
	const struct df_cap_link *l = m->l;
	int out = c->cap_direction != DF_CAP_IN;
	int in = c->cap_direction != DF_CAP_OUT;
	int tfrom = l->cls == DF_LINK_TERMINAL && l->term_from;
	int tto = l->cls == DF_LINK_TERMINAL && !l->term_from;

	switch (s->kind) {
	case SEL_ALL:
		return 1;
	case SEL_NONE:
		return 0;
	case SEL_CLASS:
		return (uint32_t)l->cls == s->a;
	case SEL_TERM:
		return (out && tfrom && l->from == s->a) ||
		       (in && tto && l->to == s->a);
	default:
		break;
	}
	/* router selectors: the router end(s) of the link */
	for (int o = 1; o >= 0; o--) {
		if ((o && !out) || (!o && !in))
			continue;
		if ((o && tfrom) || (!o && tto))
			continue; /* that end is a terminal */
		uint32_t r = o ? l->from : l->to;
		uint32_t port = o ? l->from_port : l->to_port;
		if (s->kind == SEL_ROUTER && r == s->a)
			return 1;
		if (s->kind == SEL_PORT && r == s->a && port == s->b)
			return 1;
		if (s->kind == SEL_GROUP && r / c->a == s->a)
			return 1;
	}
	return 0;
}

int df_cap_selects(const struct df_config *c, const struct df_cap_link *l)
{
	struct match m = {c, l};
	char why[160]; /* unused: the config was validated */

	return each_sel(c, why, sizeof(why), sel_matches, &m) == 1;
}

uint32_t df_cap_vc_mask(const struct df_config *c)
{
	char buf[sizeof(c->cap_vcs)], *save = NULL, *tok;
	uint32_t mask = 0;

	if (!strcmp(c->cap_vcs, "all"))
		return UINT32_MAX;
	snprintf(buf, sizeof(buf), "%s", c->cap_vcs);
	for (tok = strtok_r(buf, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save))
		mask |= 1u << atoi(tok);
	return mask;
}

void df_cap_link_name(const struct df_config *c, const struct df_cap_link *l,
		      char *buf, size_t n)
{
	char a[32], b[32];
	int tfrom = l->cls == DF_LINK_TERMINAL && l->term_from;

	if (tfrom)
		snprintf(a, sizeof(a), "t%u", l->from);
	else
		snprintf(a, sizeof(a), "g%u.r%u.p%u", l->from / c->a,
			 l->from % c->a, l->from_port);
	if (l->cls == DF_LINK_TERMINAL && !tfrom)
		snprintf(b, sizeof(b), "t%u", l->to);
	else
		snprintf(b, sizeof(b), "g%u.r%u.p%u", l->to / c->a,
			 l->to % c->a, l->to_port);
	snprintf(buf, n, "%s->%s (%s)", a, b, df_link_class_name(l->cls));
}

static int check_vcs(const struct df_config *c, char *why, size_t n)
{
	char buf[sizeof(c->cap_vcs)], *save = NULL, *tok;

	if (!strcmp(c->cap_vcs, "all"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", c->cap_vcs);
	tok = strtok_r(buf, ", ", &save);
	if (tok == NULL) {
		snprintf(why, n, "no VC given");
		return -1;
	}
	for (; tok; tok = strtok_r(NULL, ", ", &save)) {
		const char *p = tok;
		long v = number(&p);
		if (v < 0 || *p != '\0' || v >= DF_MAX_VC) {
			snprintf(why, n, "'%s' is not a VC (0..%d)", tok,
				 DF_MAX_VC - 1);
			return -1;
		}
	}
	return 0;
}

int df_cap_validate(const struct df_config *c, char *err, size_t n)
{
	char why[160];

	if (each_sel(c, why, sizeof(why), NULL, NULL)) {
		snprintf(err, n,
			 "%s: [capture] links = %s: %s; allowed: all, none, "
			 "local, global, terminal, gG, rR, rR.pP, tN, "
			 "comma-separated",
			 df_config_origin(c, "capture", "links"), c->cap_links,
			 why);
		return -1;
	}
	if (check_vcs(c, why, sizeof(why))) {
		snprintf(err, n,
			 "%s: [capture] vcs = %s: %s; allowed: all, or VC "
			 "numbers comma-separated",
			 df_config_origin(c, "capture", "vcs"), c->cap_vcs,
			 why);
		return -1;
	}
	return 0;
}
