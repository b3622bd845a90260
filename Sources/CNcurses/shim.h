#ifndef AETHER_CNCURSES_SHIM_H
#define AETHER_CNCURSES_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <ncursesw/curses.h>

/* Macros Swift cannot import, made callable. */
static inline int aether_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int aether_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline int aether_COLOR_PAIR(int n) { return COLOR_PAIR(n); }
static inline WINDOW *aether_stdscr(void) { return stdscr; }
static inline int aether_LINES(void) { return LINES; }
static inline int aether_COLS(void) { return COLS; }
#endif
