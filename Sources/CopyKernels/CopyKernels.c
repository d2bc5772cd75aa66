#define _GNU_SOURCE  // pthread_setname_np
#include "CopyKernels.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif
#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

// Why this shape: a turned copy reads the shadow down its columns. Done pixel by pixel
// that walks a new cache line (and often a new page) for every pixel. Here the panel is
// cut into tiles of TILE_W x TILE_H panel pixels; inside a tile 4x4 blocks are loaded as
// four 16-byte shadow runs, transposed in registers and stored as 16-byte panel runs,
// sweeping along four panel rows at a time so each panel row is written front to back.
// A tile reads TILE_W shadow rows x TILE_H*4 bytes (8 KB) and writes TILE_H panel rows x
// TILE_W pixels: both fit L1 with room to spare. Few shadow rows a tile: rows 5120 bytes
// apart (a 1280-pixel shadow) map to few L1 sets, so 64 of them likely evicted each other
// (measured on a quiet machine: 32x64 against 64x32, 1280x800 turned xrgb8888 1.80x ->
// 1.34-1.47x memcpy, rgb565 2.6x -> 1.9-2.0x; 1920x1080 within noise).
enum { TILE_W = 32, TILE_H = 64 };

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
// 32-byte vectors at 16-byte boundaries, for non-temporal stores of 32 bytes
typedef uint32_t u32x8_a16 __attribute__((vector_size(32), aligned(16)));
typedef uint16_t u16x16_a16 __attribute__((vector_size(32), aligned(16)));
typedef uint16_t u16x4 __attribute__((vector_size(8)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));
typedef uint16_t u16x32 __attribute__((vector_size(64)));
typedef uint8_t u8x16 __attribute__((vector_size(16)));

static inline u32x4 load4(const uint32_t *p) { u32x4 v; memcpy(&v, p, 16); return v; }

// The rgb565 conversion on vectors narrows first: each pixel's low half (G, B) and its
// half shifted down a byte (R, G), then 16-bit masks and shifts, twice the pixels a
// register (on NEON 10 instructions for 8 pixels, against 17 when done on 32-bit lanes).
#define PACK565(v, U16) ({ \
    U16 gb = __builtin_convertvector(v, U16), rg = __builtin_convertvector((v) >> 8, U16); \
    (rg & 0xF800) | ((gb >> 5) & 0x07E0) | ((gb >> 3) & 0x001F); })
static inline u16x8 pack565(u32x4 a, u32x4 b) {
    u32x8 v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    return PACK565(v, u16x8);
}
static inline void store8(uint32_t *p, u32x4 a, u32x4 b) { memcpy(p, &a, 16); memcpy(p + 4, &b, 16); }
static inline void store4(uint32_t *p, u32x4 a) { memcpy(p, &a, 16); }
static inline void store4_565(uint16_t *p, u32x4 v) {
    u16x4 n = PACK565(v, u16x4);
    memcpy(p, &n, 8);
}
static inline uint16_t to565(uint32_t v) {
    return (uint16_t)(((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F));
}

#define ROW(base, stride, j) ((void *)((char *)(base) + (ptrdiff_t)(j) * (stride)))

// Four shadow runs r0..r3 (lane m = pixel along `across`) -> four panel rows.
#define TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3) do { \
    u32x4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5); \
    u32x4 t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7); \
    u32x4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5); \
    u32x4 t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7); \
    o0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5); \
    o1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7); \
    o2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5); \
    o3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7); \
} while (0)

// The 4 pixels from src along `across` (+-1) as one load: going against `across` they
// sit backwards in it, src[0] in lane 3. The walks then store lane k to panel row 3 - k
// (rows below, `d`) instead of turning each load around.
static inline u32x4 load_run(const uint32_t *src, ptrdiff_t across) { return load4(across > 0 ? src : src - 3); }

// Eight runs r[m] (lane k of each for panel row d[k]) -> 8 pixels of each of 4 panel rows.
#define BLOCK8_XRGB(d, i, r) do { \
    u32x4 o0, o1, o2, o3, p0, p1, p2, p3; \
    TRANSPOSE(r[0], r[1], r[2], r[3], o0, o1, o2, o3); \
    TRANSPOSE(r[4], r[5], r[6], r[7], p0, p1, p2, p3); \
    store8(d[0] + i, o0, p0); store8(d[1] + i, o1, p1); store8(d[2] + i, o2, p2); store8(d[3] + i, o3, p3); \
} while (0)
// Into rgb565 the runs are packed first, two to a register (q[k]: runs 2k, 2k+1), and
// transposed as 16-bit pixels: half the registers to shuffle.
typedef uint64_t u64x2 __attribute__((vector_size(16)));
#define ZIP16_LO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11)
#define ZIP16_HI(a, b) __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15)
#define BLOCK8_565(d, i, r) do { \
    u16x8 q0 = pack565(r[0], r[1]), q1 = pack565(r[2], r[3]), q2 = pack565(r[4], r[5]), q3 = pack565(r[6], r[7]); \
    u16x8 a = ZIP16_LO(q0, q1), b = ZIP16_HI(q0, q1), c = ZIP16_LO(q2, q3), e = ZIP16_HI(q2, q3); \
    /* lanes 0, 1 (f) and 2, 3 (g) of runs 0-3; h, k the same of runs 4-7 */ \
    u64x2 f = (u64x2)ZIP16_LO(a, b), g = (u64x2)ZIP16_HI(a, b), h = (u64x2)ZIP16_LO(c, e), k = (u64x2)ZIP16_HI(c, e); \
    u64x2 o0 = __builtin_shufflevector(f, h, 0, 2), o1 = __builtin_shufflevector(f, h, 1, 3); \
    u64x2 o2 = __builtin_shufflevector(g, k, 0, 2), o3 = __builtin_shufflevector(g, k, 1, 3); \
    memcpy(d[0] + i, &o0, 16); memcpy(d[1] + i, &o1, 16); memcpy(d[2] + i, &o2, 16); memcpy(d[3] + i, &o3, 16); \
} while (0)

// One kernel body for both formats: BLOCK8 writes 8 pixels of 4 panel rows, STORE4 a
// 4-pixel run, STORE1 one pixel.
#define TURNED_BODY(T, BLOCK8, STORE4, STORE1) \
    for (int ty = 0; ty < height; ty += TILE_H) { \
        int th = height - ty < TILE_H ? height - ty : TILE_H; \
        for (int tx = 0; tx < width; tx += TILE_W) { \
            int tw = width - tx < TILE_W ? width - tx : TILE_W; \
            int j = 0; \
            for (; j + 4 <= th; j += 4) { \
                const uint32_t *s = src + (ptrdiff_t)tx * along + (ptrdiff_t)(ty + j) * across; \
                T *p[4]; /* panel rows j..j+3; d: the row each load lane goes to */ \
                for (int m = 0; m < 4; m++) p[m] = (T *)ROW(dst, dst_stride, ty + j + m) + tx; \
                T *d[4] = { p[across > 0 ? 0 : 3], p[across > 0 ? 1 : 2], p[across > 0 ? 2 : 1], p[across > 0 ? 3 : 0] }; \
                int i = 0; \
                for (; i + 8 <= tw; i += 8) { \
                    u32x4 r[8]; \
                    for (int m = 0; m < 8; m++) r[m] = load_run(s + m * along, across); \
                    BLOCK8(d, i, r); \
                    s += 8 * along; \
                } \
                for (; i + 4 <= tw; i += 4) { \
                    u32x4 r0 = load_run(s, across), r1 = load_run(s + along, across); \
                    u32x4 r2 = load_run(s + 2 * along, across), r3 = load_run(s + 3 * along, across); \
                    u32x4 o0, o1, o2, o3; \
                    TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3); \
                    STORE4(d[0] + i, o0); STORE4(d[1] + i, o1); STORE4(d[2] + i, o2); STORE4(d[3] + i, o3); \
                    s += 4 * along; \
                } \
                for (; i < tw; i++, s += along) { \
                    STORE1(p[0] + i, s[0]); STORE1(p[1] + i, s[across]); \
                    STORE1(p[2] + i, s[2 * across]); STORE1(p[3] + i, s[3 * across]); \
                } \
            } \
            for (; j < th; j++) { \
                const uint32_t *s = src + (ptrdiff_t)tx * along + (ptrdiff_t)(ty + j) * across; \
                T *d = (T *)ROW(dst, dst_stride, ty + j) + tx; \
                for (int i = 0; i < tw; i++, s += along) STORE1(d + i, s[0]); \
            } \
        } \
    }

