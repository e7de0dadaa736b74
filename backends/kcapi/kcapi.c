/* SPDX-License-Identifier: MIT */
/*
 * The AF_ALG backend (libkcapi): the kernel's crypto API as a pseudo-device
 * "af_alg". Present only where socket(AF_ALG) works; otherwise absent with
 * the reason (never a context-open error).
 *
 * Which kernel driver serves each algorithm comes from /proc/crypto (path
 * overridable with OFFLOAD_PROC_CRYPTO for tests), picked with the kernel's
 * own rule (proc_crypto.h). Automatic selection prefers the af_alg device
 * only for algorithms whose serving driver is hardware (ofl_kcapi_driver_is_hw);
 * software kernel drivers are used only when the device is selected
 * explicitly or the allow-list names "kcapi".
 *
 * OFFLOAD_KCAPI_DRIVER=NAME forces one kernel driver (a cra_driver_name,
 * e.g. "cbc-aes-aesni") for the algorithm it implements, whatever its
 * priority: how `offloadctl bench cipher` compares two kernel drivers of one
 * algorithm. A name /proc/crypto does not list as usable for one of the
 * backend's algorithms leaves the backend absent with the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kcapi.h>

#include "kcapi_int.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif

/* Offload threshold of the af_alg device, see kc_add_devices(). */
#define KC_THRESHOLD 1024

static const char *const cipher_names[KC_NCIPHER] = { "ecb(aes)", "cbc(aes)", "ctr(aes)",
						      "gcm(aes)", "ecb(des)", "cbc(des3_ede)" };
static const char *const hash_names[KC_NHASH] = {
	"md5",	     "sha1",	   "sha224",	   "sha256",	   "sha384",	   "sha512",
	"hmac(md5)", "hmac(sha1)", "hmac(sha224)", "hmac(sha256)", "hmac(sha384)", "hmac(sha512)"
};

struct kc_alg *ofl_kc_hash_alg(struct kc_state *st, enum offload_hash_alg alg)
{
	unsigned b = ofl_hash_base(alg);

	if (b < 1 || b > 6)
		return NULL;
	return &st->hash[(ofl_hash_is_hmac(alg) ? 6 : 0) + b - 1];
}

/*
 * The driver for a: a hardware engine's own when the kernel has one for the
 * name (then bound by its cra_driver_name, which AF_ALG takes as the
 * algorithm name: crypto/api.c __crypto_alg_lookup takes an exact
 * cra_driver_name match before any cra_name match by priority, so a CPU
 * implementation of equal or higher priority cannot take the request),
 * else the kernel's choice by priority.
 */
static void kc_lookup(struct kc_state *st, struct kc_alg *a)
{
	struct ofl_proc_crypto_entry e;

	if (ofl_proc_crypto_pick_hw(st->proc_path, a->cra_name, a->socket_type, &e) == 0 ||
	    ofl_proc_crypto_pick(st->proc_path, a->cra_name, a->socket_type, &e) == 0) {
		ofl_strlcpy(a->driver, e.driver, sizeof(a->driver));
		a->priority = e.priority;
		a->hw = ofl_kcapi_driver_is_hw(e.driver);
		a->in_proc = true;
	}
}

const char *ofl_kc_bind_name(const struct kc_state *st, const struct kc_alg *a)
{
	/* A stand-in /proc/crypto (OFFLOAD_PROC_CRYPTO, a test hook) describes
	 * another kernel: its driver names need not exist in this one. */
	if (strcmp(st->proc_path, OFL_PROC_CRYPTO) != 0)
		return a->cra_name;
	return a->hw || a->forced ? a->driver : a->cra_name;
}

/* The stored copy of name (caller holds st->lock); NULL when out of memory. */
static const char *kc_intern(struct kc_state *st, const char *name)
{
	for (struct kc_name *n = st->names; n; n = n->next)
		if (strcmp(n->s, name) == 0)
			return n->s;
	size_t len = strlen(name) + 1;
	struct kc_name *n = malloc(sizeof(*n) + len);
	if (!n)
		return NULL;
	memcpy(n->s, name, len);
	n->next = st->names;
	st->names = n;
	return n->s;
}

/*
 * How many modules the kernel has: /sys/module holds one directory per
 * module (and per built-in one with parameters), and sysfs counts a
 * directory's subdirectories in its link count (kernfs). One stat(); 0 when
 * unknown.
 */
