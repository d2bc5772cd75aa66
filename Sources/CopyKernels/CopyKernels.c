#include "CopyKernels.h"
#include <stdint.h>
#include <string.h>

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

// Panel stores are non-temporal where the target allows it (clang's builtin: MOVNTDQ on
// x86_64, STNP on aarch64): the scan-out buffer is read by the display, never by us, so
// the stores neither fetch the destination's lines first nor push the shadow out of the
// cache. On a write-combined dumb buffer that is how stores behave anyway; on ordinary
// memory (the bench, a cached virtio-gpu buffer) it saves a read of every destination
// line. They need 16-byte aligned addresses: each call peels the columns before the first
// aligned one (and falls back to plain stores if the stride is not a multiple of 16).
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define HAVE_NT 1
#endif
#endif

// On x86_64 the loader picks an AVX-512 (x86-64-v4) or AVX2 copy of each kernel where the
// CPU has it (the 565 packing is slow in SSE2; AVX-512's truncating vpmovdw and three-input
// logic halve it again: upright rgb565 2.2x -> 1.5x memcpy of the bytes written here);
// aarch64 always has NEON, so one build serves every Pi.
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define KERNEL __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define KERNEL
#endif

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x4 __attribute__((vector_size(8)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));

static inline u32x4 load4(const uint32_t *p) { u32x4 v; memcpy(&v, p, 16); return v; }

// 16 bytes to `p`; non-temporal only when `nt` (the caller checked the alignment).
static inline void put16(void *p, u32x4 v, int nt) {
#ifdef HAVE_NT
    if (nt) { __builtin_nontemporal_store(v, (u32x4 *)p); return; }
#endif
    memcpy(p, &v, 16);
}
static inline void put16_565(void *p, u16x8 v, int nt) {
#ifdef HAVE_NT
    if (nt) { __builtin_nontemporal_store(v, (u16x8 *)p); return; }
#endif
    memcpy(p, &v, 16);
}

