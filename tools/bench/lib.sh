# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the tools/bench scripts, on the host, from the checkout's top.

# bench_build NAME: compile tools/bench/NAME.c into build/bench/NAME, a
# static program the guest runs.
bench_build() {
	mkdir -p build/bench
	gcc -O2 -Wall -Werror -std=gnu11 -D_GNU_SOURCE -static -Iinclude/uapi \
		"tools/bench/$1.c" -o "build/bench/$1"
}

# bench_vm_clock: give the guest a fine clock (NEURON_VM_APPEND), unless
# the caller set NEURON_VM_APPEND.  The guest runs without ACPI (tools/vm/run:
# acpi=off), so it has no HPET or PM timer: its only fine clock source is
# the TSC.  Linux drops the TSC when the clocksource watchdog (jiffies,
# which lose ticks under TCG) disagrees with it, unless tsc=reliable, and
# when its calibration against the emulated PIT fails, which it does on a
# busy host ("tsc: Unable to calibrate against PIT", "No reference
# (HPET/PMTIMER) available", "Marking TSC unstable due to could not
# calculate TSC khz"): CLOCK_MONOTONIC then steps in 4 ms jiffies
# (refined-jiffies).  tsc_early_khz= skips that calibration: under TCG the
# guest's TSC runs at the host's rate, which tsc_khz measures here.
bench_vm_clock() {
	local khz
	[ -z "${NEURON_VM_APPEND:-}" ] || return 0
	bench_build tsc_khz
	NEURON_VM_APPEND="tsc=reliable"
	if khz=$(build/bench/tsc_khz); then
		NEURON_VM_APPEND+=" tsc_early_khz=$khz"
	else
		log "no TSC frequency for the guest: it calibrates its own (may fall back to jiffies)"
	fi
	export NEURON_VM_APPEND
}
