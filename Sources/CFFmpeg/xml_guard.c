/* libxml2 behind libavformat's DASH demuxer: every MPD it parses passes through here.
 *
 * libavformat's dashdec.c reads a manifest (the first one, and every refresh of a live one) into
 * memory and calls libxml2's xmlReadMemory on it, from whichever thread demuxes, with options 0:
 * a DOCTYPE's entities are declared and expanded on access (a "billion laughs" manifest grows
 * past gigabytes), and parse errors are printed by libxml2's default handler on stderr, which is
 * the terminal (the offending line, escape sequences and all).
 *
 * This program defines xmlReadMemory itself. The executable's definition comes first in the
 * dynamic linker's search order, so libavformat's call lands here (the linker exports it because
 * a shared library in the link, libavformat, refers to it). Here a manifest is refused (NULL, which
 * dashdec reports as "missing root node") when it is larger than AETHER_XML_MAX_BYTES or holds a
 * DOCTYPE or an entity declaration at all (an MPD needs neither, so nothing can expand); otherwise
 * the real function parses it with no entity substitution, no DTD loading, no network, and with
 * libxml2's error and warning output off. libxml2's per-thread error handlers are pointed at
 * FFmpeg's log (so at --log-file) on the parsing thread, and its defaults for new threads too.
 * Nothing is allocated here; libxml2 is reached through dlsym, so it is not a link dependency.
 */
#define _GNU_SOURCE
#include "CFFmpeg.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#define AETHER_XML_MAX_BYTES (16 << 20)

/* libxml2's xmlParserOption values (libxml/parser.h, stable since 2.6). */
enum {
    XML_OPT_RECOVER = 1 << 0, XML_OPT_NOENT = 1 << 1, XML_OPT_DTDLOAD = 1 << 2, XML_OPT_DTDATTR = 1 << 3,
    XML_OPT_DTDVALID = 1 << 4, XML_OPT_NOERROR = 1 << 5, XML_OPT_NOWARNING = 1 << 6,
    XML_OPT_XINCLUDE = 1 << 10, XML_OPT_NONET = 1 << 11, XML_OPT_HUGE = 1 << 19,
};

typedef void *(*read_memory_fn)(const char *, int, const char *, const char *, int);
typedef void (*generic_error_fn)(void *ctx, const char *msg, ...);
typedef void (*structured_error_fn)(void *ctx, void *error);
typedef void (*set_generic_fn)(void *ctx, generic_error_fn handler);
typedef void (*set_structured_fn)(void *ctx, structured_error_fn handler);

/* The head of libxml2's xmlError (libxml/xmlerror.h): domain, code, message. */
struct aether_xml_error_head {
    int domain;
    int code;
    char *message;
};

static read_memory_fn real_read_memory;
static set_generic_fn set_generic, thr_def_set_generic;
static set_structured_fn set_structured, thr_def_set_structured;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void aether_xml_generic(void *ctx, const char *msg, ...) {
    (void)ctx;
    char line[512];
    va_list ap;
    va_start(ap, msg);
    vsnprintf(line, sizeof line, msg, ap);
    va_end(ap);
    av_log(NULL, AV_LOG_WARNING, "libxml2: %s%s", line, strchr(line, '\n') ? "" : "\n");
}

static void aether_xml_structured(void *ctx, void *error) {
    (void)ctx;
    const struct aether_xml_error_head *e = error;
    const char *message = e && e->message ? e->message : "(no message)";
    av_log(NULL, AV_LOG_WARNING, "libxml2: %d/%d %.400s%s", e ? e->domain : 0, e ? e->code : 0, message,
           strchr(message, '\n') ? "" : "\n");
}

static void resolve(void) {
    real_read_memory = (read_memory_fn)dlsym(RTLD_NEXT, "xmlReadMemory");
    set_generic = (set_generic_fn)dlsym(RTLD_DEFAULT, "xmlSetGenericErrorFunc");
    set_structured = (set_structured_fn)dlsym(RTLD_DEFAULT, "xmlSetStructuredErrorFunc");
    thr_def_set_generic = (set_generic_fn)dlsym(RTLD_DEFAULT, "xmlThrDefSetGenericErrorFunc");
    thr_def_set_structured = (set_structured_fn)dlsym(RTLD_DEFAULT, "xmlThrDefSetStructuredErrorFunc");
    if (thr_def_set_generic) thr_def_set_generic(NULL, aether_xml_generic);
    if (thr_def_set_structured) thr_def_set_structured(NULL, aether_xml_structured);
}

/* Before main: libxml2's defaults for every thread point at the log from the start. */
__attribute__((constructor)) static void aether_xml_install(void) {
    pthread_once(&resolved, resolve);
    if (set_generic) set_generic(NULL, aether_xml_generic);
    if (set_structured) set_structured(NULL, aether_xml_structured);
}

static int contains(const char *buffer, int size, const char *needle) {
    size_t n = strlen(needle);
    return size >= 0 && (size_t)size >= n && memmem(buffer, (size_t)size, needle, n) != NULL;
}

int aether_xml_refusal(const char *buffer, int size) {
    if (!buffer || size < 0) return 1;
    if (size > AETHER_XML_MAX_BYTES) return 2;
    if (contains(buffer, size, "<!DOCTYPE") || contains(buffer, size, "<!ENTITY")) return 3;
    return 0;
}

__attribute__((visibility("default"), used))
void *xmlReadMemory(const char *buffer, int size, const char *url, const char *encoding, int options) {
    pthread_once(&resolved, resolve);
    /* This thread's handlers (libxml2 keeps them per thread; dashdec's xmlCleanupParser may have
       dropped this thread's state since the last manifest). */
    if (set_generic) set_generic(NULL, aether_xml_generic);
    if (set_structured) set_structured(NULL, aether_xml_structured);
    switch (aether_xml_refusal(buffer, size)) {
    case 0: break;
    case 2:
        av_log(NULL, AV_LOG_ERROR, "manifest refused: larger than %d MiB\n", AETHER_XML_MAX_BYTES >> 20);
        return NULL;
    case 3:
        av_log(NULL, AV_LOG_ERROR, "manifest refused: it has a DOCTYPE or declares XML entities\n");
        return NULL;
    default:
        return NULL;
    }
    if (!real_read_memory) return NULL;
    options &= ~(XML_OPT_NOENT | XML_OPT_DTDLOAD | XML_OPT_DTDATTR | XML_OPT_DTDVALID | XML_OPT_XINCLUDE | XML_OPT_HUGE);
    options |= XML_OPT_NONET | XML_OPT_NOERROR | XML_OPT_NOWARNING;
    return real_read_memory(buffer, size, url, encoding, options);
}
