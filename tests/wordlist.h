/* SPDX-License-Identifier: MIT */
/* Word lists in test environment variables (plain programs, no Check). */
#ifndef OFFLOAD_TEST_WORDLIST_H
#define OFFLOAD_TEST_WORDLIST_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Is word one of the comma- or space-separated words of list (NULL: no)? */
static inline bool test_word_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	if (!list || !n)
		return false;
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return true;
	return false;
}

/*
 * May a backend leave algorithm `name` unimplemented? Always, unless
 * OFFLOAD_TEST_ALLOW_NA is set (the qemu guest sets it): then only the names
 * it lists, so a kernel module missing from the guest cannot quietly shrink
 * a test.
 */
static inline bool test_na_allowed(const char *name)
{
	const char *list = getenv("OFFLOAD_TEST_ALLOW_NA");

	return !list || test_word_in_list(list, name);
}

#endif
