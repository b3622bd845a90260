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
AVFilterInOut *aether_avfilter_inout_alloc(void);
void aether_avfilter_inout_free(AVFilterInOut **inout);
int aether_avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs,
                                    AVFilterInOut **outputs);
int aether_avfilter_graph_config(AVFilterGraph *graph);
void aether_avfilter_graph_free(AVFilterGraph **graph);
int aether_av_buffersrc_add_frame_flags(AVFilterContext *ctx, AVFrame *frame, int flags);
int aether_av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame);
AVRational aether_av_buffersink_get_time_base(const AVFilterContext *ctx);
/* xml_guard.c: the rule every DASH manifest passes before libxml2 parses it (libavformat's
   xmlReadMemory calls land there): 0 acceptable, 1 no bytes, 2 larger than 16 MiB, 3 a DOCTYPE
   or an entity declaration (refused outright: an MPD needs neither). */
int aether_xml_refusal(const char *buffer, int size);
#endif
