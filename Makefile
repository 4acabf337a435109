# SPDX-License-Identifier: GPL-2.0
#
# kmemprof: build the module, and drive the arm64 QEMU rig.
#
#   make                  build module/kmemprof.ko against the rig's 6.12 tree
#   make board            build natively against the running kernel
#   make KDIR=... ARCH= CROSS_COMPILE=   build against any prepared tree
#   make demo             boot the arm64 guest, run a load, show the profile
#   make demo BOARD=rock5b   the same on a Rock 5B+ look-alike: 8 CPUs in two
#                         clusters of A55/A76 capacities, Rockchip's kernel
#                         options (6.1-vendor), the board's DT overlay
#   make check            every test on 6.1, 6.12 and 6.12-debug
#   make check KERNELS=6.12 TESTS=30-knobs   one guest test on one kernel,
#                         without the host suites (TESTS: shell test names,
#                         kunit, or one KUnit suite glob such as kmemprof_knobs)
#   make kunit KERNELS=6.12   only the KUnit suites (TESTS=kunit)
#   make check-matrix     every test on 5.10, 6.1, 6.1-vendor, 6.12, 7.x and
#                         6.12-debug, then check-install
#   make check-install    the DKMS and tools packages installed with apt into a
#                         Debian bookworm arm64 system, booted under QEMU
#   make bench            cost per event: bare, kmemprof, allocinfo, ftrace
#   make kernels          fetch and build the rig's kernels (cached)
#   make lint             checkpatch --strict and sparse
#   make deb              kmemprof-dkms and kmemprof-tools packages, in .build/deb
#   make install          the module into /lib/modules/RELEASE/extra, and depmod:
#                         the running kernel's, or KDIR's (INSTALL_MOD_PATH=DIR)
#   make install-tools    the reader into $(DESTDIR)$(PREFIX)/bin (/usr/local)
#   make clean

KMEMPROF_CACHE ?= $(HOME)/.cache/kmemprof
export KMEMPROF_CACHE

KERNELS ?= 6.1 6.12 6.12-debug
MATRIX := 5.10 6.1 6.1-vendor 6.12 7.x 6.12-debug
BOARD ?=
ifeq ($(BOARD),rock5b)
KVER ?= 6.1-vendor
DEMO_ENV := KMEMPROF_SMP=8,sockets=1,clusters=2,cores=4,threads=1 \
	KMEMPROF_DTSO="$(CURDIR)/dts/rock-5b-plus-kmemprof.dtso $(CURDIR)/tests/qemu/rock5b-cpus.dtso"
else ifneq ($(BOARD),)
$(error BOARD=$(BOARD): the only board is rock5b)
endif
KVER ?= 6.12
RIG_KDIR := $(KMEMPROF_CACHE)/kernel-$(KVER)
KDIR ?= $(RIG_KDIR)
ARCH ?= arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
TESTS ?=
export KERNELS TESTS

RIG := tools/rig

.PHONY: all module board deps kernels demo check check-matrix check-install kunit bench lint clean help
.PHONY: deb install install-tools

all: module

module:
ifeq ($(KDIR),$(RIG_KDIR))
	@$(RIG)/deps.sh
	@$(RIG)/kernel.sh $(KVER) >/dev/null
endif
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(ARCH),ARCH=$(ARCH)) \
		$(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE)) \
		KMEMPROF_TESTS=$(KMEMPROF_TESTS) modules

board:
	$(MAKE) module KDIR=/lib/modules/$(shell uname -r)/build ARCH= CROSS_COMPILE= \
		KMEMPROF_TESTS=$(KMEMPROF_TESTS)

deps:
	@$(RIG)/deps.sh

kernels: deps
	@for k in $(KERNELS); do $(RIG)/kernel.sh $$k || exit 1; done

demo: deps
	@$(RIG)/kernel.sh $(KVER) >/dev/null
	@$(RIG)/build.sh $(KVER) $(CURDIR)/.build/$(KVER)
	@$(DEMO_ENV) tests/qemu/run.sh $(KVER) demo $(CURDIR)/.build/$(KVER) $(CURDIR)/.build/demo
	@cat .build/demo/demo.log 2>/dev/null || \
		{ tail -n 40 .build/demo/console.log; exit 1; }

check:
	@$(RIG)/check.sh

check-matrix:
	@KERNELS="$(MATRIX)" $(RIG)/check.sh
	@$(RIG)/install-test.sh

check-install:
	@$(RIG)/install-test.sh

kunit:
	@TESTS=kunit $(RIG)/check.sh

bench:
	@$(RIG)/bench.sh

lint: deps
	@$(RIG)/lint.sh $(KVER)

deb:
	@$(RIG)/deb.sh

# make install: for the running kernel unless KDIR is given (then with ARCH
# and CROSS_COMPILE, as above). INSTALL_MOD_PATH, or DESTDIR, installs into
# a staging root instead of /.
ifeq ($(origin KDIR),file)
INSTALL_KDIR = /lib/modules/$(shell uname -r)/build
INSTALL_KARGS =
else
INSTALL_KDIR = $(KDIR)
INSTALL_KARGS = $(if $(ARCH),ARCH=$(ARCH)) \
	$(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE))
endif
INSTALL_MOD_PATH ?= $(DESTDIR)
INSTALL_ROOT = $(if $(INSTALL_MOD_PATH),$(abspath $(INSTALL_MOD_PATH)))
INSTALL_KREL = $(shell cat $(INSTALL_KDIR)/include/config/kernel.release 2>/dev/null)
PREFIX ?= /usr/local

install:
	@test -n "$(INSTALL_KREL)" || { echo "install: no prepared kernel tree" \
		"at $(INSTALL_KDIR): install linux-headers-$$(uname -r), or give KDIR=" >&2; \
		exit 1; }
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/module $(INSTALL_KARGS) modules
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/module $(INSTALL_KARGS) \
		INSTALL_MOD_PATH=$(INSTALL_ROOT) INSTALL_MOD_DIR=extra modules_install
	depmod $(if $(INSTALL_ROOT),-b $(INSTALL_ROOT)) $(INSTALL_KREL)

install-tools:
	$(MAKE) -C tools/kmemprof
	install -D -m 0755 tools/kmemprof/kmemprof $(DESTDIR)$(PREFIX)/bin/kmemprof
	install -D -m 0644 \
		$(firstword $(wildcard tools/kmemprof/kmemprof.1) debian/kmemprof.1) \
		$(DESTDIR)$(PREFIX)/share/man/man1/kmemprof.1

clean:
	rm -rf .build
	find module tests -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \
		-o -name 'Module.symvers' | xargs rm -f
	rm -f Module.symvers modules.order .*.cmd

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile
