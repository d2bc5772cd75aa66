// Copy-out kernels: shadow pixels (xrgb8888) into a panel rectangle, turned and/or
// converted. Plain C (clang vector extensions for the 4x4 transposes) so the same source
// becomes SSE2 on x86_64 and NEON on aarch64. Display's CopyOut is the only caller of the
// copies; UI's Screen reads the cache size too (it draws big redraws in bands).
#ifndef BOARDWALK_COPY_KERNELS_H
#define BOARDWALK_COPY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

// Fills a `width` x `height` panel rectangle whose top-left pixel is `dst` (rows
// `dst_stride` bytes apart). Panel pixel (i, j) of the rectangle shows the shadow pixel at
// `src + i * along + j * across` (in pixels; each step is +-1 or +- the shadow's row
// length, as Rotation.scan gives them). Never reads the destination.
void bw_copy_xrgb8888(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                      ptrdiff_t along, ptrdiff_t across, int width, int height);

// The same walk, each pixel converted to rgb565 (top bits of each channel, as pixman's
// SRC conversion does).
void bw_copy_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                    ptrdiff_t along, ptrdiff_t across, int width, int height);

// For the bench: bw_copy_rgb565's reads and writes for an upright rectangle (along 1),
// with the same kind of stores on the same path, each pixel only narrowed to its low 16
// bits in place of the conversion: where a copy takes as long, its bytes bound it.
void bw_copy_rgb565_narrow_only(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t across,
                                int width, int height);

// Which code the kernels run: BW_COPY_PORTABLE (plain C vectors: SSE2, NEON),
// BW_COPY_AVX2 (x86_64 CPUs with AVX2) or BW_COPY_AVX512 (with AVX-512 F and BW too: the
// AVX2 code but for upright copies into rgb565); BW_COPY_BEST goes back to the CPU's best,
// the default. Returns 0 when the CPU lacks the path asked for (nothing changes), else 1
// (BW_COPY_BEST: the path chosen). For tests, which run every path on one machine.
enum { BW_COPY_PORTABLE = 0, BW_COPY_AVX2 = 1, BW_COPY_AVX512 = 2, BW_COPY_BEST = 3 };
int bw_copy_select(int path);

// Which copies are written with non-temporal stores (turned ones through a staging strip):
// BW_STREAM_BY_CACHE (the default) those of 256 KB and up whose shadow and panel bytes
// exceed a quarter of the last-level cache (counted as 32 MB at most: a server socket's
// shared one is not one core's), and upright ones whose bytes exceed the L2 too;
// BW_STREAM_BIG_COPIES every one of 256 KB and up; BW_STREAM_NEVER none. Returns 0 for an unknown mode. For tests and measurements,
// which run every way on one machine.
enum { BW_STREAM_BY_CACHE = 0, BW_STREAM_BIG_COPIES = 1, BW_STREAM_NEVER = 2 };
int bw_copy_stream(int mode);

// The largest data or unified cache sysfs describes for CPU 0 (its last level), in bytes,
// read once; 0 when sysfs describes none. What decides which copies are streamed (above)
// and how tall a band of a big redraw is (UI's Screen).
size_t bw_last_level_cache_bytes(void);

// How many cores a streamed copy (turned, or upright into rgb565) is shared between (one
// core is bound by its own non-temporal stores or reads; the calling thread and a helper
// thread take its bands in turn):
// BW_CORES_BEST (the default) two where the machine has two or more online, else one;
// BW_CORES_ONE the calling thread alone; BW_CORES_TWO the calling thread and the helper
// whatever the machine. Returns 0 for an unknown value. For tests and measurements.
enum { BW_CORES_BEST = 0, BW_CORES_ONE = 1, BW_CORES_TWO = 2 };
int bw_copy_cores(int cores);
#endif
