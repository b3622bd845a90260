#ifndef AETHER_CFFMPEG_SHIM_H
#define AETHER_CFFMPEG_SHIM_H
#include <malloc.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/encryption_info.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/aes.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/sha.h>
#include <libavutil/tx.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Lowers the calling thread's CPU priority (Linux: setpriority on a thread id is per thread). */
static inline int aether_nice_this_thread(int niceness) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
}

/* Makes the calling thread `by` nicer than it is (per thread on Linux); its new threads inherit it. */
static inline int aether_nicer_this_thread(int by) {
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, tid);
    if (now == -1 && errno != 0) return -1;
    return setpriority(PRIO_PROCESS, tid, now + by);
}

/* ---- One API over FFmpeg 5.1 (libavcodec 59, Debian 12) to 9 (libavcodec 63) ----
   Where the libraries differ, the choice is made here, at compile time, by their version
   macros; the Swift code calls these and never the fields or functions that differ. Each
   newer path is the one the newer headers do not mark deprecated. */

/* AVFrame's key, interlaced and top-field-first marks: AVFrame.flags' AV_FRAME_FLAG_* since
   libavutil 58.7 (FFmpeg 6.1); the key_frame, interlaced_frame and top_field_first fields
   before (deprecated from then on, gone in libavutil 60, FFmpeg 8). */
static inline int aether_frame_is_key(const AVFrame *f) {
#ifdef AV_FRAME_FLAG_KEY
    return (f->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return f->key_frame != 0;
#endif
}
static inline int aether_frame_is_interlaced(const AVFrame *f) {
#ifdef AV_FRAME_FLAG_INTERLACED
    return (f->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return f->interlaced_frame != 0;
#endif
}
static inline int aether_frame_top_field_first(const AVFrame *f) {
#ifdef AV_FRAME_FLAG_TOP_FIELD_FIRST
    return (f->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) != 0;
#else
    return f->top_field_first != 0;
#endif
}
/* A frame's duration in its time base (0: unknown): AVFrame.duration since libavutil 57.30
   (FFmpeg 6.0); pkt_duration before (gone in FFmpeg 7). */
static inline int64_t aether_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

/* Where a decoded frame's packet was in the file and how large it was (-1: unknown).
   AVFrame.pkt_pos and pkt_size on FFmpeg 5.1; deprecated once a decoder could copy a packet's
   opaque_ref to its frames (AV_CODEC_FLAG_COPY_OPAQUE, FFmpeg 6.0) and gone in FFmpeg 8.
   `aether_codec_keep_packet_origin` asks a decoder for that copy, and `aether_packet_keep_origin`
   puts the packet's position and size there before it is sent. */
#ifdef AV_CODEC_FLAG_COPY_OPAQUE
#define AETHER_ORIGIN_BY_OPAQUE 1
#else
#define AETHER_ORIGIN_BY_OPAQUE 0
#endif
typedef struct aether_packet_origin { int64_t pos; int64_t size; } aether_packet_origin;
static inline void aether_codec_keep_packet_origin(AVCodecContext *c) {
#if AETHER_ORIGIN_BY_OPAQUE
    c->flags |= AV_CODEC_FLAG_COPY_OPAQUE;
#else
    (void)c;
#endif
}
/* 0, or AVERROR(ENOMEM). */
static inline int aether_packet_keep_origin(AVPacket *p) {
#if AETHER_ORIGIN_BY_OPAQUE
    av_buffer_unref(&p->opaque_ref);
    AVBufferRef *ref = av_buffer_allocz(sizeof(aether_packet_origin));
    if (!ref) return AVERROR(ENOMEM);
    aether_packet_origin *origin = (aether_packet_origin *)ref->data;
    origin->pos = p->pos;
    origin->size = p->size;
    p->opaque_ref = ref;
#else
    (void)p;
#endif
    return 0;
}
static inline aether_packet_origin aether_frame_packet_origin(const AVFrame *f) {
    aether_packet_origin origin = { -1, -1 };
#if AETHER_ORIGIN_BY_OPAQUE
    if (f->opaque_ref && f->opaque_ref->size >= (size_t)sizeof origin)
        origin = *(const aether_packet_origin *)f->opaque_ref->data;
#else
    origin.pos = f->pkt_pos;
    origin.size = f->pkt_size;
#endif
    return origin;
}

/* A stream's side data of one type (NULL when it has none): AVCodecParameters.coded_side_data
   since libavcodec 60.29 (FFmpeg 6.1); av_stream_get_side_data before (deprecated from then
   on, gone in FFmpeg 8). */
static inline const uint8_t *aether_stream_side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size) {
    if (size) *size = 0;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data, type);
    if (!sd) return NULL;
    if (size) *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(st, type, size);
#endif
}

/* Gives the stream a display matrix turning it `degrees` counter-clockwise (a JPEG's EXIF
   orientation): in codecpar's coded side data since libavcodec 60.29, the stream's own side data
   before (deprecated only from then on). 0, or an AVERROR. */
