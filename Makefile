# SPDX-License-Identifier: GPL-2.0
#
# kmemprof: build the module, and drive the arm64 QEMU rig.
#
#   make                  build module/kmemprof.ko against the rig's 6.12 tree
#   make board            build natively against the running kernel
#                         (BOARD_KDIR= another tree of this machine's)
#   make KDIR=... ARCH= CROSS_COMPILE=   build against any prepared tree
#   make demo             boot the arm64 guest, run a load, show the profile
#   make demo BOARD=rock5b   the same on a Rock 5B+ look-alike: 8 CPUs in two
#                         clusters of A55/A76 capacities, Rockchip's kernel
#                         options (6.1-vendor), the board's DT overlay
#   make check            every test on 6.1 and 6.12, and the host suites
#   make check-debug      on 6.12-debug (KASAN, lockdep, PROVE_RCU,
#                         slub_debug): KUnit and the tests of concurrency
#                         and pages; CI runs it after make check
#   make check KERNELS=6.12 TESTS=30-knobs   one guest test on one kernel,
#                         without the host suites (TESTS: shell test names,
#                         kunit, or one KUnit suite glob such as kmemprof_knobs)
#   make kunit KERNELS=6.12   only the KUnit suites (TESTS=kunit)
#   make check-matrix     every test on 5.10, 6.1, 6.1-vendor, 6.12, 7.x and
#                         6.12-debug, 69-stress-ng and 65-meminfo on a 3 GiB
#                         6.12 guest with a 1 GiB hugetlb page (6.12@3G),
#                         check-distro's, the reference Rockchip tree (bsp,
#                         when fetched: tools/rig/bsp-source.sh), then
#                         check-agree (on 6.12-dbginfo and 7.x-dbginfo) and
#                         check-install
#   make check-agree      kmemprof against allocinfo, file:line for file:line,
#                         on 6.12 and 7.x with DWARF (6.12-dbginfo and
#                         7.x-dbginfo, kernels of their own; AGREE_KERNELS=
#                         narrows it)
#   make check-distro     Debian's prebuilt arm64 6.1 and 6.12 kernels, as
#                         they are: built against their headers packages
#                         as a user would, booted, every guest test
#                         (TESTS= narrows it; KERNELS=debian-6.12 in check)
#   make check-install    the DKMS and tools packages installed with apt into a
#                         Debian bookworm arm64 system, booted under QEMU
#   make check-bsp KSRC=DIR   your board's vendor kernel tree (or a tarball
#                         of it), configured as the vendor does
#                         (BSP_DEFCONFIG="rockchip_linux_defconfig
#                         rk3588_linux.config"), plus the QEMU guest's few
#                         options (tests/qemu/bsp-qemu.config) and, with
#                         BSP_TRIM=1 (default), without the drivers that
#                         cannot probe under QEMU (bsp-trim.config); built
#                         into the cache (the tree is only read), every guest
#                         test and the device-tree boot on it, and a report
#                         of its options that matter to kmemprof. check-matrix
#                         runs it on the reference tree (tools/rig/bsp-source.sh)
#                         when that is in the cache
#   make bench            cost per event: bare, kmemprof, allocinfo, ftrace
#   make kernels          fetch and build the rig's kernels (cached)
#   make lint             checkpatch --strict, sparse and the layers (callgraph.py); exits 1 on a finding
#   make deb              kmemprof-dkms and kmemprof-tools packages, in .build/deb
#   make install          the module into /lib/modules/RELEASE/extra, and depmod:
#                         the running kernel's, or KDIR's (INSTALL_MOD_PATH=DIR,
#                         KERNELRELEASE=, SIGN_KEY= SIGN_CERT= to sign it)
#   make install-tools    the reader into $(DESTDIR)$(PREFIX)/bin (/usr/local)
#   make clean

KMEMPROF_CACHE ?= $(HOME)/.cache/kmemprof
export KMEMPROF_CACHE

KERNELS ?= 6.1 6.12
# make check-debug's kernels: 6.12 with the kernel's own checkers. Apart
# from make check, which a new user runs first, for its build (11 minutes
# on 2 cores) and its guest (12): CI runs both (.ci/run).
DEBUG_KERNELS ?= 6.12-debug
# make check-agree's kernels: the rig's, with DWARF (kernel-dbginfo.config).
AGREE_KERNELS ?= 6.12-dbginfo 7.x-dbginfo
MATRIX := 5.10 6.1 6.1-vendor 6.12 7.x 6.12-debug 6.12@3G debian-6.1 debian-6.12
# check-matrix's stress-ng rounds (tests/integration/69-stress-ng.sh): on
# these kernels, windows of 10 s and 3 disable/enable cycles.
MATRIX_STRESS_KERNELS := 6.12 6.12-debug 6.12@3G debian-6.1 debian-6.12
MATRIX_STRESS := rigstress=10,3 attach_rounds=8
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