#define PUT32(p, v) (*(p) = (v))
#define PUT565(p, v) (*(p) = to565(v))

// The turned walk (across = +-1) over a panel rectangle. Always inlined, and called with
// `across` a constant.
#define INLINE static inline __attribute__((always_inline))
INLINE void turned_xrgb8888_walk(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                 ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED_BODY(uint32_t, BLOCK8_XRGB, store4, PUT32)
}
INLINE void turned_rgb565_walk(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                               ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED_BODY(uint16_t, BLOCK8_565, store4_565, PUT565)
}
// `across` passed as a constant, so each walk is compiled once per direction: with it a
// runtime value, the loads tested its sign at every load and the row pointers spilled
// (measured: turned xrgb8888 1.95x -> 1.73x memcpy at 1280x800, damaged frames 2.14x -> 1.86x).
INLINE void turned_xrgb8888(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                            ptrdiff_t along, ptrdiff_t across, int width, int height) {
    if (across > 0) turned_xrgb8888_walk(dst, dst_stride, src, along, 1, width, height);
    else turned_xrgb8888_walk(dst, dst_stride, src, along, -1, width, height);
}
INLINE void turned_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                          ptrdiff_t along, ptrdiff_t across, int width, int height) {
    if (across > 0) turned_rgb565_walk(dst, dst_stride, src, along, 1, width, height);
    else turned_rgb565_walk(dst, dst_stride, src, along, -1, width, height);
}


// ---- x86_64 with AVX2 ---------------------------------------------------------------
// The portable walk above moves 4x4 blocks through 16-byte registers; with AVX2 a block is
// 8x8 (eight 32-byte shadow runs in, eight 32-byte panel runs out: half the loads and
// stores, a quarter fewer shuffles), and rgb565 is packed by two multiply-adds, which
// shift and merge the three channels in one step each (pmaddubsw: B + 64 G per 16-bit
// lane, R alone; pmaddwd: that + 2048 R), where the portable code narrows twice, then
// shifts twice, masks three times and ors twice. Chosen at run time (`bw_copy_select`), so
// one binary serves machines with and without AVX2. It replaces target clones (AVX-512,
// AVX2) of the portable code, tuned on an AVX-512 machine; on an AVX2-only one (Zen 2
// class, the machine of 2026-12-02) this path took turned rgb565 from 1.6-2.4x to 1.0-1.6x
// memcpy and damaged turned frames from 2.0-3.5x to 1.3-2.3x (C harness,
// docs/PERFORMANCE.md). Unmeasured against the AVX-512 clone on an AVX-512 CPU.
#if defined(__x86_64__) && defined(__clang__)
#define HAVE_AVX2_PATH 1
#define AVX2 static inline __attribute__((target("avx2"), always_inline))
#define AVX2_FN static __attribute__((target("avx2")))
typedef int16_t i16x16 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef int8_t i8x32 __attribute__((vector_size(32)));

AVX2 u32x8 load8(const uint32_t *p) { u32x8 v; memcpy(&v, p, 32); return v; }

// 16 shadow pixels -> 16 rgb565 pixels (the truncating conversion of to565) in the
// order packusdw leaves them, per 128-bit half: a0-3 b0-3 | a4-7 b4-7.
AVX2 u16x16 pack565x16_halves(u32x8 a, u32x8 b) {
    const i8x32 byteWeights = { 1, 64, 1, 0, 1, 64, 1, 0, 1, 64, 1, 0, 1, 64, 1, 0,
                                1, 64, 1, 0, 1, 64, 1, 0, 1, 64, 1, 0, 1, 64, 1, 0 };
    const i16x16 laneWeights = { 1, 2048, 1, 2048, 1, 2048, 1, 2048, 1, 2048, 1, 2048, 1, 2048, 1, 2048 };
    // Top 5/6/5 bits of each channel; then (B + 64 G, R) per pixel, then B + 64 G + 2048 R:
    // the 565 value shifted left by 3, at most 0x7FFF8, so no lane saturates.
    u32x8 ma = a & 0x00F8FCF8, mb = b & 0x00F8FCF8;
    i16x16 ta = __builtin_ia32_pmaddubsw256((i8x32)ma, byteWeights);
    i16x16 tb = __builtin_ia32_pmaddubsw256((i8x32)mb, byteWeights);
    i32x8 pa = __builtin_ia32_pmaddwd256(ta, laneWeights) >> 3;
    i32x8 pb = __builtin_ia32_pmaddwd256(tb, laneWeights) >> 3;
    return (u16x16)__builtin_ia32_packusdw256(pa, pb);
}
typedef int64_t i64x4 __attribute__((vector_size(32)));
// The same 16 pixels in order: a0-7 b0-7 (a 64-bit permute of the halves).
AVX2 u16x16 pack565x16(u32x8 a, u32x8 b) {
    i64x4 q = (i64x4)pack565x16_halves(a, b);
    return (u16x16)__builtin_shufflevector(q, q, 0, 2, 1, 3);
}


// Eight shadow runs r[m] (lane e = pixel e along `across`) -> eight panel runs o[e] (lane m).
#define TRANSPOSE8(r, o) do { \
    u32x8 t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13); \
    u32x8 t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15); \
    u32x8 t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13); \
    u32x8 t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15); \
    u32x8 t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13); \
    u32x8 t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15); \
    u32x8 t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13); \
    u32x8 t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15); \
    u32x8 u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13); \
    u32x8 u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15); \
    u32x8 u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13); \
    u32x8 u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15); \
    u32x8 u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13); \
    u32x8 u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15); \
    u32x8 u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13); \
    u32x8 u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15); \
    o[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11); \
    o[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11); \
    o[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11); \
    o[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11); \
    o[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15); \
    o[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15); \
    o[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15); \
    o[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15); \
} while (0)

// The turned walk in 8x8 blocks over a rectangle whose sides are multiples of 8.
// Going against `across` (-1), a 32-byte load holds its 8 pixels backwards: the block's
// panel rows then come out of the transpose in reverse, and are stored so (no shuffle).
#define TURNED8_BODY(T, BLOCK) \
    for (int ty = 0; ty < height; ty += TILE_H) { \
        int th = height - ty < TILE_H ? height - ty : TILE_H; \
        for (int tx = 0; tx < width; tx += TILE_W) { \
            int tw = width - tx < TILE_W ? width - tx : TILE_W; \
            for (int j = 0; j < th; j += 8) { \
                const uint32_t *s = src + (ptrdiff_t)tx * along + (ptrdiff_t)(ty + j) * across - (across < 0 ? 7 : 0); \
                T *d = (T *)ROW(dst, dst_stride, ty + j) + tx; \
                for (int i = 0; i < tw; i += 8, s += 8 * along) { \
                    u32x8 r[8]; \
                    for (int m = 0; m < 8; m++) r[m] = load8(s + m * along); \
                    BLOCK(d + i, r); \
                } \
            } \
        } \
    }

