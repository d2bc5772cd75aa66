#!/bin/bash
# The copy-out kernels checked pixel for pixel, with each scan-out row's padding, by
# scripts/copy-kernels-check.c (every code path the CPU has, against a per-pixel
# reference), built by the toolchain's clang with the kiosk's -O2:
#   scripts/copy-kernels-check.sh          for this machine (make unit-test)
#   scripts/copy-kernels-check.sh arm64    the NEON path every Pi runs, from this x86
#       machine: built against the arm64 build root (images/arm64/build.sh's, cached) and
#       run under qemu-user (binfmt_misc, QEMU_LD_PREFIX at that root) (make arm64-test)
set -euo pipefail
cd "$(dirname "$0")/.."
clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
flags=(-O2 -Wall -Werror -ISources/CopyKernels/include scripts/copy-kernels-check.c Sources/CopyKernels/CopyKernels.c)
case "${1:-host}" in
host)
    mkdir -p .build
    "$clang" "${flags[@]}" -o .build/copy-kernels-check
    .build/copy-kernels-check ;;
arm64)
    source images/lib.sh
    root=$(bw_root_dir trixie arm64 images/arm64/build-packages.txt | tail -n 1)
    mkdir -p out/arm64-kernels
    "$clang" --target=aarch64-linux-gnu --sysroot="$root" -fuse-ld=lld "${flags[@]}" -o out/arm64-kernels/copy-kernels-check
    QEMU_LD_PREFIX="$root" out/arm64-kernels/copy-kernels-check ;;
*)
    echo "usage: $0 [host|arm64]" >&2; exit 2 ;;
esac
