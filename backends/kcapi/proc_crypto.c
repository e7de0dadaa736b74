/* SPDX-License-Identifier: MIT */
/* /proc/crypto parser (see proc_crypto.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "proc_crypto.h"

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static bool type_fits(const char *type, const char *socket_type)
{
	static const char *const skcipher[] = { "skcipher", "lskcipher", "ablkcipher", "blkcipher",
						"givcipher", NULL };
	static const char *const aead[] = { "aead", "nivaead", NULL };
	static const char *const hash[] = { "shash", "ahash", "digest", NULL };
	const char *const *ok = strcmp(socket_type, "skcipher") == 0 ? skcipher
				: strcmp(socket_type, "aead") == 0   ? aead
				: strcmp(socket_type, "hash") == 0   ? hash
								     : NULL;
	if (!ok)
		return false;
	for (; *ok; ok++)
		if (strcmp(type, *ok) == 0)
			return true;
	return false;
}

/* Which entries a pick considers beyond cra_name and socket type. */
struct filter {
	bool hw_only;       /* hardware drivers alone */
	const char *driver; /* this cra_driver_name alone, or NULL */
};

static void consider(const struct ofl_proc_crypto_entry *e, const char *cra_name,
		     const char *socket_type, const struct filter *fl,
		     struct ofl_proc_crypto_entry *best, bool *found)
{
	if (!e->name[0] || strcmp(e->name, cra_name) != 0)
		return;
	if (!e->selftest_passed || e->internal || !type_fits(e->type, socket_type))
		return;
	if (fl->hw_only && !ofl_kcapi_driver_is_hw(e->driver))
		return;
	if (fl->driver && strcmp(e->driver, fl->driver) != 0)
		return;
	/* A later entry must be strictly better, as in the kernel's lookup. */
	if (*found && e->priority <= best->priority)
		return;
	*best = *e;
	*found = true;
}

/* One pass over the file: the best entry for cra_name, and how many entries
 * there were. Returns 0 found, -ENOENT, or -errno when path cannot be read. */
static int pick_once(const char *path, const char *cra_name, const char *socket_type,
		     const struct filter *fl, struct ofl_proc_crypto_entry *best, int *entries)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	struct ofl_proc_crypto_entry e;
	bool found = false;
	char *line = NULL;
	size_t cap = 0;
	memset(&e, 0, sizeof(e));
	memset(best, 0, sizeof(*best));
	*entries = 0;
	while (getline(&line, &cap, f) >= 0) {
		char *colon = strchr(line, ':');
		if (!colon) {
			if (trim(line)[0] == '\0') {
				consider(&e, cra_name, socket_type, fl, best, &found);
				memset(&e, 0, sizeof(e));
			}
			continue;
		}
		*colon = '\0';
		const char *k = trim(line), *v = trim(colon + 1);
		if (strcmp(k, "name") == 0) {
			/* A "name" line starts a new entry even without a blank line. */
			consider(&e, cra_name, socket_type, fl, best, &found);
			memset(&e, 0, sizeof(e));
			ofl_strlcpy(e.name, v, sizeof(e.name));
			(*entries)++;
		} else if (strcmp(k, "driver") == 0) {
			ofl_strlcpy(e.driver, v, sizeof(e.driver));
		} else if (strcmp(k, "module") == 0) {
			ofl_strlcpy(e.module, v, sizeof(e.module));
		} else if (strcmp(k, "type") == 0) {
			ofl_strlcpy(e.type, v, sizeof(e.type));
		} else if (strcmp(k, "priority") == 0) {
			e.priority = atoi(v);
		} else if (strcmp(k, "selftest") == 0) {
			e.selftest_passed = strcmp(v, "passed") == 0;
		} else if (strcmp(k, "internal") == 0) {
			e.internal = strcmp(v, "yes") == 0;
		} else if (strcmp(k, "async") == 0) {
			e.async = strcmp(v, "yes") == 0;
		}
	}
	consider(&e, cra_name, socket_type, fl, best, &found);
	free(line);
	fclose(f);
	return found ? 0 : -ENOENT;
}