static unsigned long kc_module_count(void)
{
	struct stat sb;

	return stat("/sys/module", &sb) == 0 ? (unsigned long)sb.st_nlink : 0;
}

const char *ofl_kc_resolve(struct kc_state *st, struct kc_alg *a, bool *hw)
{
	struct ofl_proc_crypto_entry e;
	char buf[160];
	unsigned long mods = kc_module_count();

	/*
	 * Reading /proc/crypto costs about 0.1 ms (two passes, see
	 * ofl_proc_crypto_pick), more than the AF_ALG operation a one-shot call
	 * makes, so the last answer is kept while no module came or went: a
	 * better implementation is registered by a module load (aesni-intel,
	 * crypto_safexcel). Not seen: one registered without a module load
	 * (a deferred probe of a loaded driver) until the next load or context.
	 */
	/* Bound by the engine's (or the forced) driver name: that driver serves it. */
	if (a->hw || a->forced) {
		*hw = a->hw;
		return a->driver;
	}
	pthread_mutex_lock(&st->lock);
	if (mods && a->seen && a->seen_modules == mods) {
		*hw = a->seen_hw;
		pthread_mutex_unlock(&st->lock);
		return a->seen;
	}
	pthread_mutex_unlock(&st->lock);
	*hw = false;
	bool found = ofl_proc_crypto_pick(st->proc_path, a->cra_name, a->socket_type, &e) == 0;
	if (found) {
		ofl_strlcpy(buf, e.driver, sizeof(buf));
		*hw = ofl_kcapi_driver_is_hw(e.driver);
	} else {
		snprintf(buf, sizeof(buf), "kernel:%.40s (driver not in %.60s)", a->cra_name,
			 st->proc_path);
	}
	pthread_mutex_lock(&st->lock);
	const char *name = kc_intern(st, buf);
	if (name && found) {
		a->seen = name;
		a->seen_hw = *hw;
		a->seen_modules = mods;
	}
	pthread_mutex_unlock(&st->lock);
	return name ? name : a->cra_name;
}

int ofl_kc_query(struct kc_alg *a, bool *hw, char *why, size_t why_len)
{
	*hw = a->hw;
	if (a->in_proc)
		snprintf(why, why_len, "%s served by %s (priority %d, %s%s)", a->cra_name, a->driver,
			 a->priority, a->hw ? "hardware" : "software",
			 a->forced ? ", forced by OFFLOAD_KCAPI_DRIVER" : "");
	else
		snprintf(why, why_len, "%s not yet instantiated in the kernel (software template)",
			 a->cra_name);
	return 0;
}

int ofl_kc_err(struct ofl_device *dev, int r, const char *what, const struct kc_alg *a)
{
	if (r == -ENOENT)
		return ofl_err(dev->ctx, -ENOTSUP,
			       "kcapi backend: the kernel has no %s (AF_ALG bind failed: %s); "
			       "load its module or enable it in the kernel configuration",
			       a->cra_name, ofl_strerror(r));
	/* libkcapi passes send()'s -1 through for updates under 32 KiB; errno has the reason */
	if (r == -1 && errno && errno != EPERM)
		r = -errno;
	if (r == -EFAULT)
		return ofl_err(dev->ctx, r, "kcapi backend: %s for %s failed: %s: the kernel could not pin "
			       "the memory (memory without struct pages, such as a dma-buf or device mapping "
			       "the library does not know: copy the data to ordinary memory first)",
			       what, a->cra_name, ofl_strerror(r));
	return ofl_err(dev->ctx, r, "kcapi backend: %s for %s failed: %s", what, a->cra_name,
		       ofl_strerror(r));
}

/* The backend's algorithms, cipher[] then hash[] of kc_state, by index. */
static const char *kc_name_at(int i, const char **socket_type)
{
	if (i < KC_NCIPHER) {
		*socket_type = i == OFFLOAD_CIPHER_AES_GCM - 1 ? "aead" : "skcipher";
		return cipher_names[i];
	}
	*socket_type = "hash";
	return hash_names[i - KC_NCIPHER];
}