// One 8x8 block: the eight shadow runs r[m] -> eight panel rows from p (panel row e holds
// lane e of every run; against `across` the runs hold their pixels backwards, so lane e
// goes to panel row 7 - e).
#define BLOCK_XRGB(p, r) do { \
    u32x8 o[8]; \
    TRANSPOSE8(r, o); \
    for (int e = 0; e < 8; e++) memcpy(ROW(p, dst_stride, across > 0 ? e : 7 - e), &o[e], 32); \
} while (0)
// Into rgb565 the runs are packed first, two to a register, and the block is transposed
// as 16-bit pixels: 12 shuffles instead of 24 for 32-bit ones, and no permute after the
// packs. P[k] holds runs 2k and 2k+1 as packusdw left them (lanes 0-3 of each | 4-7).
// punpcklwd / punpckhwd: the low / high four 16-bit lanes of a and b interleaved, per 128-bit half.
#define ZIP16X16_LO(a, b) __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 8, 24, 9, 25, 10, 26, 11, 27)
#define ZIP16X16_HI(a, b) __builtin_shufflevector(a, b, 4, 20, 5, 21, 6, 22, 7, 23, 12, 28, 13, 29, 14, 30, 15, 31)
#define BLOCK_565(p, r) do { \
    u16x16 P[4]; \
    for (int k = 0; k < 4; k++) P[k] = pack565x16_halves(r[2 * k], r[2 * k + 1]); \
    /* runs 0,2 | 1,3 | 4,6 | 5,7 interleaved: (m, m+2) pairs for lanes 0-3 | 4-7 */ \
    u16x16 A = ZIP16X16_LO(P[0], P[1]), B = ZIP16X16_HI(P[0], P[1]); \
    u16x16 C = ZIP16X16_LO(P[2], P[3]), D = ZIP16X16_HI(P[2], P[3]); \
    /* runs 0-3 (E, F) and 4-7 (G, H) of lanes 0,1 | 4,5 (E, G) and 2,3 | 6,7 (F, H) */ \
    i64x4 E = (i64x4)ZIP16X16_LO(A, B), F = (i64x4)ZIP16X16_HI(A, B); \
    i64x4 G = (i64x4)ZIP16X16_LO(C, D), H = (i64x4)ZIP16X16_HI(C, D); \
    /* whole panel rows: o[q] holds lane q | lane q + 4 of all eight runs */ \
    i64x4 o[4] = { __builtin_shufflevector(E, G, 0, 4, 2, 6), __builtin_shufflevector(E, G, 1, 5, 3, 7), \
                   __builtin_shufflevector(F, H, 0, 4, 2, 6), __builtin_shufflevector(F, H, 1, 5, 3, 7) }; \
    for (int q = 0; q < 4; q++) { \
        int lo = across > 0 ? q : 7 - q, hi = across > 0 ? q + 4 : 3 - q; \
        memcpy(ROW(p, dst_stride, lo), &o[q], 16); memcpy(ROW(p, dst_stride, hi), (char *)&o[q] + 16, 16); \
    } \
} while (0)

AVX2 void turned8_xrgb8888_walk(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED8_BODY(uint32_t, BLOCK_XRGB)
}
AVX2 void turned8_rgb565_walk(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                              ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED8_BODY(uint16_t, BLOCK_565)
}
#endif

#ifdef HAVE_AVX2_PATH
// A turned rectangle: its largest part with sides a multiple of 8 in 8x8 blocks, the
// strips right of it and below it by the portable walk. `across` reaches the block walk
// as a constant (one copy of it per direction).
#define TURNED_AVX2(WALK8, WALK, T) do { \
    int w8 = width & ~7, h8 = height & ~7; \
    if (w8 > 0 && h8 > 0) { \
        if (across > 0) WALK8(dst, dst_stride, src, along, 1, w8, h8); \
        else WALK8(dst, dst_stride, src, along, -1, w8, h8); \
    } \
    if (w8 < width) WALK(dst + w8, dst_stride, src + w8 * along, along, across, width - w8, height); \
    if (h8 < height && w8 > 0) \
        WALK((T *)ROW(dst, dst_stride, h8), dst_stride, src + h8 * across, along, across, w8, height - h8); \
} while (0)

AVX2_FN void turned_xrgb8888_avx2(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                  ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED_AVX2(turned8_xrgb8888_walk, turned_xrgb8888, uint32_t);
}
AVX2_FN void turned_rgb565_avx2(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                ptrdiff_t along, ptrdiff_t across, int width, int height) {
    TURNED_AVX2(turned8_rgb565_walk, turned_rgb565, uint16_t);
}
// Upright (or upside down) into rgb565; `stream`: non-temporal stores for upright rows
// from the first 32-byte boundary (see `streamed`; upside down keeps plain ones).
AVX2_FN void upright_rgb565_avx2(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                 ptrdiff_t along, ptrdiff_t across, int width, int height, int stream) {
    for (int j = 0; j < height; j++) {
        uint16_t *d = ROW(dst, dst_stride, j);
        const uint32_t *s = src + (ptrdiff_t)j * across;
        int i = 0;
        if (along == 1) {
            if (stream) {
                for (; i < width && (uintptr_t)(d + i) % 32 != 0; i++) d[i] = to565(s[i]);
                for (; i + 16 <= width; i += 16)
                    __builtin_nontemporal_store(pack565x16(load8(s + i), load8(s + i + 8)), (u16x16 *)(d + i));
            }
            for (; i + 16 <= width; i += 16) {
                u16x16 v = pack565x16(load8(s + i), load8(s + i + 8));
                memcpy(d + i, &v, 32);
            }
            for (; i < width; i++) d[i] = to565(s[i]);
        } else {
            for (; i + 16 <= width; i += 16) {
                u32x8 a = load8(s - i - 7), b = load8(s - i - 15);
                u16x16 v = pack565x16(__builtin_shufflevector(a, a, 7, 6, 5, 4, 3, 2, 1, 0),
                                      __builtin_shufflevector(b, b, 7, 6, 5, 4, 3, 2, 1, 0));
                memcpy(d + i, &v, 32);
            }
            for (; i < width; i++) d[i] = to565(s[-i]);
        }
    }
}

// ---- x86_64 with AVX-512 (F and BW): upright copies into rgb565 --------------------
// The same two multiply-adds on 64-byte registers, then one truncating narrow (vpmovdw)
// that leaves the 16 pixels in order, where AVX2 packs and then permutes; a row's last
// pixels short of 16 go through a mask instead of one by one. Zen 4 decodes a 64-byte op
// as one, so the loop is half the instructions: the bench's typical damaged 1280x800
// frame 8.3 -> 5.8-6.0 us (2.4 -> 1.6-1.7x memcpy of the bytes written, where the same
// bytes only narrowed, bw_copy_rgb565_narrow_only, take 1.5x; C harness). Whole 1920x1080
// frames are bound by their bytes and stay at 1.3x, as narrowed only. Turned copies stay
// on the AVX2 walk.
#define AVX512 static inline __attribute__((target("avx512f,avx512bw"), always_inline))
#define AVX512_FN static __attribute__((target("avx512f,avx512bw")))

