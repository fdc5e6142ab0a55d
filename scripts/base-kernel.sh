#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# base-kernel.sh ARCH: build the base kernel (no series) for ARCH into
# build/ARCH-base and print its image, for KERNEL= of make boot: the same
# initramfs and shapes then compare the base with the series.
set -eu
. "$(dirname "$0")/lib.sh"
base_kernel "${1:-x86_64}" >&2
say "$BASE_IMAGE"
