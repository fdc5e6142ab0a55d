# SPDX-License-Identifier: GPL-2.0
#
# A scheduler patch series for Linux 6.12, and the harness that builds,
# boots and tests it under QEMU.  `make help` lists the targets.

ARCHES	?= $(notdir $(wildcard arch/*))
SHAPE	?= numa
# make run, bench-calibration and bench-matrix boot the host shape unless told.
BOOT_SHAPE := $(if $(and $(filter file,$(origin SHAPE)),$(filter run bench-calibration bench-matrix,$(MAKECMDGOALS))),host,$(SHAPE))
# The shape's arch, unless ARCH is given on the command line: make run
# SHAPE=biglittle is arm64, whatever ARCH a kernel developer's shell
# exports (ARCH=x86 for Kbuild, which is no arch/ of ours).
ifneq ($(origin ARCH),command line)
ARCH	:= $(or $(shell sh -c '. ./shapes/$$1 >/dev/null 2>&1 && echo "$$SHAPE_ARCH"' - $(BOOT_SHAPE)),x86_64)
endif
# RUN and APPEND reach the guest as typed, $ and quotes included: make
# would expand the $ in them.  APPEND given, even empty, replaces make
# run's default arguments (APPEND_GIVEN).
APPEND_GIVEN := $(if $(filter command line environment,$(origin APPEND)),1,)
APPEND	?=
RUN	?= true
override APPEND := $(value APPEND)
override RUN := $(value RUN)
export ARCH ARCHES SHAPE APPEND APPEND_GIVEN RUN

S := scripts

.PHONY: help deps tree export kernel base-kernel initramfs build boot shell \
	shapes run check check-debug check-configs check-flakes lint kunit kselftest scenarios debug bench bench-smt bench-shared bench-wakeup hotpath \
	bench-calibration bench-matrix bench-stability bench-schedstats clean

help:
	@echo "make run        build, boot the default shape, show what the series adds"
	@echo "make check      the whole test suite; ends with 'N passed, N failed'"
	@echo ""
	@echo "make tree       build/linux: base + patches/series, one commit per patch"
	@echo "make export     regenerate patches/ from build/linux"
	@echo "make kernel     build the guest kernel        (ARCH=$(ARCH))"
	@echo "make initramfs  build the guest initramfs     (ARCH=$(ARCH))"
	@echo "make build      kernel and initramfs of each arch (ARCHES=$(ARCHES))"
	@echo "make base-kernel  the kernel without the series (ARCH=$(ARCH)), for KERNEL="
	@echo "make boot       boot SHAPE with APPEND, run RUN in the guest (SHAPE=$(SHAPE))"
	@echo "make shell      interactive guest shell on SHAPE (after RUN, if given)"
	@echo "make shapes     list the QEMU shapes and their sched-domain levels"
	@echo "make check-debug  the debug kernels of every arch (KASAN, lockdep, UBSAN,"
	@echo "                KFENCE, ...), longer torture, the kernel's own cpuset and"
	@echo "                hotplug tests on biglittle and pseries, base vs series"
	@echo "make check-configs  build the series in the configurations of"
	@echo "                kconfig/matrix, as a 0-day bot: no warning, no new W=1 one"
	@echo "make check-flakes  rerun the checks that depend on timing RUNS=20 times"
	@echo "                under load; runs and failures per check"
	@echo "make kunit | kselftest | scenarios | debug | lint   one stage of make check"
	@echo "                (kunit and kselftest on each of ARCHES; debug on DEBUG_ARCHES=x86_64)"
	@echo "make bench      patched vs base: boot, calibration, hackbench; then"
	@echo "                bench-schedstats: task_hot's refusals per level, in schedstats"
	@echo "make bench-smt  patched vs base: ebizzy-like, N = 1..48 on smt8"
	@echo "make bench-shared  work per second on cores that really share (SHAPES=hybrid-shared"
	@echo "                smt4-shared): base vs the series with the measured SMT table"
	@echo "make bench-wakeup  what the SMT capacity costs wakeups: hackbench, pingpong;"
	@echo "                base vs key off vs key on, and the CPUs the wakeup scans"
	@echo "make hotpath    what the SMT capacity's static key costs when off (x86_64)"
	@echo "make bench-calibration  the calibration on real caches: pinned host"
	@echo "                shape vs unpinned, kernel vs userspace twin vs native"
	@echo "make bench-matrix  the twin's migration cost of every pair of CPUs, natively"
	@echo "                and in the pinned host shape: CSV, text, heatmap PNGs"
	@echo "make bench-stability  one value per boot? measured levels and flips, pinned"
	@echo "                and co-pinned host shape, idle and under host load bursts"
	@echo ""
	@echo "Knobs (TIMEOUT, QEMU_EXTRA, KCONFIG_EXTRA, KUNIT_FILTER, KERNEL, ...): README.md, Reference"

deps:
	@sh $(S)/deps.sh $(ARCH)

tree: deps
	@sh $(S)/tree.sh

export:
	@sh $(S)/export.sh

# The tree target checked the tree (and said so once): not again.
kernel: tree
	@TREE_CHECKED=1 sh $(S)/kernel.sh $(ARCH)

initramfs: tree
	@TREE_CHECKED=1 sh $(S)/initramfs.sh $(ARCH)

build:
	@sh $(S)/build.sh

base-kernel: tree
	@sh $(S)/base-kernel.sh $(ARCH)

# The shape's kernel and initramfs first (not those KERNEL or INITRAMFS
# replace), rebuilt if their inputs changed, saying so on stderr: stdout is
# RUN's.
BOOT_BUILD = $(strip $(if $(KERNEL),,kernel) $(if $(INITRAMFS),,initramfs))
boot:
	@$(if $(BOOT_BUILD),$(MAKE) --no-print-directory -s $(BOOT_BUILD) >&2,:)
	@sh $(S)/boot.sh "$$SHAPE" "$$APPEND" "$$RUN"

# make shell RUN=...: RUN first, then the shell.
shell:
	@$(if $(BOOT_BUILD),$(MAKE) --no-print-directory -s $(BOOT_BUILD) >&2,:)
	@INTERACTIVE=1 sh $(S)/boot.sh "$$SHAPE" "sched_verbose $$APPEND" \
		"$$(printf '%s\n%s' "$$RUN" 'setsid cttyhack sh')"

shapes:
	@sh $(S)/shapes.sh

# make run shows the host shape, pinned, unless SHAPE is given.
run: kernel initramfs
	@SHAPE=$(BOOT_SHAPE) sh $(S)/run.sh

check:
	@sh $(S)/check.sh

kunit kselftest scenarios debug: build
	@sh $(S)/$@.sh

lint:
	@echo "lint: make build first (ARCHES=$(ARCHES)): the per-patch builds start from its objects"
	@$(MAKE) --no-print-directory build
	@sh $(S)/lint.sh

# What make check leaves out, to stay within CI's time: the debug kernels of
# the other arches, two minutes of each torture test, the negative controls
# of every report class (make check provokes KASAN's), the upstream tests
# on the arm64 and ppc64le shapes, the negative controls of the upstream
# and asym-smt tests against a booted base kernel, not its recorded
# results, lint's build of each patch on its own and the configuration
# matrix.
check-debug:
	@CHECK_STAGES="build debug upstream asym-smt lint configs" LINT="builds alone" REPORTS=all \
		DEBUG_ARCHES="$(ARCHES)" TORTURE_SECONDS=120 \
		UPSTREAM_BASE=boot ASYM_SMT_BASE=boot \
		UPSTREAM_SHAPES="numa ht biglittle pseries" sh $(S)/check.sh

# The configurations a 0-day build bot would try (kconfig/matrix): the
# series builds in each with no warning and no new W=1 warning.
check-configs:
	@sh $(S)/configs.sh

# The flake audit: the boots whose checks depend on timing, load or
# sampling, RUNS times each (default 20) under FLAKE_LOAD busy loops
# (default 1); a table of runs and failures per check.
check-flakes:
	@sh $(S)/flakes.sh

bench: kernel initramfs
	@sh $(S)/bench.sh && sh $(S)/bench-schedstats.sh

bench-schedstats: kernel initramfs
	@sh $(S)/bench-schedstats.sh

bench-smt: kernel initramfs
	@sh $(S)/bench-smt.sh

# arm64 shapes, whatever ARCH says.
bench-shared: override ARCH := arm64
bench-shared: kernel initramfs
	@sh $(S)/bench-shared.sh

bench-wakeup: override ARCH := arm64
bench-wakeup: kernel initramfs
	@sh $(S)/bench-wakeup.sh

hotpath: tree
	@sh $(S)/hotpath.sh

bench-calibration: kernel initramfs
	@SHAPE=$(BOOT_SHAPE) sh $(S)/bench-calibration.sh

bench-matrix: kernel initramfs
	@SHAPE=$(BOOT_SHAPE) sh $(S)/bench-matrix.sh

bench-stability: kernel initramfs
	@sh $(S)/bench-stability.sh

# The objects of every build (series, base, debug, jump-label) and the
# boots' logs; the tree, downloads, ccache and the benchmarks' results stay.
clean:
	rm -rf build/linux/obj-* build/linux-base/obj-* build/*.config
	[ ! -d build ] || find build -maxdepth 1 -type l -delete
	[ ! -d build/logs ] || find build/logs -mindepth 1 -maxdepth 1 ! -name bench -exec rm -rf {} +