// 16 shadow pixels -> their rgb565 values, one a 32-bit lane (see pack565x16_halves).
AVX512 __m512i rgb565_lanes(__m512i v) {
    __m512i top = _mm512_and_si512(v, _mm512_set1_epi32(0x00F8FCF8));
    __m512i bg = _mm512_maddubs_epi16(top, _mm512_set1_epi32(0x00014001));  // B + 64 G, R
    return _mm512_srli_epi32(_mm512_madd_epi16(bg, _mm512_set1_epi32(0x08000001)), 3);
}
AVX512 __m256i pack565x16_avx512(__m512i v) { return _mm512_cvtepi32_epi16(rgb565_lanes(v)); }
// 32 pixels from s[0] on, for one 64-byte store: the low halves of both registers' lanes
// picked by one two-source word permute (VPERMT2W). (Stored 16 at a time, clang makes each
// narrow a store of its own, VPMOVDW to memory, which Zen 4 runs slowly: a 1280x800 frame
// took 67 us against 60 on the AVX2 path. Two VPMOVDWs and an insert, the step before the
// permute, took the bench's damaged frame 7.6-8.7 us on the Emerald Rapids guest, against
// 7.1-8.0 with it and 6.8-7.8 for memcpy in the same runs; C harness, unmeasured on Zen 4.)
AVX512 __m512i pack565x32_avx512(const uint32_t *s) {
    const __m512i low_halves = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32,
                                                30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_permutex2var_epi16(rgb565_lanes(_mm512_loadu_si512(s)), low_halves,
                                     rgb565_lanes(_mm512_loadu_si512(s + 16)));
}
AVX512 __m512i reverse16(__m512i v) {
    return _mm512_permutexvar_epi32(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
}
// The 16 pixels from s[0] on (upright) or from s[0] down (upside down, `reverse`).
AVX512 __m512i load16(const uint32_t *s, int reverse) {
    return reverse ? reverse16(_mm512_loadu_si512(s - 15)) : _mm512_loadu_si512(s);
}
// The first n (< 16) of them: masked lanes are neither read nor written.
AVX512 void put565_first(uint16_t *d, const uint32_t *s, int n, int reverse) {
    __mmask16 first = (__mmask16)((1u << n) - 1);
    __m512i v = reverse ? reverse16(_mm512_maskz_loadu_epi32((__mmask16)(first << (16 - n)), s - 15))
                        : _mm512_maskz_loadu_epi32(first, s);
    _mm512_mask_cvtepi32_storeu_epi16(d, first, rgb565_lanes(v));
}
// n upright pixels from s[0] on: 16 at a time, the rest through a mask.
AVX512 void put565_upright(uint16_t *d, const uint32_t *s, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) _mm256_storeu_si256((__m256i *)(d + i), pack565x16_avx512(load16(s + i, 0)));
    if (i < n) put565_first(d + i, s + i, n - i, 0);
}

// Upright (or upside down) into rgb565; `stream`: non-temporal 64-byte stores for upright
// rows from the first 64-byte boundary (upside down keeps plain ones).
AVX512_FN void upright_rgb565_avx512(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                     ptrdiff_t along, ptrdiff_t across, int width, int height, int stream) {
    for (int j = 0; j < height; j++) {
        uint16_t *d = ROW(dst, dst_stride, j);
        const uint32_t *s = src + (ptrdiff_t)j * across;
        int i = 0;
        if (along == -1) {  // a loop of its own: with the direction tested inside, 2.1x memcpy, not 1.7
            for (; i + 16 <= width; i += 16) _mm256_storeu_si256((__m256i *)(d + i), pack565x16_avx512(load16(s - i, 1)));
            if (i < width) put565_first(d + i, s - i, width - i, 1);
            continue;
        }
        if (stream && (uintptr_t)d % 2 == 0) {
            int head = (int)((64 - (uintptr_t)d % 64) % 64 / 2);
            i = head < width ? head : width;
            put565_upright(d, s, i);
            for (; i + 32 <= width; i += 32) _mm512_stream_si512((void *)(d + i), pack565x32_avx512(s + i));
        }
        for (; i + 32 <= width; i += 32) _mm512_storeu_si512((void *)(d + i), pack565x32_avx512(s + i));
        put565_upright(d + i, s + i, width - i);
    }
}

// stream_row's (below) aligned middle with 32-byte stores, half the store instructions;
// `dst` 16-byte aligned. Returns the bytes it wrote.
AVX2_FN size_t stream_middle_avx2(char *dst, const char *src, size_t bytes) {
    size_t i = 0;
    if (bytes >= 16 && (uintptr_t)dst % 32 != 0) {
        __builtin_nontemporal_store(load4((const uint32_t *)src), (u32x4 *)dst);
        i = 16;
    }
    for (; i + 32 <= bytes; i += 32) __builtin_nontemporal_store(load8((const uint32_t *)(src + i)), (u32x8 *)(dst + i));
    return i;
}
#endif

// Which code the kernels run (BW_COPY_PORTABLE, _AVX2, _AVX512): decided at the first
// copy, or by bw_copy_select.
static int selected_path = -1;

static int cpu_has(int path) {
#ifdef HAVE_AVX2_PATH
    if (path == BW_COPY_AVX2) return __builtin_cpu_supports("avx2");
    if (path == BW_COPY_AVX512)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    return path == BW_COPY_PORTABLE;
}

static int selected(void) {
    int p = __atomic_load_n(&selected_path, __ATOMIC_RELAXED);
    if (p < 0) {
        p = cpu_has(BW_COPY_AVX512) ? BW_COPY_AVX512 : cpu_has(BW_COPY_AVX2) ? BW_COPY_AVX2 : BW_COPY_PORTABLE;
        __atomic_store_n(&selected_path, p, __ATOMIC_RELAXED);
    }
    return p;
}
#ifdef HAVE_AVX2_PATH
// The AVX-512 path runs the AVX2 code for everything but upright copies into rgb565.
static int avx2_selected(void) { return selected() >= BW_COPY_AVX2; }
static int avx512_selected(void) { return selected() == BW_COPY_AVX512; }
#endif

int bw_copy_select(int path) {
    if (path == BW_COPY_BEST) {
        __atomic_store_n(&selected_path, -1, __ATOMIC_RELAXED);
        return selected();
    }
    if (path < BW_COPY_PORTABLE || path > BW_COPY_AVX512 || !cpu_has(path)) return 0;
    __atomic_store_n(&selected_path, path, __ATOMIC_RELAXED);
    return 1;
}

// A format's turned walk with plain stores, on the selected path (below).
typedef void (*turned_walk_fn)(void *dst, ptrdiff_t dst_stride, const uint32_t *src,
                               ptrdiff_t along, ptrdiff_t across, int width, int height);