/*
 * OFFLOAD_KCAPI_DRIVER (if set): which of the backend's algorithms the named
 * driver implements, in *index, with its /proc/crypto entry. 0 when unset
 * (*index -1), 1 when found, -ENOENT (with why) when path lists no usable
 * entry of that cra_driver_name for any of them, or -errno when path cannot
 * be read.
 */
static int kc_forced_driver(const char *path, int *index, struct ofl_proc_crypto_entry *e,
			    char *why, size_t why_len)
{
	const char *d = getenv("OFFLOAD_KCAPI_DRIVER");
	int r = -ENOENT;

	*index = -1;
	if (!d || !*d)
		return 0;
	for (int i = 0; i < KC_NCIPHER + KC_NHASH && r == -ENOENT; i++) {
		const char *type, *name = kc_name_at(i, &type);
		r = ofl_proc_crypto_pick_driver(path, name, type, d, e);
		if (r == 0)
			*index = i;
	}
	if (r == 0)
		return 1;
	if (r == -ENOENT)
		snprintf(why, why_len,
			 "OFFLOAD_KCAPI_DRIVER: the kernel has no crypto driver \"%.128s\" that AF_ALG "
			 "can bind for the backend's algorithms (no such cra_driver_name in %.100s, or it "
			 "is internal or failed its self-test)", d, path);
	else
		snprintf(why, why_len, "OFFLOAD_KCAPI_DRIVER: cannot read %.100s: %s", path,
			 strerror(-r));
	return r;
}

static int kc_init(struct offload_ctx *ctx, void **state, char *why, size_t why_len)
{
	/* A test hook, read even with OFFLOAD_CTX_NO_ENV (which covers the DT/backend/sim
	 * variables), as is OFFLOAD_KCAPI_DRIVER (bench cipher sets it per context). */
	const char *p = getenv("OFFLOAD_PROC_CRYPTO");
	const char *path = p && *p ? p : OFL_PROC_CRYPTO;
	struct ofl_proc_crypto_entry forced;
	int fi;
	int r = kc_forced_driver(path, &fi, &forced, why, why_len);

	OFL_UNUSED(ctx);
	if (r < 0)
		return r;
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(why, why_len,
			 "socket(AF_ALG) failed: %s (kernel without CONFIG_CRYPTO_USER_API_*)",
			 strerror(e));
		return -e;
	}
	close(fd);
	struct kc_state *st = calloc(1, sizeof(*st));
	if (!st) {
		ofl_strlcpy(why, "out of memory", why_len);
		return -ENOMEM;
	}
	pthread_mutex_init(&st->lock, NULL);
	ofl_strlcpy(st->proc_path, path, sizeof(st->proc_path));
	for (int i = 0; i < KC_NCIPHER + KC_NHASH; i++) {
		struct kc_alg *a = i < KC_NCIPHER ? &st->cipher[i] : &st->hash[i - KC_NCIPHER];
		a->cra_name = kc_name_at(i, &a->socket_type);
		if (i != fi) {
			kc_lookup(st, a);
			continue;
		}
		ofl_strlcpy(a->driver, forced.driver, sizeof(a->driver));
		a->priority = forced.priority;
		a->hw = ofl_kcapi_driver_is_hw(forced.driver);
		a->in_proc = a->forced = true;
	}
	*state = st;
	return 0;
}

static void kc_fini(struct offload_ctx *ctx, void *state)
{
	struct kc_state *st = state;

	OFL_UNUSED(ctx);
	pthread_mutex_destroy(&st->lock);
	while (st->names) {
		struct kc_name *n = st->names;
		st->names = n->next;
		free(n);
	}
	free(st);
}

