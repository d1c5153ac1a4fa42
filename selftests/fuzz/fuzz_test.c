// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the fuzzer of tools/fuzz (Documentation/testing.rst, "Fuzzer")
 * for a fixed number of operations from a fixed seed: several processes
 * send random and mutated commands, mmaps, closes and forks to simulated
 * v2, v3 and v4 devices while another adds, resets and removes devices.
 * It fails when a process dies of a signal it did not expect, hangs in an
 * operation, gets an internal errno, an unknown encoding is answered with
 * something other than ENOTTY, or a new process cannot use a new device
 * afterwards; the VM runner fails the run on any kernel report.
 *
 * NEURON_FUZZ_SEED, NEURON_FUZZ_OPS and NEURON_FUZZ_WORKERS replay or
 * lengthen the run (make stress runs a long one).
 */
#define NEURON_FUZZ_NO_MAIN
#include "../../tools/fuzz/neuron_fuzz.c"

#include "kselftest_harness.h"

/* Operations of the make check slice: 60 to 90 s in the debug VM under TCG. */
#define FUZZ_CHECK_OPS	"10000"

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	ASSERT_EQ(0, nt_driver_up(NF_CORE_ARGS, NF_SIM_ARGS));
}

FIXTURE_TEARDOWN(fuzz)
{
	EXPECT_EQ(0, nt_driver_down());
}

/*
 * The harness's limit only backs up the fuzzer's own (a process stuck in
 * one operation for NEURON_FUZZ_HANG_S fails the run); make stress's long
 * runs are bounded by guest-run's NEURON_SELFTEST_TIMEOUT.
 */
TEST_F_TIMEOUT(fuzz, random_input, 4 * 3600)
{
	setenv("NEURON_FUZZ_OPS", getenv("NEURON_FUZZ_OPS") ?: FUZZ_CHECK_OPS, 0);
	EXPECT_EQ(0, nf_run());
}

TEST_HARNESS_MAIN