// ---- which copies are streamed out ---------------------------------------------------
// The scan-out buffer is read by the display, never by us, so a copy that would not stay
// in the cache anyway is written with non-temporal stores (MOVNTDQ on x86_64, STNP on
// aarch64): they neither fetch each destination line first nor push the shadow out of the
// cache, and a write-combined dumb buffer takes every store that way anyway. Where the
// shadow read and the panel written together fit in a quarter of the last-level cache,
// plain stores stay in the cache, as memcpy's own do for buffers that size (glibc's turn
// to non-temporal stores is also a share of that cache), and win. Measured on Zen 4
// (32 MB L3), a process each:
// - turned 1280x800 xrgb8888 (8.2 MB in all): 0.12-0.15 ms straight against 0.23-0.24
//   through the staging strip below (1.3-1.5x memcpy against 2.5, 8 processes); rgb565
//   (6.1 MB) 0.16-0.21 against 0.21-0.26. Turned 1920x1080 rgb565 (12.4 MB): 0.52-0.59
//   ms staged against 0.62-1.07 straight; xrgb8888 (16.6 MB) 0.53-0.62 against 0.71-1.13.
// - upright 1920x1080 into rgb565 (12.4 MB), beside memcpys of the same rows as the bench
//   runs it: 0.17-0.20 ms streamed against 0.18-0.25 plain (12 processes); at 1280x800
//   plain stores win (0.076-0.081 ms against 0.079-0.087).
// With no cache figure, and on a Pi 4 (1 MB of L2: a frame never fits, and its dumb
// buffer is write-combined), every copy of NT_MIN_BYTES and up is streamed.
// A cache over STREAM_CACHE_MAX counts as that much: the biggest are a server socket's,
// shared by tens of cores and by other guests. On an Emerald Rapids guest whose sysfs says
// 300 MB of L3 (2 MB of L2 a core), nothing was streamed, and plain stores lost at every
// size from 800x480 up (C harness, best of 300; memcpy of the bytes written beside):
// turned 1280x800 xrgb8888 0.63-1.14 ms against 0.34-0.38 streamed on two cores (memcpy
// 0.27), turned 1920x1080 2.2-3.6 against 0.74-0.76 (0.52), upright 1920x1080 into rgb565
// 0.67 against 0.44 (0.32). The cap streams the 12-17 MB frames there and leaves the
// Zen 4 and Zen 1 machines the rule was measured on as they were (where plain stores won
// the 8 MB frames: above).
// Upright copies (into rgb565) have no strip to pay for, and are streamed as soon as their
// bytes outgrow the core's own L2 too. On that guest (2 MB of L2, the same harness)
// streamed stores won at every size from 1024x600 up, by a third after a drawn frame
// (1280x800: 0.29-0.30 ms plain against 0.19-0.20 streamed, memcpy 0.18); 800x480 (2.3
// MB in all) took 0.082-0.087 plain against 0.079-0.097 streamed after a drawn frame, and
// 0.072 against 0.063 beside memcpys. On the Zen 4 (1 MB of L2) this streams 1280x800,
// where plain stores had been 4% ahead (above).
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define NT_STORE(v, p) __builtin_nontemporal_store(v, p)
#endif
#endif
#ifndef NT_STORE
#define NT_STORE(v, p) memcpy(p, &(v), sizeof(v))
#endif

// Copies smaller than this keep plain stores whatever the cache: a small damaged
// rectangle's lines stay in the cache anyway (measured earlier: a typical damaged rgb565
// frame turned 90 went from 1.9x to 30-80x memcpy with non-temporal stores).
enum { NT_MIN_BYTES = 256 * 1024 };
// The most last-level cache the choice above counts on (see there).
enum { STREAM_CACHE_MAX = 32 << 20 };

// CPU 0's data or unified caches as sysfs describes them: the largest (its last level)
// and the level-2 one (each core's own on the x86 machines measured), 0 where none is
// described. sysconf's figures are not used: glibc gave 320 MB on the Zen 4 guest whose
// sysfs (and its L3) says 32 MB.
struct cache_sizes { size_t last_level, level2; };

static struct cache_sizes read_cache_sizes(void) {
    struct cache_sizes found = {0, 0};
    for (int i = 0; i < 8; i++) {
        char path[64], type[16] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int ok = fscanf(f, "%15s", type) == 1;
        fclose(f);
        if (!ok || strcmp(type, "Instruction") == 0) continue;
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%d", &level) != 1) level = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f) continue;
        unsigned long n = 0;
        char unit = 0;  // sysfs writes "32768K"
        if (fscanf(f, "%lu%c", &n, &unit) >= 1) {
            size_t bytes = unit == 'M' ? n << 20 : unit == 'K' ? n << 10 : n;
            if (bytes > found.last_level) found.last_level = bytes;
            if (level == 2) found.level2 = bytes;
        }
        fclose(f);
    }
    return found;
}

// read_cache_sizes, read at the first asking (-1: not yet)
static size_t last_level_found = (size_t)-1, level2_found = (size_t)-1;

static struct cache_sizes cache_sizes(void) {
    struct cache_sizes c = {__atomic_load_n(&last_level_found, __ATOMIC_RELAXED),
                            __atomic_load_n(&level2_found, __ATOMIC_RELAXED)};
    if (c.last_level == (size_t)-1 || c.level2 == (size_t)-1) {
        c = read_cache_sizes();
        __atomic_store_n(&level2_found, c.level2, __ATOMIC_RELAXED);
        __atomic_store_n(&last_level_found, c.last_level, __ATOMIC_RELAXED);
    }
    return c;
}

size_t bw_last_level_cache_bytes(void) { return cache_sizes().last_level; }

static int stream_mode = BW_STREAM_BY_CACHE;

int bw_copy_stream(int mode) {
    if (mode < BW_STREAM_BY_CACHE || mode > BW_STREAM_NEVER) return 0;
    __atomic_store_n(&stream_mode, mode, __ATOMIC_RELAXED);
    return 1;
}

// Whether a copy reading `read_bytes` of shadow and writing `written_bytes` of panel is
// streamed out (above). `upright`: a copy with no staging strip to pay for, streamed as
// soon as its bytes outgrow the core's own L2 too (above).
static int streamed(size_t read_bytes, size_t written_bytes, int upright) {
    if (written_bytes < NT_MIN_BYTES) return 0;
    int mode = __atomic_load_n(&stream_mode, __ATOMIC_RELAXED);
    if (mode != BW_STREAM_BY_CACHE) return mode == BW_STREAM_BIG_COPIES;
    struct cache_sizes c = cache_sizes();
    size_t room = c.last_level > STREAM_CACHE_MAX ? STREAM_CACHE_MAX / 4 : c.last_level / 4;
    if (upright && c.level2 > 0 && c.level2 < room) room = c.level2;
    return read_bytes + written_bytes > room;
}