static int kc_pseudo(struct offload_ctx *ctx, void *state, struct ofl_pseudo_dev *out)
{
	struct kc_state *st = state;

	OFL_UNUSED(ctx);
	out->name = "af_alg";
	out->kind = "af_alg";
	out->caps = OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH;
	out->devflags = OFFLOAD_DEVF_KERNEL;
	out->coherent_reason = "the kernel driver maps and maintains the buffers (dma_map_sg)";
	out->cache_reason = "no user-space cache maintenance: the kernel driver does it";
	out->burst_reason = "chosen by the kernel driver";
	out->align_reason = "data is copied or spliced into the kernel: any alignment";
	out->threshold_bytes = KC_THRESHOLD;
	out->threshold_reason = "AF_ALG costs a few syscalls per operation: below ~1 KiB the CPU wins "
				"even against an engine (EIP93 ctr(aes): 16x slower at 16 B, 4.2x faster "
				"at 8 KiB)";
	out->transfer_mode = "af_alg";
	snprintf(out->transfer_reason, sizeof(out->transfer_reason),
		 "libkcapi over AF_ALG sockets; driver names from %.100s", st->proc_path);
	int nhw = 0;
	char hw[96] = "";
	for (int i = 0; i < KC_NCIPHER + KC_NHASH; i++) {
		const struct kc_alg *a = i < KC_NCIPHER ? &st->cipher[i] : &st->hash[i - KC_NCIPHER];
		if (a->hw) {
			if (nhw++ == 0)
				snprintf(hw, sizeof(hw), "%.20s by %.60s", a->cra_name, a->driver);
		}
	}
	if (nhw)
		snprintf(out->usable_reason, sizeof(out->usable_reason),
			 "AF_ALG works; %d of %d algorithms run on hardware (e.g. %.90s), preferred "
			 "over the CPU at >= %d B",
			 nhw, KC_NCIPHER + KC_NHASH, hw, KC_THRESHOLD);
	else
		snprintf(out->usable_reason, sizeof(out->usable_reason),
			 "AF_ALG works, but no algorithm is served by a hardware driver: used only "
			 "when selected explicitly (device af_alg or allow-list \"kcapi\")");
	return 1;
}

/*
 * A crypto engine's device-tree node (its engine says OFL_BE_KERNEL_CRYPTO)
 * is also reachable through the kernel: when /proc/crypto shows the engine's
 * Linux driver (its linux_crypto_prefix, "safexcel-" for the SafeXcel)
 * serving algorithms, AF_ALG reaches that engine (a direct backend earlier
 * in the registry is preferred when it can map the registers).
 */
static int kc_probe(struct offload_ctx *ctx, void *state, struct ofl_device *d, char *why,
		    size_t why_len)
{
	struct kc_state *st = state;
	const char *prefix = d->owner ? d->owner->linux_crypto_prefix : NULL;
	const char *example = NULL;
	int n = 0;

	OFL_UNUSED(ctx);
	if (!prefix || !prefix[0]) {
		snprintf(why, why_len, "its engine names no Linux crypto driver");
		return -ENOTSUP;
	}
	/* the driver's name without the trailing '-' of its algorithms' prefix: "safexcel" */
	int dl = (int)strlen(prefix) - (prefix[strlen(prefix) - 1] == '-');
	for (int i = 0; i < KC_NCIPHER + KC_NHASH; i++) {
		const struct kc_alg *a = i < KC_NCIPHER ? &st->cipher[i] : &st->hash[i - KC_NCIPHER];
		if (a->in_proc && strncmp(a->driver, prefix, strlen(prefix)) == 0 && n++ == 0)
			example = a->driver;
	}
	if (!n) {
		snprintf(why, why_len, "the kernel's %.*s driver serves none of the library's "
			 "algorithms (no %s* driver chosen in %.100s)", dl, prefix, prefix, st->proc_path);
		return -ENOTSUP;
	}
	d->info.flags |= OFFLOAD_DEVF_KERNEL;
	ofl_dev_refine(d, OFL_DECIDE_TRANSFER, "af_alg",
		       "through the kernel's %.*s driver via AF_ALG (libkcapi); the kernel maps the "
		       "buffers and maintains the caches", dl, prefix);
	snprintf(why, why_len, "kcapi: through the kernel's %.*s driver via AF_ALG: %d of %d "
		 "algorithms (e.g. %.60s)", dl, prefix, n, KC_NCIPHER + KC_NHASH, example);
	return 0;
}

const struct ofl_backend ofl_backend_kcapi = {
	.name = "kcapi",
	.caps = OFFLOAD_CAP_CIPHER | OFFLOAD_CAP_HASH,
	.flags = OFL_BE_NO_DMABUF,
	.serves = OFL_BE_KERNEL_CRYPTO,
	.init = kc_init,
	.fini = kc_fini,
	.pseudo = kc_pseudo,
	.probe = kc_probe,
	.cipher = &ofl_kcapi_cipher_ops,
	.hash = &ofl_kcapi_hash_ops,
};
