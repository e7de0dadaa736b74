/* SPDX-License-Identifier: MIT */
/*
 * The OFFLOAD_* environment variables: one table, one parser (see env.h).
 * Documented in offloadctl(1) ENVIRONMENT and README.md; paths (OFFLOAD_DTB,
 * the stand-in roots, OFFLOAD_SIM_TRACE) and the backend allow-list are
 * checked where they are used (they are not malformed, only missing or
 * unknown, and their readers say so).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/env.h"
#include "util/util.h"

enum kind { ONOFF, UINT, POW2, WORDS };

struct spec {
	const char *name;
	enum kind kind;
	bool hidden_by_no_env; /* OFFLOAD_CTX_NO_ENV ignores it */
	uint64_t min, max;     /* UINT, POW2 */
	const char *const *words; /* WORDS, NULL-terminated */
};

static const char *const dspi_modes[] = { "eoq", "xspi", NULL };
static const char *const udma_cfgs[] = { "direct", NULL };
static const char *const ring_mems[] = { "cached", NULL };
static const char *const sim_uncached[] = { "device", NULL };
static const char *const soc_revisions[] = { "SR1.0", "SR2.0", NULL };
static const char *const providers[] = { "u-dma-buf", "reserved-memory", "dma-heap", NULL };

static const struct spec specs[] = {
	{ "OFFLOAD_SIM", ONOFF, true, 0, 0, NULL },
	{ "OFFLOAD_CPU_THREADS", UINT, false, 1, 64, NULL }, /* backends/cpu/pool.h OFL_POOL_MAX_THREADS */
	{ "OFFLOAD_CPU_NT_THRESHOLD", UINT, false, 1, 1ull << 48, NULL }, /* backends/cpu/memcpy.c, bytes */
	{ "OFFLOAD_DEVMEM", ONOFF, false, 0, 0, NULL },
	{ "OFFLOAD_SPIDEV_DMA_MINALIGN", POW2, false, 1, 4096, NULL },
	{ "OFFLOAD_DSPI_CLOCK_HZ", UINT, true, 1, 4000000000ull, NULL },
	{ "OFFLOAD_DSPI_MODE", WORDS, true, 0, 0, dspi_modes },
	{ "OFFLOAD_UDMA_CFG", WORDS, false, 0, 0, udma_cfgs },
	{ "OFFLOAD_EIP97_RING_MEM", WORDS, false, 0, 0, ring_mems },
	{ "OFFLOAD_DMA_PROVIDER", WORDS, false, 0, 0, providers },
	{ "OFFLOAD_DMAENGINE_THRESHOLD", UINT, true, 0, 1ull << 40, NULL }, /* backends/dmaengine */
	{ "OFFLOAD_SIM_UNCACHED", WORDS, false, 0, 0, sim_uncached }, /* read by liboffload-sim (provider.c) */
	{ "OFFLOAD_SIM_SOC_REVISION", WORDS, false, 0, 0, soc_revisions }, /* liboffload-sim (attach.c) */
};

int ofl_env_bool(const char *v)
{
	static const char *const on[] = { "1", "yes", "true", "on" };
	static const char *const off[] = { "", "0", "no", "false", "off" };

	for (size_t i = 0; i < OFL_ARRAY_SIZE(on); i++)
		if (strcasecmp(v, on[i]) == 0)
			return 1;
	for (size_t i = 0; i < OFL_ARRAY_SIZE(off); i++)
		if (strcasecmp(v, off[i]) == 0)
			return 0;
	return -EINVAL;
}

/* Decimal digits only, as every number the CLI takes (offloadctl(1) NUMBERS). */
static bool decimal(const char *v, uint64_t *out)
{
	uint64_t n = 0;

	if (!*v)
		return false;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return true;
}

static const struct spec *find(const char *name)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(specs); i++)
		if (strcmp(specs[i].name, name) == 0)
			return &specs[i];
	return NULL;
}

/* Check v against s: 0 (and *num, *word) or -EINVAL with the sentence. */
static int parse(const struct spec *s, const char *v, uint64_t *num, const char **word, char *why,
		 size_t wl)
{
	uint64_t n = 0;
	int on;

	switch (s->kind) {
	case ONOFF:
		if ((on = ofl_env_bool(v)) >= 0) {
			*word = on ? "1" : "0";
			return 0;
		}
		snprintf(why, wl, "%s=\"%.40s\" is neither on (1, yes, true, on) nor off (0, no, false, "
			 "off, empty)", s->name, v);
		return -EINVAL;
	case UINT:
	case POW2:
		if (decimal(v, &n) && n >= s->min && n <= s->max && (s->kind == UINT || !(n & (n - 1)))) {
			*num = n;
			return 0;
		}
		snprintf(why, wl, "%s=\"%.40s\" is not %s from %llu to %llu (decimal digits only)", s->name,
			 v, s->kind == POW2 ? "a power of two" : "a whole number",
			 (unsigned long long)s->min, (unsigned long long)s->max);
		return -EINVAL;
	case WORDS:
		for (const char *const *w = s->words; *w; w++)
			if (strcmp(v, *w) == 0) {
				*word = *w;
				return 0;
			}
		char list[128] = "";
		for (const char *const *w = s->words; *w; w++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 w == s->words ? "" : ", ", *w);
		snprintf(why, wl, "%s=\"%.40s\" is none of: %s (or empty)", s->name, v, list);
		return -EINVAL;
	}
	return -EINVAL;
}

static int get(const char *name, uint64_t *num, const char **word, char *why, size_t wl)
{
	const struct spec *s = find(name);

	if (!s) {
		snprintf(why, wl, "%s is not a variable liboffload knows (a library bug)", name);
		return -EINVAL;
	}
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	int r = parse(s, v, num, word, why, wl);
	return r < 0 ? r : 1;
}

int ofl_env_uint(const char *name, uint64_t *out, char *why, size_t wl)
{
	const char *w;

	return get(name, out, &w, why, wl);
}

int ofl_env_parse_uint(const char *name, const char *value, uint64_t *out, char *why, size_t wl)
{
	const struct spec *s = find(name);
	const char *w;

	if (!s) {
		snprintf(why, wl, "%s is not a variable liboffload knows (a library bug)", name);
		return -EINVAL;
	}
	return parse(s, value, out, &w, why, wl);
}

int ofl_env_word(const char *name, const char **out, char *why, size_t wl)
{
	uint64_t n;

	return get(name, &n, out, why, wl);
}

int ofl_env_check(bool no_env, char *why, size_t wl)
{
	for (size_t i = 0; i < OFL_ARRAY_SIZE(specs); i++) {
		uint64_t n;
		const char *w;
		if (no_env && specs[i].hidden_by_no_env)
			continue;
		int r = get(specs[i].name, &n, &w, why, wl);
		if (r < 0)
			return r;
	}
	return 0;
}
