/*
 * gen-dvdsub: writes a subtitle-only file holding two bitmap subtitle cues,
 * encoded with libavcodec's DVD (dvdsub) or DVB (dvbsub) subtitle encoder and
 * muxed with libavformat. make-fixtures.sh merges the result with a video
 * stream using `ffmpeg -map`, because the ffmpeg CLI cannot turn text into
 * bitmap subtitles.
 *
 * Usage: gen-dvdsub dvdsub|dvbsub WIDTHxHEIGHT OUTPUT
 *   The container is picked from OUTPUT's extension (.mkv recommended).
 *
 * Cues (times in ms; the test suite asserts these):
 *   cue 1:  500 – 1500 ms  blocky text "ONE"
 *   cue 2: 2000 – 2800 ms  blocky text "TWO"
 * Each cue is one bitmap rectangle, centred horizontally near the bottom of
 * the frame, with a 4-colour palette:
 *   0 transparent, 1 opaque black box, 2 opaque white glyphs, 3 opaque yellow
 *   1-pixel-thick (x scale) border around the box.
 *
 * Output is deterministic (bitexact muxing, fixed content).
 */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GLYPH_W = 5, GLYPH_H = 7, SCALE = 6, PAD = 12, BORDER = 3 };

/* 5x7 glyphs, one byte per row, bit 4 = leftmost column. */
static const struct { char ch; uint8_t rows[GLYPH_H]; } font[] = {
    { 'O', { 0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } },
    { 'N', { 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11 } },
    { 'E', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F } },
    { 'T', { 0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
    { 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x1B, 0x11 } },
};

static const uint8_t *glyph(char ch)
{
    for (size_t i = 0; i < sizeof(font) / sizeof(font[0]); i++)
        if (font[i].ch == ch)
            return font[i].rows;
    return NULL;
}

static const uint32_t palette[4] = {
    0x00000000, /* 0: transparent */
    0xFF000000, /* 1: opaque black box */
    0xFFFFFFFF, /* 2: opaque white glyphs */
    0xFFFFFF00, /* 3: opaque yellow border */
};

static void die(const char *what, int err)
{
    char buf[AV_ERROR_MAX_STRING_SIZE] = "";
    if (err < 0)
        av_strerror(err, buf, sizeof(buf));
    fprintf(stderr, "gen-dvdsub: %s%s%s\n", what, err < 0 ? ": " : "", buf);
    exit(1);
}

/* Fills rect with a bordered box containing `text` in blocky glyphs. */
static void draw_text(AVSubtitleRect *rect, const char *text, int frame_w, int frame_h)
{
    int n = (int)strlen(text);
    int w = 2 * PAD + n * (GLYPH_W + 1) * SCALE - SCALE;
    int h = 2 * PAD + GLYPH_H * SCALE;
    w += w & 1; /* even sizes keep both DVD fields the same height */
    h += h & 1;

    rect->type = SUBTITLE_BITMAP;
    rect->w = w;
    rect->h = h;
    rect->x = (frame_w - w) / 2;
    rect->y = frame_h - h - frame_h / 10;
    rect->nb_colors = 4;
    rect->linesize[0] = w;
    rect->data[0] = av_mallocz((size_t)w * h);
    rect->data[1] = av_mallocz(sizeof(palette));
    if (!rect->data[0] || !rect->data[1])
        die("out of memory", 0);
    memcpy(rect->data[1], palette, sizeof(palette));

    uint8_t *px = rect->data[0];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int border = x < BORDER || y < BORDER || x >= w - BORDER || y >= h - BORDER;
            px[y * w + x] = border ? 3 : 1;
        }
    for (int i = 0; i < n; i++) {
        const uint8_t *rows = glyph(text[i]);
        if (!rows)
            die("glyph missing from font", 0);
        for (int gy = 0; gy < GLYPH_H; gy++)
            for (int gx = 0; gx < GLYPH_W; gx++) {
                if (!(rows[gy] & (0x10 >> gx)))
                    continue;
                int x0 = PAD + i * (GLYPH_W + 1) * SCALE + gx * SCALE;
                int y0 = PAD + gy * SCALE;
                for (int y = y0; y < y0 + SCALE; y++)
                    memset(px + y * w + x0, 2, SCALE);
            }
    }
}

static void free_rect(AVSubtitleRect *rect)
{
    av_freep(&rect->data[0]);
    av_freep(&rect->data[1]);
}

