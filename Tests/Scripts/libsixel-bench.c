/*
 * libsixel-bench: encodes raw RGB24 frames with libsixel, for `aether-bench graphics`.
 * Built at bench time (never committed as a binary):
 *   cc -O2 -o libsixel-bench Tests/Scripts/libsixel-bench.c $(pkg-config --cflags --libs libsixel)
 * Usage: libsixel-bench W H FRAMES COLORS none|fs|atkinson|auto perframe|reuse in.rgb out.six
 * Prints: frames=N median_ms=X mean_ms=Y bytes=Z times_ms=T0,T1,... (each frame, in order)
 * Timing covers palette building (sixel_dither_initialize) and sixel_encode; the copy of the
 * input frame (libsixel dithers in place) is outside the timed region.
 */
#include <sixel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sink { FILE *f; size_t bytes; };

static int write_fn(char *data, int size, void *priv) {
    struct sink *s = priv;
    s->bytes += (size_t)size;
    return fwrite(data, 1, (size_t)size, s->f) == (size_t)size ? size : -1;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 9) {
        fprintf(stderr, "usage: %s W H FRAMES COLORS none|fs|atkinson|auto perframe|reuse in.rgb out.six\n", argv[0]);
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]), colors = atoi(argv[4]);
    int diffuse = SIXEL_DIFFUSE_AUTO;
    if (!strcmp(argv[5], "none")) diffuse = SIXEL_DIFFUSE_NONE;
    else if (!strcmp(argv[5], "fs")) diffuse = SIXEL_DIFFUSE_FS;
    else if (!strcmp(argv[5], "atkinson")) diffuse = SIXEL_DIFFUSE_ATKINSON;
    int reuse = !strcmp(argv[6], "reuse");
    size_t frame = (size_t)w * h * 3;
    unsigned char *all = malloc(frame * n), *work = malloc(frame);
    FILE *in = fopen(argv[7], "rb");
    if (!all || !work || !in || fread(all, frame, n, in) != (size_t)n) { fprintf(stderr, "cannot read frames\n"); return 1; }
    fclose(in);
    struct sink sink = { fopen(argv[8], "wb"), 0 };
    if (!sink.f) { perror("out"); return 1; }
    sixel_output_t *output = NULL;
    if (SIXEL_FAILED(sixel_output_new(&output, write_fn, &sink, NULL))) return 1;
    sixel_dither_t *dither = NULL;
    double *ms = calloc(n, sizeof *ms), total = 0;
    for (int i = 0; i < n; i++) {
        memcpy(work, all + frame * i, frame);
        double t0 = now_ms();
        if (!reuse || !dither) {
            if (dither) sixel_dither_unref(dither);
            if (SIXEL_FAILED(sixel_dither_new(&dither, colors, NULL))) return 1;
            if (SIXEL_FAILED(sixel_dither_initialize(dither, work, w, h, SIXEL_PIXELFORMAT_RGB888,
                                                     SIXEL_LARGE_AUTO, SIXEL_REP_AUTO, SIXEL_QUALITY_AUTO))) return 1;
            sixel_dither_set_diffusion_type(dither, diffuse);
        }
        if (SIXEL_FAILED(sixel_encode(work, w, h, 3, dither, output))) return 1;
        ms[i] = now_ms() - t0;
        total += ms[i];
    }
    fclose(sink.f);
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return 1;
    memcpy(sorted, ms, n * sizeof *ms);
    qsort(sorted, n, sizeof *sorted, cmp);
    printf("frames=%d median_ms=%.3f mean_ms=%.3f bytes=%zu times_ms=", n, sorted[n / 2], total / n, sink.bytes);
    for (int i = 0; i < n; i++) printf(i ? ",%.3f" : "%.3f", ms[i]);
    printf("\n");
    return 0;
}
