/* test_err.c - the error contract: each helper's code, prefixes that keep
 * the code, and messages cut to fit marked with a final '+' (as flux-core's
 * verrprintf marks them).  Expected texts and lengths are worked by hand
 * from ERR_MSG_MAX (1024 bytes: at most 1023 characters). */
#include <criterion/criterion.h>
#include <string.h>

#include "topo/util/err.h"

Test(err, each_helper_sets_its_code)
{
	struct err e = { 0 };

	cr_expect_eq(e.code, 0);
	cr_expect_eq(err_set(&e, "bad %s", "spec"), -1);
	cr_expect_eq(e.code, EINVAL);
	cr_expect_str_eq(e.msg, "bad spec");
	cr_expect_eq(err_nomem(&e, "out of memory (%u flows)", 7u), -1);
	cr_expect_eq(e.code, ENOMEM);
	cr_expect_str_eq(e.msg, "out of memory (7 flows)");
	cr_expect_eq(err_range(&e, "too many"), -1);
	cr_expect_eq(e.code, ERANGE);
	cr_expect_eq(err_sys(&e, ENOENT, "x: %s", "gone"), -1);
	cr_expect_eq(e.code, ENOENT);
	cr_expect_str_eq(e.msg, "x: gone");
	cr_expect_eq(err_sys(&e, 0, "write error"), -1);
	cr_expect_eq(e.code, EIO, "a call that left errno 0 is EIO");
	cr_expect_eq(err_code(&e, ECANCELED, "stopped"), -1);
	cr_expect_eq(e.code, ECANCELED);
}

Test(err, null_err_is_a_no_op)
{
	struct err sub = { 0 };

	cr_expect_eq(err_set(NULL, "x"), -1);
	cr_expect_eq(err_nomem(NULL, "x"), -1);
	cr_expect_eq(err_prefix(NULL, "x"), -1);
	cr_expect_eq(err_from(NULL, &sub, "x"), -1);
}

Test(err, prefix_and_from_keep_the_code)
{
	struct err e = { 0 }, sub = { 0 };

	err_nomem(&e, "out of memory");
	err_prefix(&e, "topo.conf:%u", 3u);
	cr_expect_str_eq(e.msg, "topo.conf:3: out of memory");
	cr_expect_eq(e.code, ENOMEM);

	err_range(&sub, "42 exceeds the limit");
	err_from(&e, &sub, "%s", "part");
	cr_expect_str_eq(e.msg, "part: 42 exceeds the limit");
	cr_expect_eq(e.code, ERANGE);
	cr_expect_str_eq(sub.msg, "42 exceeds the limit", "sub untouched");

	err_from(&e, &sub, NULL);
	cr_expect_str_eq(e.msg, "42 exceeds the limit");
	cr_expect_eq(e.code, ERANGE);
}

Test(err, a_cut_message_is_marked)
{
	struct err e = { 0 };
	char big[2 * ERR_MSG_MAX];
	size_t n;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	err_set(&e, "%s", big);
	n = strlen(e.msg);
	cr_expect_eq(n, ERR_MSG_MAX - 1);
	cr_expect_eq(e.msg[n - 1], '+', "cut text ends in '+'");
	cr_expect_eq(e.msg[n - 2], 'a');

	/* exactly fitting: 1023 characters, not marked */
	big[ERR_MSG_MAX - 1] = '\0';
	err_set(&e, "%s", big);
	cr_expect_eq(strlen(e.msg), ERR_MSG_MAX - 1);
	cr_expect_eq(e.msg[ERR_MSG_MAX - 2], 'a', "a fitting text is whole");

	/* a prefix that pushes the text past the end marks it too */
	err_prefix(&e, "ctx");
	cr_expect_eq(strlen(e.msg), ERR_MSG_MAX - 1);
	cr_expect_eq(strncmp(e.msg, "ctx: aaa", 8), 0);
	cr_expect_eq(e.msg[ERR_MSG_MAX - 2], '+');

	/* a short prefix on a short text is not marked */
	err_set(&e, "what");
	err_prefix(&e, "ctx");
	cr_expect_str_eq(e.msg, "ctx: what");
}

/* The plugin's logs say which kind of failure they report (issue 48):
 * each helper's code maps to its kind, by hand. */
Test(err, kind_follows_the_code)
{
	struct err e = { 0 };

	cr_assert_str_eq(err_kind(NULL), "no error");
	cr_assert_str_eq(err_kind(&e), "no error");
	err_set(&e, "x");
	cr_assert_str_eq(err_kind(&e), "bad input");
	err_nomem(&e, "x");
	cr_assert_str_eq(err_kind(&e), "out of memory");
	err_range(&e, "x");
	cr_assert_str_eq(err_kind(&e), "limit exceeded");
	err_code(&e, ECANCELED, "x");
	cr_assert_str_eq(err_kind(&e), "cancelled");
	err_sys(&e, ENOENT, "x");
	cr_assert_str_eq(err_kind(&e), "system error");
}