# make check-bsp: the vendor's tree (a directory or a tarball), its
# defconfig and fragments in make's order, and whether to trim the drivers
# QEMU cannot probe (tools/rig/bsp.sh).
KSRC ?=
BSP_DEFCONFIG ?= rockchip_linux_defconfig rk3588_linux.config
BSP_TRIM ?= 1

.PHONY: all module board deps kernels demo check check-debug check-matrix check-distro check-install
.PHONY: check-agree check-bsp
.PHONY: kunit bench lint clean help
.PHONY: deb install install-tools

all: module

# Says what a tree lacks (no headers; a distribution's headers unpacked
# away from /usr/src, or for another architecture; no pahole) instead of
# a kbuild error.
KDIR_CHECK := $(CURDIR)/tools/kdir-check.sh

module:
ifeq ($(KDIR),$(RIG_KDIR))
	@$(RIG)/deps.sh
	@$(RIG)/kernel.sh $(KVER) >/dev/null
endif
	@$(KDIR_CHECK) make $(KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(ARCH),ARCH=$(ARCH)) \
		$(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE)) \
		KMEMPROF_TESTS=$(KMEMPROF_TESTS) modules

BOARD_KDIR ?= /lib/modules/$(shell uname -r)/build
board:
	@$(KDIR_CHECK) board $(BOARD_KDIR)
	$(MAKE) module KDIR=$(BOARD_KDIR) ARCH= CROSS_COMPILE= \
		KMEMPROF_TESTS=$(KMEMPROF_TESTS)

deps:
	@$(RIG)/deps.sh

kernels: deps
	@for k in $(KERNELS) $(DEBUG_KERNELS); do $(RIG)/kernel.sh $$k || exit 1; done

demo: deps
	@$(RIG)/kernel.sh $(KVER) >/dev/null
	@$(RIG)/build.sh $(KVER) $(CURDIR)/.build/$(KVER)
	@$(DEMO_ENV) tests/qemu/run.sh $(KVER) demo $(CURDIR)/.build/$(KVER) $(CURDIR)/.build/demo
	@cat .build/demo/demo.log 2>/dev/null || \
		{ tail -n 40 .build/demo/console.log; exit 1; }

check:
	@$(RIG)/check.sh

check-debug:
	@KMEMPROF_HOST_SUITES=0 KERNELS="$(DEBUG_KERNELS)" $(RIG)/check.sh

# The reference BSP tree (tools/rig/bsp-source.sh: its pinned commit) runs
# as the kernel 'bsp' when it is in the cache; bsp-source.sh says in one
# line when it is not, and how to fetch it.
check-matrix:
	@ref=$$($(RIG)/bsp-source.sh) || ref=; \
	KMEMPROF_DEBUG_ALL=1 KERNELS="$(MATRIX)$${ref:+ bsp}" \
		KMEMPROF_BSP_SRC="$$ref" \
		KMEMPROF_BSP_DEFCONFIG="$$($(RIG)/bsp-source.sh --defconfig)" \
		KMEMPROF_STRESS_KERNELS="$(MATRIX_STRESS_KERNELS)" \
		KMEMPROF_STRESS="$(MATRIX_STRESS)" $(RIG)/check.sh
	@for k in $(AGREE_KERNELS); do $(RIG)/agree.sh $$k || exit 1; done
	@$(RIG)/install-test.sh

check-install:
	@$(RIG)/install-test.sh

check-bsp:
	@KMEMPROF_BSP_SRC="$(KSRC)" KMEMPROF_BSP_DEFCONFIG="$(BSP_DEFCONFIG)" \
		KMEMPROF_BSP_TRIM="$(BSP_TRIM)" $(RIG)/bsp.sh

check-agree:
	@for k in $(AGREE_KERNELS); do $(RIG)/agree.sh $$k || exit 1; done

check-distro: deps
	@KMEMPROF_APPEND="$(KMEMPROF_APPEND) $(MATRIX_STRESS)" $(RIG)/distro.sh

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
# The release the tree installs for: KERNELRELEASE= if given (a vendor
# tree built for a board whose uname -r it does not make by itself), else
# what Debian's headers force in .kernelvariables (their kernel.release
# holds the upstream version, 6.1.192, not 6.1.0-56-arm64), else the
# tree's kernel.release.
INSTALL_KREL = $(or $(KERNELRELEASE),$(shell sed -n \
	's/^override KERNELRELEASE = //p' $(INSTALL_KDIR)/.kernelvariables 2>/dev/null),$(shell \
	cat $(INSTALL_KDIR)/include/config/kernel.release 2>/dev/null))
