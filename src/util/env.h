/* SPDX-License-Identifier: MIT */
/*
 * The OFFLOAD_* environment variables the library reads, and their one
 * parser (src/util/env.c): every variable is in one table with the values it
 * takes, every reader goes through it, and offload_ctx_open() checks them
 * all (ofl_env_check), so a malformed value is refused the same way
 * everywhere, with a sentence naming the variable, instead of being ignored
 * by one reader and fatal in another.
 */
#ifndef OFL_UTIL_ENV_H
#define OFL_UTIL_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An on/off value, case-insensitively: 1 for "1", "yes", "true", "on"; 0 for
 * "", "0", "no", "false", "off"; -EINVAL for anything else.
 */
int ofl_env_bool(const char *v);

/*
 * Variable `name` (one of the table's), read and checked: 0 when unset or
 * empty (*out untouched), 1 when set to a valid value (*out: the number for a
 * numeric variable, else unchanged), -EINVAL when malformed, with `why` a
 * sentence naming the variable, its value and what it takes.
 */
int ofl_env_uint(const char *name, uint64_t *out, char *why, size_t wl);
/*
 * `value` (from elsewhere: a file) checked by the rules of numeric variable
 * `name`: 0 and *out, or -EINVAL with `why` naming the variable's rule.
 */
int ofl_env_parse_uint(const char *name, const char *value, uint64_t *out, char *why, size_t wl);
/* As ofl_env_uint for an on/off or a word variable: 1 and *out the value (on/off: "1"/"0"). */
int ofl_env_word(const char *name, const char **out, char *why, size_t wl);

/*
 * Check every variable of the table that is set; with `no_env` only those
 * OFFLOAD_CTX_NO_ENV does not hide (the process-wide ones). 0, or -EINVAL with
 * `why` for the first malformed one.
 */
int ofl_env_check(bool no_env, char *why, size_t wl);

#endif