// After a streamed copy: its stores visible before the buffer goes to the display.
static void stream_fence(void) {
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

// ---- streamed turned frames: a staging strip ------------------------------------------
// Non-temporal stores pay only in long runs, and the walk writes 4 or 8 panel rows at
// once, a short piece of each. Measured here (Zen 4 under KVM), with its non-temporal
// stores straight into the panel:
// - a 1920x1080 frame turned took 1.24 ms through a 4320-byte pitch (1080 * 4, what vc4
//   gives a 1080-pixel-wide buffer: every other row starts mid-line, and its lines are
//   finished a tile later) and 0.32 ms through 4352;
// - in a quarter of the processes, for any pitch, 10x that (1280x800: 1.45 ms, not 0.15);
// - staging each 32x64 tile and streaming its 64 row pieces: 0.5 ms at 1280x800.
// So streamed frames are turned BAND_ROWS panel rows at a time into a strip that stays in
// L2 (plain stores), and each strip row is then streamed out front to back: 0.46-0.75 ms
// at 1080p and 0.21-0.27 ms at 1280x800 for any pitch, never slower in 40 processes.
// 8, 16 and 32 rows measured the same here (4 slower); 16 reads a whole 64-byte line of a
// shadow row per visit and visits each shadow page half as often as 8 (a Cortex-A72's
// 1024-entry TLB does not hold a 1080p shadow's 2025 pages).
enum { BAND_ROWS = 16 };

// `bytes` from `src` to `dst`: plain stores up to dst's first 16-byte boundary and after
// its last, non-temporal ones between.
static void stream_row(char *dst, const char *src, size_t bytes) {
    size_t i = (16 - (uintptr_t)dst % 16) % 16;
    if (i > bytes) i = bytes;
    memcpy(dst, src, i);
#ifdef HAVE_AVX2_PATH
    if (avx2_selected()) i += stream_middle_avx2(dst + i, src + i, bytes - i);
#endif
    // 32 bytes a store: on aarch64 one STNP of two q registers. Stored 16 bytes at a time,
    // clang for aarch64 (17, Debian's Swift 6.0.3's, which builds the arm64 kiosk, and 21;
    // -O2 and -O3) dropped the hint and emitted plain STRs: this file had no STNP at all.
    for (; i + 32 <= bytes; i += 32) {
        u32x8_a16 v = __builtin_shufflevector(load4((const uint32_t *)(src + i)), load4((const uint32_t *)(src + i + 16)),
                                              0, 1, 2, 3, 4, 5, 6, 7);
        NT_STORE(v, (u32x8_a16 *)(dst + i));
    }
    for (; i + 16 <= bytes; i += 16) {
        u32x4 v = load4((const uint32_t *)(src + i));
        NT_STORE(v, (u32x4 *)(dst + i));
    }
    memcpy(dst + i, src + i, bytes - i);
}

// ---- streamed turned frames shared with a second core ---------------------------------
// One core's turned frame is bound by its own non-temporal stores, not by the memory.
// Measured on Zen 4 under KVM (C harnesses, the fastest of 60-90 rounds): a turned
// 1920x1080 xrgb8888 frame took 0.48 ms on one core; its walk into the strip alone 0.21
// and its stream-out alone 0.20 (as long when every row went to one 69 KB scratch: it is
// the stores, not the addresses), and the two do not overlap. So the bands are shared:
// the calling thread and one helper thread take them until none is left, and each core,
// while streaming a band out, prefetches the shadow lines of the band after it. Right
// after a drawn frame, two cores took it to 0.39 ms (rgb565 0.40 -> 0.28); the prefetch
// then 0.37 -> 0.345 (rgb565 0.27 -> 0.23). The caller never waits for the helper to
// wake: if it is slow to (or its core is busy) the caller takes every band.
// Streamed upright copies into rgb565 are shared the same way, a band being BAND_ROWS
// rows converted straight into the panel. On the Emerald Rapids guest (C harness, beside
// memcpys, the helper woken as here) two cores took 1280x800 from 0.18 to 0.11 ms and
// 1920x1080 from 0.36 to 0.21 (with both threads already spinning: 0.09 and 0.18). On the
// Zen 4, where a core's reads bound it, a shared 1920x1080 frame took 0.145 -> 0.155 ms
// right after a drawn frame and 0.146 -> 0.094 after another copy.
typedef void (*upright_rows_fn)(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t along,
                                ptrdiff_t across, int width, int height, int stream);
struct band_job {
    char *dst;
    ptrdiff_t dst_stride;
    const uint32_t *src;
    ptrdiff_t along, across;
    int width, height, bytes_per_pixel;
    turned_walk_fn walk;   // a turned job: the format's walk into the strip
    upright_rows_fn rows;  // an upright one: its rows, streamed straight into the panel
    size_t strip_stride;   // a turned job: bytes a strip row; each core has its own strip
    int bands;
};

// Band `band` (BAND_ROWS panel rows): walked into the strip, then each row streamed out
// front to back while the next band's shadow lines are fetched (one line of each shadow
// row the walk reads, spread over the rows streamed).
static void turned_band(const struct band_job *job, int band, char *strip) {
    int y = band * BAND_ROWS, rows = job->height - y < BAND_ROWS ? job->height - y : BAND_ROWS;
    size_t row_bytes = (size_t)job->width * (size_t)job->bytes_per_pixel;
    job->walk(strip, (ptrdiff_t)job->strip_stride, job->src + (ptrdiff_t)y * job->across, job->along, job->across,
              job->width, rows);
    int next_y = y + BAND_ROWS, per_row = (job->width + rows - 1) / rows;
    int next_rows = job->height - next_y < BAND_ROWS ? job->height - next_y : BAND_ROWS;
    // the next band's pixels in the first shadow row, from their lowest address
    const uint32_t *next = next_rows <= 0 ? NULL
        : job->src + (ptrdiff_t)next_y * job->across + (job->across < 0 ? -(next_rows - 1) : 0);
    for (int r = 0; r < rows; r++) {
        if (next) {
            int i = r * per_row, end = i + per_row < job->width ? i + per_row : job->width;
            for (; i < end; i++) __builtin_prefetch(next + (ptrdiff_t)i * job->along);
        }
        stream_row((char *)ROW(job->dst, job->dst_stride, y + r), strip + (size_t)r * job->strip_stride, row_bytes);
    }
}

// Band `band` of either kind of job.
static void run_band(const struct band_job *job, int band, char *strip) {
    if (!job->rows) {
        turned_band(job, band, strip);
        return;
    }
    int y = band * BAND_ROWS, rows = job->height - y < BAND_ROWS ? job->height - y : BAND_ROWS;
    job->rows((uint16_t *)ROW(job->dst, job->dst_stride, y), job->dst_stride, job->src + (ptrdiff_t)y * job->across,
              job->along, job->across, job->width, rows, 1);
}

static int cores_mode = BW_CORES_BEST;

int bw_copy_cores(int cores) {
    if (cores < BW_CORES_BEST || cores > BW_CORES_TWO) return 0;
    __atomic_store_n(&cores_mode, cores, __ATOMIC_RELAXED);
    return 1;
}

static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t helper_wake = PTHREAD_COND_INITIALIZER;
static int helper_state;               // 0 not started, 1 running, -1 could not be started
static struct band_job posted;         // the latest shared job (under helper_lock)
static uint32_t posted_generation;     // its number (under helper_lock)
static uint64_t next_band;             // atomic: generation << 32 | each half's next band (16 bits)
static int bands_done;                 // atomic: bands of the latest shared job finished

static inline void cpu_relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// Runs bands of job `generation` while any are left. The caller's half is the first, the
// helper's the rest; each core takes its own half's bands front to back, as one core's
// walk goes (its prefetches are of its next band), then the other's. A band is taken by
// moving a half's counter on only while the word still holds this generation, so a core
// finishing an older job never takes a band of a newer one.
static void take_bands(const struct band_job *job, uint32_t generation, char *strip, int helper) {
    uint32_t middle = (uint32_t)job->bands / 2, all = (uint32_t)job->bands;
    uint64_t t = __atomic_load_n(&next_band, __ATOMIC_ACQUIRE);
    for (;;) {
        if ((uint32_t)(t >> 32) != generation) return;
        uint32_t first = (uint32_t)(t >> 16) & 0xFFFF, second = (uint32_t)t & 0xFFFF;
        int first_left = first < middle, second_left = second < all;
        if (!first_left && !second_left) return;
        int take_first = helper ? !second_left : first_left;
        if (!__atomic_compare_exchange_n(&next_band, &t, take_first ? t + (1 << 16) : t + 1, 1, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) continue;
        run_band(job, (int)(take_first ? first : second), strip);
        stream_fence();  // this core's non-temporal stores visible before the band counts as done
        __atomic_add_fetch(&bands_done, 1, __ATOMIC_RELEASE);
        t = __atomic_load_n(&next_band, __ATOMIC_ACQUIRE);
    }
}

static void *helper_main(void *unused) {
    (void)unused;
    uint32_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&helper_lock);
        while (posted_generation == seen) pthread_cond_wait(&helper_wake, &helper_lock);
        seen = posted_generation;
        struct band_job job = posted;
        pthread_mutex_unlock(&helper_lock);
        char *strip = job.rows ? NULL : aligned_alloc(64, job.strip_stride * BAND_ROWS);
        if (!job.rows && !strip) continue;  // the caller takes every band
        take_bands(&job, seen, strip, 1);
        free(strip);
    }
    return NULL;
}

