#ifndef AETHER_CLIBASS_SHIM_H
#define AETHER_CLIBASS_SHIM_H
#include <ass/ass.h>
#include <stdio.h>

/* libass prints its messages on stderr (the terminal) unless a callback is set, and the
   callback takes a va_list, which Swift cannot format: this formats the line here and hands it
   to `sink` (a Swift function), passed as the callback's data pointer. */
typedef void (*aether_ass_sink)(int level, const char *line);

static inline void aether_ass_message(int level, const char *fmt, va_list args, void *data) {
    aether_ass_sink sink = (aether_ass_sink)data;
    if (!sink) return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, args);
    sink(level, line);
}

/* Routes `library`'s messages to `sink`; with a NULL sink they are dropped (never printed). */
static inline void aether_ass_set_message_sink(ASS_Library *library, aether_ass_sink sink) {
    ass_set_message_cb(library, aether_ass_message, (void *)sink);
}
#endif
