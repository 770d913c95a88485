# SPDX-License-Identifier: GPL-2.0
# async_submit(): build a 6.12 kernel with the syscall, boot it under QEMU,
# run the tests and the demo there.  See README.md.  make help: this list.
#
#   make test            build everything, run the selftests in the guest
#   make run             build everything, run the demo in the guest
#   make vm CMD='...'    run any host command in the guest, exit with its status
#   make bench           build everything, run the benchmarks in the guest
#   make profile P=...   perf profile of one benchmark in the guest
#   make fio             fio jobs with each engine, ours included, in the guest
#   make libaio          libaio's regression suite in the guest, ours and stock
#   make libuv           libuv's test suite in the guest, stock and with our patches
#   make node            Debian's node on stock libuv1 and on ours, in the guest
#   make fuzz N=20000    run the randomized submitter in the guest (SEED=n)
#   make fuzz-long       the long fuzz runs: 1M normal, 200k debug (not in CI)
#   make check           static checks: checkpatch, kernel-doc, sparse, man page
#   make series          the upstream patch series, each patch checked and built
#   make deps            install the host packages the harness needs
#   make tree            prepare .build/linux: the 6.12 base and our commits
#   make kernel          configure and build the kernel and its UAPI headers
#   make user            build the kernel, then the selftests (what make does)
#   make clean           remove .build/
#   make help            print this list
#   DEBUG=1              use the debug kernel (KASAN, lockdep, kmemleak, ...)
#   ARCH=arm64           test, run, vm, fuzz, kernel, user on an arm64 guest
#   KERNEL_SRC=/path     use your own 6.12 tree as the base
#   SERIES_BUILD=objects with make series: compile each patch's changed
#                        sources instead of building the kernel (CI)
SHELL := /bin/bash
H := harness
BUILD := $(CURDIR)/.build
export DEBUG KERNEL_SRC CMD ARCH

# The objects of harness/lib.sh's $OBJ.
KOBJ := $(BUILD)/obj$(if $(filter arm64,$(ARCH)),-arm64)$(if $(filter 1,$(DEBUG)),-debug)

.PHONY: help x86-only all deps tree kernel user test run bench fio libaio libuv node profile check series vm vm-boot fuzz fuzz-long clean

all: user

# The header above, nothing built.
help:
	@sed -n '1,/^$$/s/^#   //p' $(firstword $(MAKEFILE_LIST))

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/prepare-tree.sh

kernel: tree
	@$(H)/build-kernel.sh

user: kernel
	@$(H)/build-user.sh

test: user
	@$(H)/test.sh

run: user
	@$(H)/vm.sh $(KOBJ)/samples/async_syscall/async-demo

bench: x86-only user
	@$(H)/bench.sh

# make fio: fio jobs with each engine, ours as an external ioengine, on a
# null_blk disk; libaio also on the stock kernel.  FIO_SMOKE=1: CI's job.
fio: x86-only user
	@$(H)/fio.sh

# make libaio: Debian's libaio regression suite, each case on our kernel and
# on the stock one.  LIBAIO_STOCK=0 skips the stock kernel.
libaio: x86-only user
	@$(H)/libaio.sh

# make libuv: Debian's libuv1 built as shipped and with patches/libuv/, each
# running libuv's test suite in the guest.  LIBUV_TESTS="..." or =fs: a subset.
libuv: x86-only user
	@$(H)/libuv.sh

# make node: Debian's Node.js 18, unmodified, timed on Debian's libuv1 and
# on ours (LD_LIBRARY_PATH), cold and warm.  NODE_ROUNDS=n (3).
node: x86-only user
	@$(H)/node.sh

# make profile P='p1_trivial async_futex 64': perf profile of one benchmark.
profile: x86-only user
	@$(H)/profile.sh $(P)

# Before anything is built: these run the host's own binaries in the guest.
x86-only:
	@case "$(ARCH)" in ""|x86|x86_64) ;; *) echo "FAILED: make $(MAKECMDGOALS): x86_64 only, not ARCH=$(ARCH)" >&2; exit 1 ;; esac

# checkpatch, kernel-doc, sparse, the man page lint and its example; needs a built kernel.
check: user
	@$(H)/check.sh

# series/*.msg over the prepared tree: .build/series/patches/.
series: tree
	@$(H)/series.sh

# GNU make exits only 0, 1 or 2: $(exit-status) from harness/make-exit.c
# hands the guest command's own status back.
# Not for make help, which must build nothing.
ifneq ($(strip $(MAKECMDGOALS)),help)
-load $(BUILD)/make-exit.so(make_exit_gmk_setup)
endif
$(BUILD)/make-exit.so: $(H)/make-exit.c
	@mkdir -p $(BUILD)
	@gcc -shared -fPIC -O2 -o $@ $<

vm: vm-boot
	@:$(exit-status $(file <$(BUILD)/vm-status))

vm-boot: kernel
	@$(H)/vm.sh "$$CMD"; echo $$? >$(BUILD)/vm-status

# make fuzz [N=submissions] [SEED=n]: the randomized submitter in the guest.
N ?= 20000
fuzz: user
	@$(H)/fuzz.sh $(N) $(SEED)

# make fuzz-long: 1,000,000 submissions on the normal kernel and 200,000 on
# the debug kernel (about an hour under TCG); not part of CI.
fuzz-long:
	@$(H)/fuzz-long.sh

clean:
	rm -rf $(BUILD)
