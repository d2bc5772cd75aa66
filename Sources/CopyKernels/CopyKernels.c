#include "CopyKernels.h"
#include <string.h>

// Why this shape: a turned copy reads the shadow down its columns. Done pixel by pixel
// that walks a new cache line (and often a new page) for every pixel. Here the panel is
// cut into tiles of TILE_W x TILE_H; inside a tile 4x4 blocks are loaded as four 16-byte
// shadow runs, transposed in registers and stored as four 16-byte panel runs, sweeping
// along four panel rows at a time so each panel row is written front to back (whole
// 64-byte runs for write-combined scan-out memory). TILE_W shadow lines stay in L1 while
// the tile's rows use up all 64 bytes of each, and TILE_W pages stay in the TLB.
enum { TILE_W = 32, TILE_H = 16 };

// On x86_64 the loader picks an AVX2 copy of each kernel where the CPU has it (the 565
// packing is slow in SSE2); aarch64 always has NEON, so one build serves every Pi.
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define KERNEL
#endif

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint16_t u16x4 __attribute__((vector_size(8)));

static inline u32x4 load4(const uint32_t *p) { u32x4 v; memcpy(&v, p, 16); return v; }
static inline void store4(uint32_t *p, u32x4 v) { memcpy(p, &v, 16); }
static inline void store4_565(uint16_t *p, u32x4 v) {
    u32x4 c = ((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F);
    u16x4 n = __builtin_convertvector(c, u16x4);
    memcpy(p, &n, 8);
}
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
static inline void store8(uint32_t *p, u32x4 a, u32x4 b) {
    u32x8 v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    memcpy(p, &v, 32);
}
static inline void store8_565(uint16_t *p, u32x4 a, u32x4 b) {
    u32x8 v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    u32x8 c = ((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F);
    u16x8 n = __builtin_convertvector(c, u16x8);
    memcpy(p, &n, 16);
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

// Loads the 4 pixels src[0], src[across], src[2*across], src[3*across] (across = +-1).
static inline u32x4 load_across(const uint32_t *src, ptrdiff_t across) {
    if (across > 0) return load4(src);
    u32x4 v = load4(src - 3);
    return __builtin_shufflevector(v, v, 3, 2, 1, 0);
}

// One kernel body for both formats: STORE8/STORE4 write an 8/4-pixel run, STORE1 one pixel.
#define TURNED_BODY(T, STORE8, STORE4, STORE1) \
    for (int ty = 0; ty < height; ty += TILE_H) { \
        int th = height - ty < TILE_H ? height - ty : TILE_H; \
        for (int tx = 0; tx < width; tx += TILE_W) { \
            int tw = width - tx < TILE_W ? width - tx : TILE_W; \
            int j = 0; \
            for (; j + 4 <= th; j += 4) { \
                const uint32_t *s = src + (ptrdiff_t)tx * along + (ptrdiff_t)(ty + j) * across; \
                T *d0 = (T *)ROW(dst, dst_stride, ty + j) + tx; \
                T *d1 = (T *)ROW(d0, dst_stride, 1), *d2 = (T *)ROW(d0, dst_stride, 2), *d3 = (T *)ROW(d0, dst_stride, 3); \
                int i = 0; \
                for (; i + 8 <= tw; i += 8) { \
                    u32x4 r0 = load_across(s, across), r1 = load_across(s + along, across); \
                    u32x4 r2 = load_across(s + 2 * along, across), r3 = load_across(s + 3 * along, across); \
                    u32x4 r4 = load_across(s + 4 * along, across), r5 = load_across(s + 5 * along, across); \
                    u32x4 r6 = load_across(s + 6 * along, across), r7 = load_across(s + 7 * along, across); \
                    u32x4 o0, o1, o2, o3, p0, p1, p2, p3; \
                    TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3); \
                    TRANSPOSE(r4, r5, r6, r7, p0, p1, p2, p3); \
                    STORE8(d0 + i, o0, p0); STORE8(d1 + i, o1, p1); STORE8(d2 + i, o2, p2); STORE8(d3 + i, o3, p3); \
                    s += 8 * along; \
                } \
                for (; i + 4 <= tw; i += 4) { \
                    u32x4 r0 = load_across(s, across), r1 = load_across(s + along, across); \
                    u32x4 r2 = load_across(s + 2 * along, across), r3 = load_across(s + 3 * along, across); \
                    u32x4 o0, o1, o2, o3; \
                    TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3); \
                    STORE4(d0 + i, o0); STORE4(d1 + i, o1); STORE4(d2 + i, o2); STORE4(d3 + i, o3); \
                    s += 4 * along; \
                } \
                for (; i < tw; i++, s += along) { \
                    STORE1(d0 + i, s[0]); STORE1(d1 + i, s[across]); \
                    STORE1(d2 + i, s[2 * across]); STORE1(d3 + i, s[3 * across]); \
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

KERNEL void bw_copy_xrgb8888(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
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
        TURNED_BODY(uint32_t, store8, store4, PUT32)
    } else {
        for (int j = 0; j < height; j++) {
            uint32_t *d = ROW(dst, dst_stride, j);
            for (int i = 0; i < width; i++) d[i] = src[i * along + j * across];
        }
    }
}

KERNEL void bw_copy_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                    ptrdiff_t along, ptrdiff_t across, int width, int height) {
    if (width <= 0 || height <= 0) return;
    if (along == 1 || along == -1) {
        for (int j = 0; j < height; j++) {
            uint16_t *d = ROW(dst, dst_stride, j);
            const uint32_t *s = src + (ptrdiff_t)j * across;
            if (along == 1) {
                for (int i = 0; i < width; i++) d[i] = to565(s[i]);
            } else {
                for (int i = 0; i < width; i++) d[i] = to565(s[-i]);
            }
        }
    } else if (across == 1 || across == -1) {
        TURNED_BODY(uint16_t, store8_565, store4_565, PUT565)
    } else {
        for (int j = 0; j < height; j++) {
            uint16_t *d = ROW(dst, dst_stride, j);
            for (int i = 0; i < width; i++) d[i] = to565(src[i * along + j * across]);
        }
    }
}