/* Encodes `sub` and writes it as one packet at pts_ms lasting dur_ms. */
static void write_sub(AVFormatContext *oc, AVCodecContext *enc, AVStream *st,
                      const AVSubtitle *sub, int64_t pts_ms, int64_t dur_ms)
{
    enum { BUF_SIZE = 1 << 20 };
    uint8_t *buf = av_malloc(BUF_SIZE);
    if (!buf)
        die("out of memory", 0);
    int size = avcodec_encode_subtitle(enc, buf, BUF_SIZE, sub);
    if (size < 0)
        die("avcodec_encode_subtitle", size);

    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        die("out of memory", 0);
    int ret = av_packet_from_data(pkt, buf, size);
    if (ret < 0)
        die("av_packet_from_data", ret);
    AVRational ms = { 1, 1000 };
    pkt->stream_index = st->index;
    pkt->pts = pkt->dts = av_rescale_q(pts_ms, ms, st->time_base);
    pkt->duration = av_rescale_q(dur_ms, ms, st->time_base);
    pkt->flags |= AV_PKT_FLAG_KEY;
    ret = av_interleaved_write_frame(oc, pkt);
    if (ret < 0)
        die("av_interleaved_write_frame", ret);
    av_packet_free(&pkt);
}

int main(int argc, char **argv)
{
    int frame_w, frame_h;
    if (argc != 4 || sscanf(argv[2], "%dx%d", &frame_w, &frame_h) != 2 ||
        frame_w < 160 || frame_h < 120) {
        fprintf(stderr, "usage: %s dvdsub|dvbsub WIDTHxHEIGHT OUTPUT\n", argv[0]);
        return 2;
    }
    const char *codec_name = argv[1];
    const char *out = argv[3];
    int is_dvb = strcmp(codec_name, "dvbsub") == 0;
    if (!is_dvb && strcmp(codec_name, "dvdsub") != 0)
        die("codec must be dvdsub or dvbsub", 0);

    const AVCodec *codec = avcodec_find_encoder_by_name(codec_name);
    if (!codec)
        die("encoder not found", 0);

    AVFormatContext *oc = NULL;
    int ret = avformat_alloc_output_context2(&oc, NULL, NULL, out);
    if (ret < 0)
        die("avformat_alloc_output_context2", ret);
    oc->flags |= AVFMT_FLAG_BITEXACT;

    AVCodecContext *enc = avcodec_alloc_context3(codec);
    if (!enc)
        die("out of memory", 0);
    enc->width = frame_w;
    enc->height = frame_h;
    enc->time_base = (AVRational){ 1, 1000 };
    enc->flags |= AV_CODEC_FLAG_BITEXACT;
    if (oc->oformat->flags & AVFMT_GLOBALHEADER)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = avcodec_open2(enc, codec, NULL);
    if (ret < 0)
        die("avcodec_open2", ret);

    AVStream *st = avformat_new_stream(oc, NULL);
    if (!st)
        die("out of memory", 0);
    ret = avcodec_parameters_from_context(st->codecpar, enc);
    if (ret < 0)
        die("avcodec_parameters_from_context", ret);
    st->time_base = enc->time_base;
    av_dict_set(&st->metadata, "language", "eng", 0);

    if (!(oc->oformat->flags & AVFMT_NOFILE)) {
        ret = avio_open(&oc->pb, out, AVIO_FLAG_WRITE);
        if (ret < 0)
            die("avio_open", ret);
    }
    ret = avformat_write_header(oc, NULL);
    if (ret < 0)
        die("avformat_write_header", ret);

    static const struct { int64_t start_ms, end_ms; const char *text; } cues[] = {
        { 500, 1500, "ONE" },
        { 2000, 2800, "TWO" },
    };
    for (size_t i = 0; i < sizeof(cues) / sizeof(cues[0]); i++) {
        AVSubtitleRect rect = { 0 };
        AVSubtitleRect *rects[1] = { &rect };
        draw_text(&rect, cues[i].text, frame_w, frame_h);
        int64_t dur = cues[i].end_ms - cues[i].start_ms;
        AVSubtitle sub = {
            .format = 0, /* bitmap */
            .start_display_time = 0, /* relative to pts; encoders require 0 */
            .end_display_time = (uint32_t)dur,
            .num_rects = 1,
            .rects = rects,
            .pts = av_rescale(cues[i].start_ms, AV_TIME_BASE, 1000),
        };
        write_sub(oc, enc, st, &sub, cues[i].start_ms, dur);
        if (is_dvb) {
            /* DVB pages stay up until replaced: send an empty page at the
             * end time to clear the cue (what the ffmpeg CLI does too). */
            AVSubtitle clear = sub;
            clear.num_rects = 0;
            clear.rects = NULL;
            clear.pts = av_rescale(cues[i].end_ms, AV_TIME_BASE, 1000);
            write_sub(oc, enc, st, &clear, cues[i].end_ms, 0);
        }
        free_rect(&rect);
    }

    ret = av_write_trailer(oc);
    if (ret < 0)
        die("av_write_trailer", ret);
    if (!(oc->oformat->flags & AVFMT_NOFILE))
        avio_closep(&oc->pb);
    avcodec_free_context(&enc);
    avformat_free_context(oc);
    return 0;
}