static inline int aether_stream_set_rotation(AVStream *st, double degrees) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data, &st->codecpar->nb_coded_side_data,
                                                   AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t), 0);
    if (!sd) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)sd->data, degrees);
#else
    uint8_t *data = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)data, degrees);
#endif
    return 0;
}

/* A chapter added to a muxer's context, freed with it (avformat_free_context frees every
   chapter and its metadata). Matroska writes chapters added after its header in its trailer.
   AVChapter is a public struct on every version this builds against (5.1 to 9). */
static inline int aether_format_add_chapter(AVFormatContext *s, int64_t id, AVRational time_base,
                                            int64_t start, int64_t end, const char *title) {
    AVChapter *ch = av_mallocz(sizeof(AVChapter));
    if (!ch) return AVERROR(ENOMEM);
    ch->id = id;
    ch->time_base = time_base;
    ch->start = start;
    ch->end = end;
    if (title && av_dict_set(&ch->metadata, "title", title, 0) < 0) { av_free(ch); return AVERROR(ENOMEM); }
    int count = (int)s->nb_chapters;
    if (av_dynarray_add_nofree(&s->chapters, &count, ch) < 0) {
        av_dict_free(&ch->metadata);
        av_free(ch);
        return AVERROR(ENOMEM);
    }
    s->nb_chapters = (unsigned)count;
    return 0;
}

/* The end of a muxer's last chapter (a recording's chapter ends where the next begins). */
static inline void aether_format_end_last_chapter(AVFormatContext *s, int64_t end) {
    if (s->nb_chapters > 0) s->chapters[s->nb_chapters - 1]->end = end;
}

/* A profile libavcodec does not know: AV_PROFILE_UNKNOWN since libavcodec 60.26 (FFmpeg 6.1),
   FF_PROFILE_UNKNOWN before (gone in FFmpeg 8). Both are -99. */
static inline int aether_profile_unknown(void) {
#ifdef AV_PROFILE_UNKNOWN
    return AV_PROFILE_UNKNOWN;
#else
    return FF_PROFILE_UNKNOWN;
#endif
}

/* libswscale: SwsContext is an opaque type before libswscale 8.? (FFmpeg 8), a public struct
   from then on (Swift would see a typed pointer where it saw an OpaquePointer), and the SWS_*
   flags became the enum SwsFlags (Swift would see that type, not an Int32). The scaler is held
   as `void *` and its flags as int through these, the same on every version. */
static inline int aether_sws_bilinear(void) { return SWS_BILINEAR; }
static inline int aether_sws_bicubic(void) { return SWS_BICUBIC; }
static inline int aether_sws_area(void) { return SWS_AREA; }
static inline int aether_sws_full_chroma_interpolation(void) { return SWS_FULL_CHR_H_INT; }
static inline int aether_sws_full_chroma_input(void) { return SWS_FULL_CHR_H_INP; }
static inline int aether_sws_accurate_rounding(void) { return SWS_ACCURATE_RND; }
static inline void *aether_sws_get_cached_context(void *context, int srcW, int srcH, enum AVPixelFormat srcFormat,
                                                  int dstW, int dstH, enum AVPixelFormat dstFormat, int flags) {
    return sws_getCachedContext((struct SwsContext *)context, srcW, srcH, srcFormat, dstW, dstH, dstFormat,
                                flags, NULL, NULL, NULL);
}
static inline int aether_sws_scale(void *context, const uint8_t *const src[], const int srcStride[], int srcSliceY,
                                   int srcSliceH, uint8_t *const dst[], const int dstStride[]) {
    return sws_scale((struct SwsContext *)context, src, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}
static inline int aether_sws_set_colorspace_details(void *context, const int inv_table[4], int srcRange,
                                                    const int table[4], int dstRange, int brightness,
                                                    int contrast, int saturation) {
    return sws_setColorspaceDetails((struct SwsContext *)context, inv_table, srcRange, table, dstRange,
                                    brightness, contrast, saturation);
}
static inline void aether_sws_free_context(void *context) { sws_freeContext((struct SwsContext *)context); }

/* Whether the video buffer source takes the frames' colour space and range (`colorspace`,
   `range`: libavfilter 10.2, FFmpeg 7.1). From then on filters negotiate them, and a source
   that does not declare them hands the next filter frames of unspecified colour: zscale then
   cannot linearise (FFmpeg 5.1 passed each frame's own properties through). */
static inline int aether_buffersrc_takes_colour(void) {
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 2, 100)
    return 1;
#else
    return 0;
#endif
}

/* The versions this was built against, and the ones running (the libraries' own answers). */
static inline unsigned aether_built_avcodec_version(void) { return LIBAVCODEC_VERSION_INT; }
static inline unsigned aether_built_avformat_version(void) { return LIBAVFORMAT_VERSION_INT; }
static inline unsigned aether_built_avutil_version(void) { return LIBAVUTIL_VERSION_INT; }
static inline unsigned aether_built_swscale_version(void) { return LIBSWSCALE_VERSION_INT; }
static inline unsigned aether_built_swresample_version(void) { return LIBSWRESAMPLE_VERSION_INT; }