/*
 * The kernel hands /proc/crypto out about a page per read(), taking its
 * algorithm-list lock for each (crypto/proc.c, fs/seq_file.c), and resumes by
 * position: an algorithm registered, or a larval removed, between two reads
 * shifts the list and one entry is skipped or repeated. That happens while
 * modules register and self-test algorithms (seen in the qemu guest right
 * after a modprobe: the prio-400 ecb-aes-aesni was skipped and the prio-300
 * ecb(aes-aesni) picked). So read until two passes agree on the entry count
 * and the answer, at most OFL_PROC_CRYPTO_PASSES times.
 */
#define OFL_PROC_CRYPTO_PASSES 4

static int pick(const char *path, const char *cra_name, const char *socket_type,
		const struct filter *fl, struct ofl_proc_crypto_entry *out)
{
	struct ofl_proc_crypto_entry best, prev;
	int r = 0, prev_r = 1, n = 0, prev_n = -1;

	memset(&prev, 0, sizeof(prev));

	for (int pass = 0; pass < OFL_PROC_CRYPTO_PASSES; pass++) {
		r = pick_once(path, cra_name, socket_type, fl, &best, &n);
		if (r != 0 && r != -ENOENT)
			return r;
		if (r == prev_r && n == prev_n && strcmp(best.driver, prev.driver) == 0)
			break;
		prev = best;
		prev_r = r;
		prev_n = n;
	}
	if (r == 0)
		*out = best;
	return r;
}

int ofl_proc_crypto_pick(const char *path, const char *cra_name, const char *socket_type,
			 struct ofl_proc_crypto_entry *out)
{
	const struct filter fl = { false, NULL };

	return pick(path, cra_name, socket_type, &fl, out);
}

int ofl_proc_crypto_pick_hw(const char *path, const char *cra_name, const char *socket_type,
			    struct ofl_proc_crypto_entry *out)
{
	const struct filter fl = { true, NULL };

	return pick(path, cra_name, socket_type, &fl, out);
}

int ofl_proc_crypto_pick_driver(const char *path, const char *cra_name, const char *socket_type,
				const char *driver, struct ofl_proc_crypto_entry *out)
{
	const struct filter fl = { false, driver };

	return pick(path, cra_name, socket_type, &fl, out);
}

/*
 * Driver names of Linux crypto drivers that run on an engine outside the
 * CPU (drivers/crypto/), matched by prefix or infix: Inside Secure SafeXcel
 * EIP97/EIP197 ("safexcel-cbc-aes", inside-secure/safexcel_cipher.c),
 * Marvell CESA ("mv-cbc-aes"), Atmel ("atmel-cbc-aes"), STM32
 * ("stm32-cbc-aes"), virtio ("virtio_crypto_aes_cbc"), NXP CAAM
 * ("cbc-aes-caam"), TI SA2UL ("cbc-aes-sa2ul"), Allwinner CE
 * ("cbc-aes-sun8i-ce"), ARM CryptoCell ("cbc-aes-ccree"), Freescale Talitos
 * ("cbc-aes-talitos"). Not exhaustive: a driver missing here is treated as
 * software, so AF_ALG is then used only when selected explicitly.
 */
bool ofl_kcapi_driver_is_hw(const char *driver)
{
	static const char *const prefixes[] = { "safexcel-", "mv-", "atmel-", "stm32-",
						"virtio_crypto_", NULL };
	static const char *const infixes[] = { "-caam", "-sa2ul", "-sun8i-ce", "-ccree", "-talitos",
					       NULL };

	for (const char *const *p = prefixes; *p; p++)
		if (strncmp(driver, *p, strlen(*p)) == 0)
			return true;
	for (const char *const *p = infixes; *p; p++)
		if (strstr(driver, *p))
			return true;
	return false;
}
