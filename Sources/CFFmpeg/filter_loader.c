/* libavfilter, loaded on first use.

   Debian's libavfilter depends on about thirty libraries the rest of FFmpeg does not (flite and
   its voices, librsvg, libplacebo, …); linking it costs every process about 12 MB of resident
   memory before the first frame, although only interlaced sources, HDR tone mapping, a speed
   other than 1 and burnt-in text subtitles build a filter graph. So the player does not link
   it: the first graph opens it with dlopen and resolves the handful of functions it uses. */
#include "CFFmpeg.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define AETHER_STR2(x) #x
#define AETHER_STR(x) AETHER_STR2(x)

static struct {
    const AVFilter *(*get_by_name)(const char *);
    AVFilterGraph *(*graph_alloc)(void);
    int (*graph_create_filter)(AVFilterContext **, const AVFilter *, const char *, const char *, void *, AVFilterGraph *);
    AVFilterInOut *(*inout_alloc)(void);
    void (*inout_free)(AVFilterInOut **);
    int (*graph_parse_ptr)(AVFilterGraph *, const char *, AVFilterInOut **, AVFilterInOut **, void *);
    int (*graph_config)(AVFilterGraph *, void *);
    void (*graph_free)(AVFilterGraph **);
    int (*buffersrc_add_frame_flags)(AVFilterContext *, AVFrame *, int);
    int (*buffersink_get_frame)(AVFilterContext *, AVFrame *);
    AVRational (*buffersink_get_time_base)(const AVFilterContext *);
    int (*graph_send_command)(AVFilterGraph *, const char *, const char *, const char *, char *, int, int);
} api;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;

static void load(void) {
    const char *soname = "libavfilter.so." AETHER_STR(LIBAVFILTER_VERSION_MAJOR);
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", soname, dlerror());
        return;
    }
#define RESOLVE(field, symbol) \
    if (!(*(void **)&api.field = dlsym(lib, #symbol))) { \
        snprintf(load_error, sizeof load_error, "%s has no %s", soname, #symbol); \
        return; \
    }
    RESOLVE(get_by_name, avfilter_get_by_name)
    RESOLVE(graph_alloc, avfilter_graph_alloc)
    RESOLVE(graph_create_filter, avfilter_graph_create_filter)
    RESOLVE(inout_alloc, avfilter_inout_alloc)
    RESOLVE(inout_free, avfilter_inout_free)
    RESOLVE(graph_parse_ptr, avfilter_graph_parse_ptr)
    RESOLVE(graph_config, avfilter_graph_config)
    RESOLVE(graph_free, avfilter_graph_free)
    RESOLVE(buffersrc_add_frame_flags, av_buffersrc_add_frame_flags)
    RESOLVE(buffersink_get_frame, av_buffersink_get_frame)
    RESOLVE(buffersink_get_time_base, av_buffersink_get_time_base)
    RESOLVE(graph_send_command, avfilter_graph_send_command)
#undef RESOLVE
    loaded = 1;   /* the library stays loaded for the life of the process */
}

const char *aether_avfilter_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}

static int aether_avfilter_is_loaded(void) {
    pthread_once(&once, load);
    return loaded;
}

AVFilterGraph *aether_avfilter_graph_alloc(void) {
    return aether_avfilter_is_loaded() ? api.graph_alloc() : NULL;
}

int aether_avfilter_graph_create_filter(AVFilterContext **ctx, const char *filter, const char *name,
                                        const char *args, AVFilterGraph *graph) {
    if (!aether_avfilter_is_loaded()) return AVERROR(ENOSYS);
    const AVFilter *f = api.get_by_name(filter);
    if (!f) return AVERROR_FILTER_NOT_FOUND;
    return api.graph_create_filter(ctx, f, name, args, NULL, graph);
}

int aether_avfilter_exists(const char *filter) {
    return aether_avfilter_is_loaded() && api.get_by_name(filter) != NULL;
}

AVFilterInOut *aether_avfilter_inout_alloc(void) {
    return aether_avfilter_is_loaded() ? api.inout_alloc() : NULL;
}

void aether_avfilter_inout_free(AVFilterInOut **inout) {
    if (loaded) api.inout_free(inout);
}

int aether_avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs,
                                    AVFilterInOut **outputs) {
    return aether_avfilter_is_loaded() ? api.graph_parse_ptr(graph, filters, inputs, outputs, NULL) : AVERROR(ENOSYS);
}

int aether_avfilter_graph_config(AVFilterGraph *graph) {
    return aether_avfilter_is_loaded() ? api.graph_config(graph, NULL) : AVERROR(ENOSYS);
}

void aether_avfilter_graph_free(AVFilterGraph **graph) {
    if (loaded) api.graph_free(graph);
}

int aether_av_buffersrc_add_frame_flags(AVFilterContext *ctx, AVFrame *frame, int flags) {
    return loaded ? api.buffersrc_add_frame_flags(ctx, frame, flags) : AVERROR(ENOSYS);
}

int aether_av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame) {
    return loaded ? api.buffersink_get_frame(ctx, frame) : AVERROR(ENOSYS);
}

int aether_avfilter_graph_send_command(AVFilterGraph *graph, const char *target, const char *cmd, const char *arg) {
    if (!loaded) return AVERROR(ENOSYS);
    /* A filter the description named `<filter>@<target>` is called that in the graph (FFmpeg 5.1
       to 9; graph_send_command matches a name, or every filter of a kind): the one whose name
       ends in "@<target>" is meant. */
    size_t want = strlen(target);
    for (unsigned i = 0; i < graph->nb_filters; i++) {
        const char *name = graph->filters[i]->name;
        size_t have = name ? strlen(name) : 0;
        if (have > want && name[have - want - 1] == '@' && strcmp(name + have - want, target) == 0) {
            char answer[64] = {0};
            return api.graph_send_command(graph, name, cmd, arg, answer, (int)sizeof answer, 0);
        }
    }
    return AVERROR_FILTER_NOT_FOUND;
}

AVRational aether_av_buffersink_get_time_base(const AVFilterContext *ctx) {
    return loaded ? api.buffersink_get_time_base(ctx) : (AVRational){0, 1};
}
