# SPDX-License-Identifier: GPL-2.0
#
# The Neuron driver.  Targets for people; the kernel build itself is Kbuild.
#
#   make                 build every module against KDIR (in place)
#   make vm              build everything and boot the VM with the driver loaded
#   make tools           build the user-space tools (build/bin/neuron-top)
#   make check           install what is missing, build for every kernel, run every test
#   make stress          the long sweeps make check runs a fixed-seed slice of
#   make deb             the Debian package neuron-driver-dkms, in build/pkg/
#   make modules_install install the built modules into KDIR's kernel
#   make clean
#
# KDIR defaults to the running kernel's build directory, or, when it has none
# (a container, a CI VM), Debian's stock 6.12 headers.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64))))

.PHONY: all modules clean setup kernel selftests vm check stress checkpatch \
	coccicheck modules_install deb tools

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Kernels built with CONFIG_MODULE_SIG_ALL sign modules on install with their
# own key, which only the machine that built the kernel has (a distribution
# kernel's headers do not ship it): without the key, install unsigned instead
# of printing sign-file errors.  DKMS signs with its own key
# (Documentation/install.rst).
sig_key = $(patsubst "%",%,$(shell sed -n 's/^CONFIG_MODULE_SIG_KEY=//p' $(KDIR)/.config 2>/dev/null))
sig_key_path = $(if $(filter /%,$(sig_key)),$(sig_key),$(KDIR)/$(sig_key))
sig_have_key = $(or $(filter pkcs11:%,$(sig_key)),\
		    $(and $(sig_key),$(wildcard $(sig_key_path)),$(wildcard $(KDIR)/certs/signing_key.x509)))

modules_install:
	$(if $(sig_have_key),,@echo "modules_install: no signing key for $(KDIR), installing unsigned modules")
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install $(if $(sig_have_key),,CONFIG_MODULE_SIG_ALL=)

deb:
	tools/pkg/build-deb

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

vm: setup tools
	tools/vm/demo

# Static, as the test VM has no C library.
tools: build/bin/neuron-top

build/bin/neuron-top: tools/neuron-top/neuron-top.c $(wildcard include/uapi/neuron/*.h)
	@mkdir -p build/bin
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror -D_GNU_SOURCE \
		-static -Iinclude/uapi $< -o $@

check:
	tools/check

stress:
	tools/test/stress