# Signing. A tree with MODULE_SIG_ALL signs at modules_install with its
# key; a distribution's headers have the option but not the key (Debian:
# output/signing_key.pem), and kbuild prints SSL and sign-file errors for
# each module. Then kmemprof is installed unsigned, and make says so.
# SIGN_KEY= and SIGN_CERT= sign it with a key of one's own (a MOK) with
# the tree's sign-file, after the install.
INSTALL_CONF = $(firstword $(wildcard $(INSTALL_KDIR)/include/config/auto.conf \
	$(INSTALL_KDIR)/.config))
INSTALL_CONFIG = $(if $(INSTALL_CONF),$(shell sed -n \
	's/^CONFIG_$(1)="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' $(INSTALL_CONF)))
INSTALL_SIGKEY = $(call INSTALL_CONFIG,MODULE_SIG_KEY)
INSTALL_SIGHASH = $(or $(call INSTALL_CONFIG,MODULE_SIG_HASH),sha256)
INSTALL_SIGKEY_PATH = $(if $(filter /%,$(INSTALL_SIGKEY)),,$(INSTALL_KDIR)/)$(INSTALL_SIGKEY)
INSTALL_NOKEY = $(if $(filter y,$(call INSTALL_CONFIG,MODULE_SIG_ALL)),$(if \
	$(filter pkcs11:%,$(INSTALL_SIGKEY)),,$(if $(wildcard $(INSTALL_SIGKEY_PATH)),,y)))
INSTALL_KO = $(or $(INSTALL_ROOT),)/lib/modules/$(INSTALL_KREL)/extra/kmemprof.ko
PREFIX ?= /usr/local

install:
	@$(KDIR_CHECK) install $(INSTALL_KDIR)
	@test -n "$(INSTALL_KREL)" || { echo "install: no kernel release in" \
		"$(INSTALL_KDIR) (include/config/kernel.release): give KERNELRELEASE=" >&2; \
		exit 1; }
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/module $(INSTALL_KARGS) modules
	$(MAKE) -C $(INSTALL_KDIR) M=$(CURDIR)/module $(INSTALL_KARGS) \
		$(if $(INSTALL_NOKEY)$(SIGN_KEY),CONFIG_MODULE_SIG_ALL=) \
		$(if $(KERNELRELEASE),KERNELRELEASE=$(KERNELRELEASE)) \
		INSTALL_MOD_PATH=$(INSTALL_ROOT) INSTALL_MOD_DIR=extra modules_install
ifneq ($(SIGN_KEY),)
	@# A tree with MODULE_COMPRESS_ALL (Debian's 6.12) installed it
	@# compressed: the signature goes on the module itself, inside.
	@set -e; ko=$(INSTALL_KO); \
	for z in "" .xz .zst .gz; do [ ! -f "$$ko$$z" ] || break; done; \
	case "$$z" in \
	.xz) xz -d "$$ko.xz" ;; .zst) zstd -q -d --rm "$$ko.zst" ;; .gz) gzip -d "$$ko.gz" ;; \
	esac; \
	echo $(INSTALL_KDIR)/scripts/sign-file $(INSTALL_SIGHASH) $(SIGN_KEY) $(SIGN_CERT) $$ko; \
	$(INSTALL_KDIR)/scripts/sign-file $(INSTALL_SIGHASH) $(SIGN_KEY) \
		$(or $(SIGN_CERT),$(error SIGN_KEY needs SIGN_CERT)) "$$ko"; \
	case "$$z" in \
	.xz) xz --check=crc32 --lzma2=dict=1MiB "$$ko" ;; .zst) zstd -q --rm "$$ko" ;; \
	.gz) gzip -n "$$ko" ;; \
	esac; \
	echo "install: $$ko$$z signed with $(SIGN_CERT)"
else ifneq ($(INSTALL_NOKEY),)
	@echo "install: kmemprof.ko is not signed: $(INSTALL_KDIR) signs modules at" \
		"install (CONFIG_MODULE_SIG_ALL) with $(INSTALL_SIGKEY), which is not there" \
		"(a distribution keeps its key). It loads, tainting the kernel, except" \
		"under Secure Boot lockdown; to sign it with a key of your own (a MOK):" \
		"make install SIGN_KEY=MOK.priv SIGN_CERT=MOK.der" \
		"(Documentation/building.rst, \"Signed, for Secure Boot\")"
endif
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
