#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <wchar.h>
#include <fcntl.h>
#include <unistd.h>

#include "CSystem.h"

int aether_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;
static void make_utf8_locale(void) { utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0); }

int aether_wcwidth(unsigned int c) {
    pthread_once(&utf8_once, make_utf8_locale);
    if (utf8_locale == (locale_t)0) return -2;
    locale_t previous = uselocale(utf8_locale);
    int w = wcwidth((wchar_t)c);
    uselocale(previous);
    return w;
}