/* Function-like macros Swift cannot import, made callable. */
static inline int aether_AVERROR(int e) { return AVERROR(e); }
/* glibc's allocator: at most `n` arenas (each thread otherwise gets its own, up to 8 per core,
   and keeps what it freed), and giving freed memory back to the system. */
static inline int aether_malloc_arena_max(int n) { return mallopt(M_ARENA_MAX, n); }
static inline int aether_malloc_trim(void) { return malloc_trim(0); }
static inline int aether_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int aether_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int64_t aether_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline AVRational aether_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }
static inline int aether_AVERROR_EXIT(void) { return AVERROR_EXIT; }
static inline int aether_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }

/* The HTTP status class libavformat's http protocol reported in `code` (400, 401, 403, 404,
   499 for another 4xx, 500 for any 5xx), 0 when `code` is not an HTTP status error. */
static inline int aether_http_status_of(int code) {
    switch (code) {
    case AVERROR_HTTP_BAD_REQUEST: return 400;
    case AVERROR_HTTP_UNAUTHORIZED: return 401;
    case AVERROR_HTTP_FORBIDDEN: return 403;
    case AVERROR_HTTP_NOT_FOUND: return 404;
    case AVERROR_HTTP_OTHER_4XX: return 499;
    case AVERROR_HTTP_SERVER_ERROR: return 500;
    default: return 0;
    }
}

/* The code libavformat's http protocol gives an HTTP error status (the inverse of
   aether_http_status_of: another 4xx is AVERROR_HTTP_OTHER_4XX, any 5xx AVERROR_HTTP_SERVER_ERROR). */
static inline int aether_http_error(int status) {
    switch (status) {
    case 400: return AVERROR_HTTP_BAD_REQUEST;
    case 401: return AVERROR_HTTP_UNAUTHORIZED;
    case 403: return AVERROR_HTTP_FORBIDDEN;
    case 404: return AVERROR_HTTP_NOT_FOUND;
    default: return status >= 500 ? AVERROR_HTTP_SERVER_ERROR : AVERROR_HTTP_OTHER_4XX;
    }
}

/* av_strerror into a caller buffer (AV_ERROR_MAX_STRING_SIZE is 64). */
static inline void aether_strerror(int code, char *buf, size_t size) {
    if (av_strerror(code, buf, size) < 0) snprintf(buf, size, "Error number %d occurred", code);
}

/* Log routing: Swift cannot take FFmpeg's va_list callback, so the C side formats each line
   and hands the finished text to `sink`; NULL drops every line. The callback is installed when
   the program loads, before any FFmpeg call; FFmpeg's default logger (stderr) never runs. */
typedef void (*aether_log_sink)(int level, const char *line);
void aether_set_log_sink(aether_log_sink sink);

/* libavfilter is not linked: the first filter graph loads it (filter_loader.c). The headers
   above give its types; call it only through these. `aether_avfilter_load` loads it if need be
   and returns NULL, or why it cannot be loaded. */
const char *aether_avfilter_load(void);
AVFilterGraph *aether_avfilter_graph_alloc(void);
/* avfilter_get_by_name + avfilter_graph_create_filter. */
int aether_avfilter_graph_create_filter(AVFilterContext **ctx, const char *filter, const char *name,
                                        const char *args, AVFilterGraph *graph);
/* 1 when libavfilter has a filter of this name, else 0 (also when it cannot be loaded). */
int aether_avfilter_exists(const char *filter);
AVFilterInOut *aether_avfilter_inout_alloc(void);
void aether_avfilter_inout_free(AVFilterInOut **inout);
int aether_avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs,
                                    AVFilterInOut **outputs);
int aether_avfilter_graph_config(AVFilterGraph *graph);
void aether_avfilter_graph_free(AVFilterGraph **graph);
/* A command to the filter a description named `<filter>@target` in a configured graph (`eq3`,
   `g`, `4.5`): the biquads and `volume` take their parameters so, keeping their state (the
   equalizer's live changes). AVERROR_FILTER_NOT_FOUND when no filter has that name. */
int aether_avfilter_graph_send_command(AVFilterGraph *graph, const char *target, const char *cmd, const char *arg);
int aether_av_buffersrc_add_frame_flags(AVFilterContext *ctx, AVFrame *frame, int flags);
int aether_av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame);
AVRational aether_av_buffersink_get_time_base(const AVFilterContext *ctx);
/* xml_guard.c: the rule every DASH manifest passes before libxml2 parses it (libavformat's
   xmlReadMemory calls land there): 0 acceptable, 1 no bytes, 2 larger than 16 MiB, 3 a DOCTYPE
   or an entity declaration (refused outright: an MPD needs neither). */
int aether_xml_refusal(const char *buffer, int size);
#endif