// Makes the non-temporal stores visible before the caller hands the buffer to the display.
static inline void nt_fence(int nt) {
    if (!nt) return;
#if defined(__x86_64__) && defined(HAVE_NT)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline u16x8 pack565(u32x4 a, u32x4 b) {
    u32x8 v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    u32x8 c = ((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F);
    return __builtin_convertvector(c, u16x8);
}
static inline void store8(uint32_t *p, u32x4 a, u32x4 b, int nt) { put16(p, a, nt); put16(p + 4, b, nt); }
static inline void store4(uint32_t *p, u32x4 a, int nt) { put16(p, a, nt); }
static inline void store8_565(uint16_t *p, u32x4 a, u32x4 b, int nt) { put16_565(p, pack565(a, b), nt); }
static inline void store4_565(uint16_t *p, u32x4 v, int nt) {
    (void)nt;  // 8 bytes: a plain store (there is no 8-byte vector non-temporal store on NEON)
    u32x4 c = ((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F);
    u16x4 n = __builtin_convertvector(c, u16x4);
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
                    STORE8(d0 + i, o0, p0, nt); STORE8(d1 + i, o1, p1, nt); \
                    STORE8(d2 + i, o2, p2, nt); STORE8(d3 + i, o3, p3, nt); \
                    s += 8 * along; \
                } \
                for (; i + 4 <= tw; i += 4) { \
                    u32x4 r0 = load_across(s, across), r1 = load_across(s + along, across); \
                    u32x4 r2 = load_across(s + 2 * along, across), r3 = load_across(s + 3 * along, across); \
                    u32x4 o0, o1, o2, o3; \
                    TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3); \
                    STORE4(d0 + i, o0, nt); STORE4(d1 + i, o1, nt); STORE4(d2 + i, o2, nt); STORE4(d3 + i, o3, nt); \
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

// The turned walk (across = +-1) over a panel rectangle; `nt` only when every vector
// store lands 16-byte aligned (rows start aligned, stride a multiple of 16). Always
// inlined, so each target clone (AVX2, default) gets its own copy with `nt` folded.
#define INLINE static inline __attribute__((always_inline))
INLINE void turned_xrgb8888_walk(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                                 ptrdiff_t along, ptrdiff_t across, int width, int height, int nt) {
    TURNED_BODY(uint32_t, store8, store4, PUT32)
}
INLINE void turned_rgb565_walk(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                               ptrdiff_t along, ptrdiff_t across, int width, int height, int nt) {
    TURNED_BODY(uint16_t, store8_565, store4_565, PUT565)
}
// `across` passed as a constant, so each walk is compiled once per direction: with it a
// runtime value, load_across tested its sign at every load and the row pointers spilled
// (measured: turned xrgb8888 1.95x -> 1.73x memcpy at 1280x800, damaged frames 2.14x -> 1.86x).
INLINE void turned_xrgb8888(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                            ptrdiff_t along, ptrdiff_t across, int width, int height, int nt) {
    if (across > 0) turned_xrgb8888_walk(dst, dst_stride, src, along, 1, width, height, nt);
    else turned_xrgb8888_walk(dst, dst_stride, src, along, -1, width, height, nt);
}
INLINE void turned_rgb565(uint16_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                          ptrdiff_t along, ptrdiff_t across, int width, int height, int nt) {
    if (across > 0) turned_rgb565_walk(dst, dst_stride, src, along, 1, width, height, nt);
    else turned_rgb565_walk(dst, dst_stride, src, along, -1, width, height, nt);
}

// Non-temporal stores only pay for big copies (whole frames): a small damaged rectangle's
// lines stay in the cache anyway, and its edges share lines with plain stores (the head
// and tail columns), which bounces every such line out of the cache and back (measured:
// a typical damaged rgb565 frame turned 90 went from 1.9x to 30-80x memcpy with them).
enum { NT_MIN_BYTES = 256 * 1024 };

// Pixels before the first 16-byte aligned one in every row, or -1 when the copy is small,
// rows differ in alignment (a stride that is not a multiple of 16) or non-temporal stores
// are missing: then every store is a plain one.
static inline int aligned_head(const void *dst, ptrdiff_t dst_stride, int bytes_per_pixel, int width, int height) {
#ifdef HAVE_NT
    uintptr_t a = (uintptr_t)dst;
    if ((size_t)width * (size_t)height * (size_t)bytes_per_pixel < NT_MIN_BYTES) return -1;
    if (dst_stride % 16 != 0 || a % (uintptr_t)bytes_per_pixel != 0) return -1;
    int head = (int)(((16 - a % 16) % 16) / (uintptr_t)bytes_per_pixel);
    return head < width ? head : width;
#else
    (void)dst; (void)dst_stride; (void)bytes_per_pixel; (void)width; (void)height;
    return -1;
#endif
}

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
        int head = aligned_head(dst, dst_stride, 4, width, height);
        if (head < 0) {
            turned_xrgb8888(dst, dst_stride, src, along, across, width, height, 0);
        } else {
            turned_xrgb8888(dst, dst_stride, src, along, across, head, height, 0);
            if (head < width)
                turned_xrgb8888(dst + head, dst_stride, src + head * along, along, across, width - head, height, 1);
            nt_fence(1);
        }
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
        // Upright (or upside down): plain loops the compiler vectorizes (16 pixels a step
        // with AVX2) and plain stores. Hand-written 8-pixel steps with non-temporal stores
        // measured slower (2.1-2.3x memcpy of the bytes written against 1.7-1.8x at
        // 1280x800): the read side is twice the written bytes, the writes stay cached.
        for (int j = 0; j < height; j++) {
            uint16_t *d = ROW(dst, dst_stride, j);
            const uint32_t *s = src + (ptrdiff_t)j * across;
            if (along == 1) {
                for (int i = 0; i < width; i++) d[i] = to565(s[i]);
            } else {
                for (int i = 0; i < width; i++) d[i] = to565(s[-i]);
            }
        }
        return;
    }
    int head = aligned_head(dst, dst_stride, 2, width, height);
    int nt = head >= 0;
    if (head < 0) head = width;  // everything through plain stores
    if (across == 1 || across == -1) {
        turned_rgb565(dst, dst_stride, src, along, across, head, height, 0);
        if (head < width)
            turned_rgb565(dst + head, dst_stride, src + head * along, along, across, width - head, height, nt);
    } else {
        for (int j = 0; j < height; j++) {
            uint16_t *d = ROW(dst, dst_stride, j);
            for (int i = 0; i < width; i++) d[i] = to565(src[i * along + j * across]);
        }
    }
    nt_fence(nt);
}
