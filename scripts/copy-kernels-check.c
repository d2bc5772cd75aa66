// The copy-out kernels against a per-pixel reference, as a plain C program: built for
// arm64 and run under qemu-user (scripts/copy-kernels-check.sh arm64), it checks the NEON
// path every Pi runs; built for x86_64 (scripts/copy-kernels-check.sh, in make unit-test)
// it checks the portable path there, AVX2 and AVX-512 (where the CPU has them), as
// Tests/DisplayTests/CopyKernelTests does. Every rotation and both formats,
// whole frames and rectangles at the edges and off the 16-byte grid, scan-out pitches and
// starts off the grid; the bytes around each rectangle and each row's padding must
// survive. Prints one line per failure and a summary; exits 1 on failure.
#include "CopyKernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t to565(uint32_t v) {
    return (uint16_t)(((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F));
}

enum { GUARD = 0xA5 };
// What a check copies into: xrgb8888, rgb565, or rgb565's bytes with each pixel only
// narrowed to its low half (bw_copy_rgb565_narrow_only, the bench's; upright only).
enum { XRGB8888, RGB565, NARROWED, FORMATS };

// One copy of panel rectangle (x0, y0, w, h) and its check. Returns 1 when it is right.
static int check(const uint32_t *src, int sw, int sh, int rotation, int format, size_t pitch_extra,
                 size_t start_offset, int x0, int y0, int w, int h) {
    // Panel pixel (i, j) shows shadow (x, y): clockwise turns, as Rotation.scan gives them.
    int pw = rotation % 2 ? sh : sw, ph = rotation % 2 ? sw : sh;
    ptrdiff_t along, across;
    const uint32_t *origin;
    switch (rotation) {
    case 0: along = 1; across = sw; origin = src; break;
    case 1: along = -sw; across = 1; origin = src + (size_t)(sh - 1) * sw; break;  // 90
    case 2: along = -1; across = -sw; origin = src + (size_t)sw * sh - 1; break;   // 180
    default: along = sw; across = -1; origin = src + sw - 1; break;                // 270
    }
    size_t bpp = format == XRGB8888 ? 4 : 2;
    size_t pitch = ((size_t)pw * bpp + 3) / 4 * 4 + pitch_extra;
    size_t bytes = pitch * (size_t)ph + start_offset;
    unsigned char *memory = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!memory) { printf("out of memory\n"); return 0; }
    memset(memory, GUARD, bytes);
    unsigned char *panel = memory + start_offset;
    const uint32_t *first = origin + (ptrdiff_t)x0 * along + (ptrdiff_t)y0 * across;
    unsigned char *dst = panel + (size_t)y0 * pitch + (size_t)x0 * bpp;
    if (format == NARROWED) bw_copy_rgb565_narrow_only((uint16_t *)dst, (ptrdiff_t)pitch, first, across, w, h);
    else if (format == RGB565) bw_copy_rgb565((uint16_t *)dst, (ptrdiff_t)pitch, first, along, across, w, h);
    else bw_copy_xrgb8888((uint32_t *)dst, (ptrdiff_t)pitch, first, along, across, w, h);

    char what[160];  // the case, for failure lines
    snprintf(what, sizeof what, "%dx%d rotation %d %s pitch +%zu start +%zu rect %d,%d %dx%d", sw, sh, rotation * 90,
             (const char *[]){ "xrgb8888", "rgb565", "rgb565 narrowed only" }[format], pitch_extra, start_offset, x0, y0, w, h);
    int ok = 1;
    for (size_t k = 0; k < start_offset && ok; k++)
        if (memory[k] != GUARD) { printf("byte %zu before the panel written\n", k); ok = 0; }
    for (int j = 0; j < ph && ok; j++) {
        for (int i = 0; i < pw; i++) {
            unsigned char *p = panel + (size_t)j * pitch + (size_t)i * bpp;
            int inside = i >= x0 && i < x0 + w && j >= y0 && j < y0 + h;
            uint32_t v = origin[(ptrdiff_t)i * along + (ptrdiff_t)j * across];
            unsigned char want[4];
            if (!inside) memset(want, GUARD, 4);
            else if (format == RGB565) { uint16_t c = to565(v); memcpy(want, &c, 2); }
            else if (format == NARROWED) { uint16_t c = (uint16_t)v; memcpy(want, &c, 2); }
            else memcpy(want, &v, 4);
            if (memcmp(p, want, bpp) != 0) {
                printf("FAIL %s: panel %d,%d %s\n", what, i, j, inside ? "wrong" : "written outside the rectangle");
                ok = 0;
                break;
            }
        }
        // the row's padding up to the pitch is outside every rectangle too
        for (size_t b = (size_t)pw * bpp; b < pitch && ok; b++)
            if (panel[(size_t)j * pitch + b] != GUARD) {
                printf("FAIL %s: row %d's padding byte %zu written\n", what, j, b);
                ok = 0;
            }
    }
    free(memory);
    return ok;
}

