# SPDX-License-Identifier: GPL-2.0
#
# kmemprof: build the module, and drive the arm64 QEMU rig.
#
#   make                  build module/kmemprof.ko against the rig's 6.12 tree
#   make board            build natively against the running kernel
#   make KDIR=... ARCH= CROSS_COMPILE=   build against any prepared tree
#   make demo             boot the arm64 guest, run a load, show the profile
#   make check            every test on every kernel of the matrix
#   make bench            cost per event: bare, kmemprof, allocinfo, ftrace
#   make kernels          fetch and build the rig's kernels (cached)
#   make lint             checkpatch --strict and sparse
#   make clean

KMEMPROF_CACHE ?= $(HOME)/.cache/kmemprof
export KMEMPROF_CACHE

KERNELS ?= 6.1 6.12 6.12-debug
KVER ?= 6.12
RIG_KDIR := $(KMEMPROF_CACHE)/kernel-$(KVER)
KDIR ?= $(RIG_KDIR)
ARCH ?= arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
export KERNELS

RIG := tools/rig

.PHONY: all module board deps kernels demo check bench lint clean help

all: module

module:
ifeq ($(KDIR),$(RIG_KDIR))
	@$(RIG)/deps.sh
	@$(RIG)/kernel.sh $(KVER) >/dev/null
endif
	$(MAKE) -C $(KDIR) M=$(CURDIR) ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) \
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
	@tests/qemu/run.sh $(KVER) demo $(CURDIR)/.build/$(KVER) $(CURDIR)/.build/demo
	@cat .build/demo/demo.log 2>/dev/null || \
		{ tail -n 40 .build/demo/console.log; exit 1; }

check:
	@$(RIG)/check.sh

bench:
	@$(RIG)/bench.sh

lint: deps
	@$(RIG)/lint.sh $(KVER)

clean:
	rm -rf .build
	find module tests -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \
		-o -name 'Module.symvers' | xargs rm -f
	rm -f Module.symvers modules.order .*.cmd

help:
	@sed -n '3,14p' Makefile | sed 's/^# //'