// Whether turned frames are shared with the helper thread, started at the first one. It
// is started with every signal blocked, so the process's signals keep going to the
// threads that wait for them.
static int helper_ready(void) {
    int mode = __atomic_load_n(&cores_mode, __ATOMIC_RELAXED);
    if (mode == BW_CORES_ONE) return 0;
    static long online = -1;
    if (__atomic_load_n(&online, __ATOMIC_RELAXED) < 0)
        __atomic_store_n(&online, sysconf(_SC_NPROCESSORS_ONLN), __ATOMIC_RELAXED);
    if (mode == BW_CORES_BEST && __atomic_load_n(&online, __ATOMIC_RELAXED) < 2) return 0;
    int state = __atomic_load_n(&helper_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&helper_lock);
        if (helper_state == 0) {
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_BLOCK, &all, &old);
            pthread_attr_t attr;
            pthread_t thread;
            int made = pthread_attr_init(&attr) == 0;
            if (made) {
                pthread_attr_setstacksize(&attr, 256 * 1024);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                made = pthread_create(&thread, &attr, helper_main, NULL) == 0;
                pthread_attr_destroy(&attr);
            }
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            if (made) pthread_setname_np(thread, "bw-copy-out");
            __atomic_store_n(&helper_state, made ? 1 : -1, __ATOMIC_RELEASE);
        }
        state = helper_state;
        pthread_mutex_unlock(&helper_lock);
    }
    return state == 1;
}

// One shared job at a time: a copy that finds another one sharing (a second thread
// copying) runs alone.
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;

// Every band of `job`, shared with the helper where it is ready; returns when all are
// written and visible. `strip`: the calling thread's strip (a turned job's).
static void run_band_job(const struct band_job *job, char *strip) {
    if (job->bands < 2 || job->bands > 0xFFFF || !helper_ready() || pthread_mutex_trylock(&job_lock) != 0) {
        for (int i = 0; i < job->bands; i++) run_band(job, i, strip);
        stream_fence();
        return;
    }
    pthread_mutex_lock(&helper_lock);
    uint32_t generation = ++posted_generation;
    posted = *job;
    __atomic_store_n(&bands_done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&next_band, (uint64_t)generation << 32 | (uint64_t)(job->bands / 2), __ATOMIC_RELEASE);
    pthread_cond_signal(&helper_wake);
    pthread_mutex_unlock(&helper_lock);
    take_bands(job, generation, strip, 0);
    // The helper's last band takes microseconds; this yields only if it lost its core.
    for (int spins = 0; __atomic_load_n(&bands_done, __ATOMIC_ACQUIRE) < job->bands; spins++) {
        if (spins < 1 << 14) cpu_relax();
        else sched_yield();
    }
    pthread_mutex_unlock(&job_lock);
}

// A turned copy through the strip, `walk` a format's turned walk. Returns 0, having
// written nothing, when the strip cannot be had.
static int staged_turned(char *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t along,
                         ptrdiff_t across, int width, int height, int bytes_per_pixel, turned_walk_fn walk) {
    size_t strip_stride = ((size_t)width * (size_t)bytes_per_pixel + 63) & ~(size_t)63;
    char *strip = aligned_alloc(64, strip_stride * BAND_ROWS);
    if (!strip) return 0;
    struct band_job job = { dst, dst_stride, src, along, across, width, height, bytes_per_pixel,
                            walk, NULL, strip_stride, (height + BAND_ROWS - 1) / BAND_ROWS };
    run_band_job(&job, strip);
    free(strip);
    return 1;
}

static void walk_turned_xrgb8888(void *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                 ptrdiff_t along, ptrdiff_t across, int width, int height) {
#ifdef HAVE_AVX2_PATH
    if (avx2_selected()) { turned_xrgb8888_avx2(dst, dst_stride, src, along, across, width, height); return; }
#endif
    turned_xrgb8888(dst, dst_stride, src, along, across, width, height);
}
static void walk_turned_rgb565(void *dst, ptrdiff_t dst_stride, const uint32_t *src,
                               ptrdiff_t along, ptrdiff_t across, int width, int height) {
#ifdef HAVE_AVX2_PATH
    if (avx2_selected()) { turned_rgb565_avx2(dst, dst_stride, src, along, across, width, height); return; }
#endif
    turned_rgb565(dst, dst_stride, src, along, across, width, height);
}

// Streamed copies through the strip, the rest by the walk straight into the panel.
static void copy_turned(void *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t along,
                        ptrdiff_t across, int width, int height, int bytes_per_pixel, turned_walk_fn walk) {
    size_t pixels = (size_t)width * (size_t)height;
    if (streamed(pixels * 4, pixels * (size_t)bytes_per_pixel, 0) &&
        staged_turned(dst, dst_stride, src, along, across, width, height, bytes_per_pixel, walk)) return;
    walk(dst, dst_stride, src, along, across, width, height);
}

void bw_copy_xrgb8888(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                      ptrdiff_t along, ptrdiff_t across, int width, int height) {
    if (width <= 0 || height <= 0) return;
    if (along == 1) {
        for (int j = 0; j < height; j++)
            memcpy(ROW(dst, dst_stride, j), src + (ptrdiff_t)j * across, (size_t)width * 4);
    } else if (along == -1) {
        for (int j = 0; j < height; j++) {
            uint32_t *d = ROW(dst, dst_stride, j);
            const uint32_t *s = src + (ptrdiff_t)j * across;
            for (int i = 0; i < width; i++) d[i] = s[-i];
        }
    } else if (across == 1 || across == -1) {
        copy_turned(dst, dst_stride, src, along, across, width, height, 4, walk_turned_xrgb8888);
    } else {
        for (int j = 0; j < height; j++) {
            uint32_t *d = ROW(dst, dst_stride, j);
            for (int i = 0; i < width; i++) d[i] = src[i * along + j * across];
        }
    }
}

