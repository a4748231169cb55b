/* test_cli.c - stopo's exit status is chosen from the error's code: an
 * exhausted resource (ENOMEM) is the work failing (1) wherever it is met,
 * never bad usage (2); every other code keeps the command's own status.
 * (tests/cli/topo.sh's out_of_memory case checks the same end to end.) */
#include <criterion/criterion.h>

#include "evaluator/cmd/cli.h"

Test(cli, enomem_is_never_bad_usage)
{
	struct err e = { 0 };

	err_nomem(&e, "out of memory");
	cr_expect_eq(cli_status(&e, CLI_USAGE), CLI_FAIL);
	cr_expect_eq(cli_status(&e, CLI_FAIL), CLI_FAIL);
	err_prefix(&e, "topo.conf:2");
	cr_expect_eq(cli_status(&e, CLI_USAGE), CLI_FAIL,
		     "a prefixed ENOMEM is still the work failing");
}

Test(cli, other_codes_keep_the_commands_status)
{
	static const int codes[] = { EINVAL, ERANGE, ENOENT, EIO, ECANCELED };
	struct err e = { 0 };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		err_code(&e, codes[i], "out of memory"); /* the text is no
							  * matter */
		cr_expect_eq(cli_status(&e, CLI_USAGE), CLI_USAGE, "code %d",
			     codes[i]);
		cr_expect_eq(cli_status(&e, CLI_FAIL), CLI_FAIL, "code %d",
			     codes[i]);
	}
}
