#include "CFFmpeg.h"
#include <stdatomic.h>

static _Atomic(aether_log_sink) current_sink = NULL;

static void aether_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    aether_log_sink sink = atomic_load(&current_sink);
    if (!sink || level > av_log_get_level()) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    sink(level, line);
}

/* Runs when the program is loaded, before main and so before any FFmpeg call (a probe, a
   headless run, a test): FFmpeg's default logger prints on stderr, which is the terminal, and
   must never run. Until a sink is set, every line is dropped. */
__attribute__((constructor)) static void aether_log_install(void) {
    av_log_set_callback(aether_log_callback);
}

void aether_set_log_sink(aether_log_sink sink) {
    atomic_store(&current_sink, sink);
    av_log_set_callback(aether_log_callback);
}
