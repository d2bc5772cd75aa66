#!/bin/bash
# The copy-out kernels' NEON path, the one every Pi runs, checked pixel for pixel from this
# x86 machine: scripts/copy-kernels-check.c and Sources/CopyKernels built for arm64 by the
# toolchain's clang against the arm64 build root (images/arm64/build.sh's, cached), run
# under qemu-user (binfmt_misc, QEMU_LD_PREFIX at that root). The x86 paths are checked by
# Tests/DisplayTests/CopyKernelTests.
set -euo pipefail
cd "$(dirname "$0")/.."
source images/lib.sh
root=$(bw_root_dir trixie arm64 images/arm64/build-packages.txt | tail -n 1)
clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
out=out/arm64-kernels
mkdir -p "$out"
"$clang" --target=aarch64-linux-gnu --sysroot="$root" -fuse-ld=lld -O2 -Wall -Werror \
    -ISources/CopyKernels/include scripts/copy-kernels-check.c Sources/CopyKernels/CopyKernels.c \
    -o "$out/copy-kernels-check"
QEMU_LD_PREFIX="$root" "$out/copy-kernels-check"