// Every check on one kernel path; adds to `checks` and `failures`.
static void check_path(int *checks, int *failures) {
    static const int sizes[][2] = { {1, 1}, {7, 13}, {333, 517}, {1366, 768}, {1280, 800}, {1920, 1080} };
    static const size_t pitches[][2] = { {0, 0}, {4, 0}, {16, 4}, {32, 16}, {48, 0} };  // extra bytes, start offset
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int sw = sizes[s][0], sh = sizes[s][1];
        uint32_t *src = malloc((size_t)sw * sh * 4);
        if (!src) { printf("out of memory\n"); (*failures)++; return; }
        for (size_t i = 0; i < (size_t)sw * sh; i++) {  // every pixel its own value, junk in the top byte
            uint32_t v = (uint32_t)i * 2654435761u;
            v ^= v >> 15;
            src[i] = v * 0x2C1B3C6Du;
        }
        for (int rotation = 0; rotation < 4; rotation++) {
            int pw = rotation % 2 ? sh : sw, ph = rotation % 2 ? sw : sh;
            // Whole frame; a big rectangle one pixel in (off the grid: streamed, with a head);
            // one 8 pixels in, on the 16-byte grid and short of the right edge; a small one;
            // the last column and the last row.
            int rects[][4] = { {0, 0, pw, ph}, {1, 1, pw - 2, ph - 2}, {8, 1, pw - 17, ph - 3},
                               {pw / 3, ph / 3, 9, 7}, {pw - 1, 0, 1, ph}, {0, ph - 1, pw, 1} };
            for (int format = XRGB8888; format < FORMATS; format++) {
                if (format == NARROWED && rotation != 0) continue;
                for (size_t p = 0; p < sizeof pitches / sizeof pitches[0]; p++) {
                    for (size_t r = 0; r < sizeof rects / sizeof rects[0]; r++) {
                        int x0 = rects[r][0], y0 = rects[r][1], w = rects[r][2], h = rects[r][3];
                        if (w <= 0 || h <= 0 || x0 + w > pw || y0 + h > ph) continue;
                        // Every way: big copies streamed out (turned ones through the strip)
                        // by one core and shared with the helper thread, and with plain
                        // stores (which a frame gets depends on the cache and the cores).
                        for (int way = 0; way < 3; way++) {
                            bw_copy_stream(way ? BW_STREAM_BIG_COPIES : BW_STREAM_NEVER);
                            bw_copy_cores(way == 2 ? BW_CORES_TWO : BW_CORES_ONE);
                            (*checks)++;
                            *failures += !check(src, sw, sh, rotation, format, pitches[p][0], pitches[p][1], x0, y0, w, h);
                        }
                    }
                }
            }
        }
        free(src);
    }
}

int main(void) {
    // each path this CPU has: the portable one (NEON on arm64, SSE2 on x86_64), AVX2, AVX-512
    int checks = 0, failures = 0, paths = 0;
    for (int path = BW_COPY_PORTABLE; path <= BW_COPY_AVX512; path++) {
        if (bw_copy_select(path) != 1) continue;
        paths++;
        check_path(&checks, &failures);
    }
    printf("copy kernels: %d paths, %d checks, %d failed\n", paths, checks, failures);
    return failures ? 1 : 0;
}
