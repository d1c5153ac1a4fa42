# SPDX-License-Identifier: GPL-2.0
#
# The Neuron driver.  Targets for people; the kernel build itself is Kbuild.
#
#   make                 build every module against KDIR (in place)
#   make vm              build everything and boot the VM with the driver loaded
#   make check           install what is missing, build for every kernel, run every test
#   make stress          the long sweeps make check runs a fixed-seed slice of
#   make clean
#
# KDIR defaults to the running kernel's build directory, or, when it has none
# (a container, a CI VM), Debian's stock 6.12 headers.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64))))

.PHONY: all modules clean setup kernel selftests vm check stress checkpatch \
	coccicheck modules_install

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf build

setup:
	tools/setup

kernel: setup
	tools/kernel/build

selftests: setup
	tools/test/build-selftests

checkpatch: setup
	tools/test/checkpatch

coccicheck: setup
	tools/test/coccicheck

vm: setup
	tools/vm/demo

check:
	tools/check

stress:
	tools/test/stress
