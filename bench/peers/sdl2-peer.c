/* sdl2-peer: the bench's peer. Draws a composition that boardwalk-bench writes (one item
 * a line: "size W H", "fill R G B A X Y W H", "image X Y W H PNG", "text PX R G B A X Y
 * FONT STRING") with SDL2's software renderer into an SDL surface, full frame, FRAMES
 * times, and prints "median_ms N". Pictures and text become textures once, as an SDL2
 * program would make them; each frame clears, fills and copies (scaled, blended).
 * Built by `make bench` only: the kiosk never links SDL.
 *   sdl2-peer COMPOSITION.txt FRAMES */
#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { FILL, COPY };
struct item { enum kind kind; SDL_Rect rect; SDL_Color color; SDL_Texture *texture; };

static int fail(const char *what, const char *detail) {
    fprintf(stderr, "sdl2-peer: %s: %s\n", what, detail);
    return 1;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3) return fail("usage", "sdl2-peer COMPOSITION.txt FRAMES");
    int frames = atoi(argv[2]);
    if (frames < 1 || frames > 100000) return fail("FRAMES", "1 to 100000");
    FILE *f = fopen(argv[1], "r");
    if (!f) return fail(argv[1], "cannot open");
    if (SDL_Init(0) != 0 || TTF_Init() != 0) return fail("init", SDL_GetError());
    IMG_Init(IMG_INIT_PNG);
    SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear");  /* Boardwalk scales bilinear too */

    int w = 0, h = 0;
    if (fscanf(f, "size %d %d\n", &w, &h) != 2 || w < 1 || h < 1) return fail(argv[1], "no size line");
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    SDL_Renderer *r = target ? SDL_CreateSoftwareRenderer(target) : NULL;
    if (!r) return fail("renderer", SDL_GetError());

    struct item *items = NULL;
    size_t count = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        struct item it = {0};
        int cr, cg, cb, ca, px, n = 0;
        if (sscanf(line, "fill %d %d %d %d %d %d %d %d", &cr, &cg, &cb, &ca,
                   &it.rect.x, &it.rect.y, &it.rect.w, &it.rect.h) == 8) {
            it.kind = FILL;
            it.color = (SDL_Color){cr, cg, cb, ca};
        } else if (sscanf(line, "image %d %d %d %d %n", &it.rect.x, &it.rect.y, &it.rect.w, &it.rect.h, &n) == 4 && n) {
            SDL_Surface *s = IMG_Load(line + n);
            if (!s) return fail(line + n, IMG_GetError());
            it.kind = COPY;
            it.texture = SDL_CreateTextureFromSurface(r, s);
            SDL_FreeSurface(s);
        } else if (sscanf(line, "text %d %d %d %d %d %d %d %n", &px, &cr, &cg, &cb, &ca, &it.rect.x, &it.rect.y, &n) == 7 && n) {
            char *font_path = line + n, *text = strchr(font_path, ' ');
            if (!text) return fail("text line", line);
            *text++ = 0;
            TTF_Font *font = TTF_OpenFont(font_path, px);
            if (!font) return fail(font_path, TTF_GetError());
            SDL_Surface *s = TTF_RenderUTF8_Blended(font, text, (SDL_Color){cr, cg, cb, ca});
            if (!s) return fail("text", TTF_GetError());
            it.kind = COPY;
            it.rect.w = s->w;
            it.rect.h = s->h;
            it.texture = SDL_CreateTextureFromSurface(r, s);
            SDL_FreeSurface(s);
            TTF_CloseFont(font);
        } else {
            return fail("unknown line", line);
        }
        if (it.kind == COPY) {
            if (!it.texture) return fail("texture", SDL_GetError());
            SDL_SetTextureBlendMode(it.texture, SDL_BLENDMODE_BLEND);
        }
        items = realloc(items, (count + 1) * sizeof *items);
        items[count++] = it;
    }
    fclose(f);

    double *ms = malloc(sizeof(double) * (size_t)frames);
    Uint64 hz = SDL_GetPerformanceFrequency();
    for (int i = -2; i < frames; i++) {  /* two unmeasured frames warm the caches */
        Uint64 t0 = SDL_GetPerformanceCounter();
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
        SDL_RenderClear(r);
        for (size_t k = 0; k < count; k++) {
            struct item *it = &items[k];
            if (it->kind == FILL) {
                SDL_SetRenderDrawBlendMode(r, it->color.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
                SDL_SetRenderDrawColor(r, it->color.r, it->color.g, it->color.b, it->color.a);
                SDL_RenderFillRect(r, &it->rect);
            } else {
                SDL_RenderCopy(r, it->texture, NULL, &it->rect);
            }
        }
        SDL_RenderFlush(r);  /* SDL batches: the frame is drawn when flushed */
        if (i >= 0) ms[i] = (double)(SDL_GetPerformanceCounter() - t0) * 1000.0 / (double)hz;
    }
    qsort(ms, (size_t)frames, sizeof *ms, compare);
    printf("median_ms %.4f\n", ms[frames / 2]);
    if (getenv("SDL2_PEER_SHOT")) IMG_SavePNG(target, getenv("SDL2_PEER_SHOT"));
    return 0;
}