// 16 shadow pixels from s to d as rgb565, 32 bytes a store (on aarch64 one STNP when
// `stream`, see stream_row; d then 16-byte aligned). On NEON, LD4 splits the pixels' bytes
// into B, G and R registers as it loads, and each rgb565 byte is then one shift-insert on
// 16 pixels at once: the high byte is R's top 5 bits over G's top 3, the low byte G's
// next 3 over B's top 5. ST2 (or two zips before an STNP) interleaves the two bytes back
// into pixels. In LLVM's models a loop of these takes 10 cycles on a Cortex-A72 (the
// LD4 is the bound) and 5-6 on a Neoverse N1 (the Pi 5's A76 core), against 11 on both
// for widening the channels to 16-bit lanes and inserting there (scripts/kernel-cycles.py).
#if defined(__aarch64__) && defined(__ARM_NEON)
// 16 shadow pixels as their rgb565 low and high bytes.
static inline uint8x16x2_t bytes565x16(const uint32_t *s) {
    uint8x16x4_t bgrx = vld4q_u8((const uint8_t *)s);  // little-endian xrgb8888: B, G, R, X
    return (uint8x16x2_t){{ vsriq_n_u8(vshlq_n_u8(bgrx.val[1], 3), bgrx.val[0], 3),
                            vsriq_n_u8(bgrx.val[2], bgrx.val[1], 5) }};
}
static inline uint8x16_t reverse16(uint8x16_t v) {
    v = vrev64q_u8(v);
    return vextq_u8(v, v, 8);
}
#endif
static inline __attribute__((always_inline)) void put565x16(uint16_t *d, const uint32_t *s, int stream) {
#if defined(__aarch64__) && defined(__ARM_NEON)
    uint8x16x2_t lohi = bytes565x16(s);
    if (!stream) {
        vst2q_u8((uint8_t *)d, lohi);
        return;
    }
    u8x16 a = (u8x16)vzip1q_u8(lohi.val[0], lohi.val[1]), b = (u8x16)vzip2q_u8(lohi.val[0], lohi.val[1]);
    // Opaque to the optimizer, which otherwise folds the zips and the store into an ST2
    // and drops the non-temporal hint.
    __asm__("" : "+w"(a), "+w"(b));
    u16x16_a16 v = (u16x16_a16)__builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
#else
    u16x16_a16 v = __builtin_shufflevector(pack565(load4(s), load4(s + 4)), pack565(load4(s + 8), load4(s + 12)),
                                           0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
    if (stream) NT_STORE(v, (u16x16_a16 *)d);
    else memcpy(d, &v, 32);
}

// Upright (or upside down) into rgb565, the portable path; `stream`: non-temporal stores
// for upright rows (upside down keeps plain ones).
static void upright_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                           ptrdiff_t along, ptrdiff_t across, int width, int height, int stream) {
    for (int j = 0; j < height; j++) {
        uint16_t *d = ROW(dst, dst_stride, j);
        const uint32_t *s = src + (ptrdiff_t)j * across;
        int i = 0;
        if (along == 1) {
            if (stream) {
                for (; i < width && (uintptr_t)(d + i) % 16 != 0; i++) d[i] = to565(s[i]);
                for (; i + 16 <= width; i += 16) put565x16(d + i, s + i, 1);
            }
            for (; i + 16 <= width; i += 16) put565x16(d + i, s + i, 0);
            // pack565 by hand: the compiler's own vectors of to565 work on 32-bit lanes.
            for (; i + 8 <= width; i += 8) {
                u16x8 v = pack565(load4(s + i), load4(s + i + 4));
                memcpy(d + i, &v, 16);
            }
            for (; i < width; i++) d[i] = to565(s[i]);
        } else {
#if defined(__aarch64__) && defined(__ARM_NEON)
            // Upside down: the 16 pixels ending at s[-i], their bytes turned around.
            for (; i + 16 <= width; i += 16) {
                uint8x16x2_t lohi = bytes565x16(s - i - 15);
                vst2q_u8((uint8_t *)(d + i), ((uint8x16x2_t){{ reverse16(lohi.val[0]), reverse16(lohi.val[1]) }}));
            }
#endif
            for (; i + 8 <= width; i += 8) {
                u32x4 a = load4(s - i - 3), b = load4(s - i - 7);
                u16x8 v = pack565(__builtin_shufflevector(a, a, 3, 2, 1, 0), __builtin_shufflevector(b, b, 3, 2, 1, 0));
                memcpy(d + i, &v, 16);
            }
            for (; i < width; i++) d[i] = to565(s[-i]);
        }
    }
}

// Upright (or upside-down) rows into rgb565 on this CPU's path.
static void convert_upright(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t along,
                            ptrdiff_t across, int width, int height, int stream) {
#ifdef HAVE_AVX2_PATH
    if (avx512_selected()) { upright_rgb565_avx512(dst, dst_stride, src, along, across, width, height, stream); return; }
    if (avx2_selected()) { upright_rgb565_avx2(dst, dst_stride, src, along, across, width, height, stream); return; }
#endif
    upright_rgb565(dst, dst_stride, src, along, across, width, height, stream);
}

// An upright copy into rgb565 by `rows`: streamed ones in bands shared with the helper.
static void copy_upright(upright_rows_fn rows, uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                         ptrdiff_t along, ptrdiff_t across, int width, int height) {
    size_t pixels = (size_t)width * (size_t)height;
    if (!streamed(pixels * 4, pixels * 2, 1)) {
        rows(dst, dst_stride, src, along, across, width, height, 0);
        return;
    }
    struct band_job job = { (char *)dst, dst_stride, src, along, across, width, height, 2,
                            NULL, rows, 0, (height + BAND_ROWS - 1) / BAND_ROWS };
    run_band_job(&job, NULL);
}

void bw_copy_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                    ptrdiff_t along, ptrdiff_t across, int width, int height) {
    if (width <= 0 || height <= 0) return;
    if (along == 1 || along == -1) {
        copy_upright(convert_upright, dst, dst_stride, src, along, across, width, height);
        return;
    }
    if (across == 1 || across == -1) {
        copy_turned(dst, dst_stride, src, along, across, width, height, 2, walk_turned_rgb565);
    } else {
        for (int j = 0; j < height; j++) {
            uint16_t *d = ROW(dst, dst_stride, j);
            for (int i = 0; i < width; i++) d[i] = to565(src[i * along + j * across]);
        }
    }
}

// ---- an upright copy into rgb565 without the conversion (for the bench) ---------------
// The same reads and the same kind of stores, each pixel only narrowed to its low half,
// 32 pixels (one 64-byte line) a step, then 16, 4 and 1. Built for each path's vector
// width, like the conversions it is held against.

// 32 pixels narrowed into one 64-byte store (two of 32 bytes each became a narrowing
// store to memory with AVX-512, VPMOVDW, slow on Zen 4, and lost the non-temporal hint).
static inline __attribute__((always_inline)) void narrow32(uint16_t *d, const uint32_t *s, int stream) {
    u32x16 a, b;
    memcpy(&a, s, 64);
    memcpy(&b, s + 16, 64);
    u16x32 n = __builtin_shufflevector(__builtin_convertvector(a, u16x16), __builtin_convertvector(b, u16x16), 0, 1, 2,
                                       3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                                       25, 26, 27, 28, 29, 30, 31);
    if (stream) NT_STORE(n, (u16x32 *)d);
    else memcpy(d, &n, 64);
}
static inline __attribute__((always_inline)) void narrow_rows(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                                              ptrdiff_t across, int width, int height, int stream) {
    for (int j = 0; j < height; j++) {
        uint16_t *d = ROW(dst, dst_stride, j);
        const uint32_t *s = src + (ptrdiff_t)j * across;
        int i = 0;
        if (stream) {
            for (; i < width && (uintptr_t)(d + i) % 64 != 0; i++) d[i] = (uint16_t)s[i];
            for (; i + 32 <= width; i += 32) narrow32(d + i, s + i, 1);
        }
        for (; i + 32 <= width; i += 32) narrow32(d + i, s + i, 0);
        for (; i + 16 <= width; i += 16) {
            u32x16 a;
            memcpy(&a, s + i, 64);
            u16x16 na = __builtin_convertvector(a, u16x16);
            memcpy(d + i, &na, 32);
        }
        for (; i + 4 <= width; i += 4) {
            u16x4 n = __builtin_convertvector(load4(s + i), u16x4);
            memcpy(d + i, &n, 8);
        }
        for (; i < width; i++) d[i] = (uint16_t)s[i];
    }
}
#ifdef HAVE_AVX2_PATH
AVX512_FN void narrow_rows_avx512(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t across, int width,
                                  int height, int stream) {
    narrow_rows(dst, dst_stride, src, across, width, height, stream);
}
AVX2_FN void narrow_rows_avx2(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t across, int width,
                              int height, int stream) {
    narrow_rows(dst, dst_stride, src, across, width, height, stream);
}
#endif

// The same rows only narrowed, on this CPU's path (upright only: `along` is 1).
static void narrow_upright(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t along,
                           ptrdiff_t across, int width, int height, int stream) {
    (void)along;
#ifdef HAVE_AVX2_PATH
    if (avx512_selected()) { narrow_rows_avx512(dst, dst_stride, src, across, width, height, stream); return; }
    if (avx2_selected()) { narrow_rows_avx2(dst, dst_stride, src, across, width, height, stream); return; }
#endif
    narrow_rows(dst, dst_stride, src, across, width, height, stream);
}

void bw_copy_rgb565_narrow_only(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src, ptrdiff_t across, int width,
                                int height) {
    if (width <= 0 || height <= 0) return;
    copy_upright(narrow_upright, dst, dst_stride, src, 1, across, width, height);
}
