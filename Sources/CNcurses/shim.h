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
static inline int aether_COLOR_PAIR(int n) { return (int)COLOR_PAIR(n); }
static inline WINDOW *aether_stdscr(void) { return stdscr; }
static inline int aether_LINES(void) { return LINES; }
static inline int aether_COLS(void) { return COLS; }
static inline int aether_COLORS(void) { return COLORS; }
static inline int aether_COLOR_PAIRS(void) { return COLOR_PAIRS; }
static inline attr_t aether_A_BOLD(void) { return A_BOLD; }
static inline attr_t aether_A_DIM(void) { return A_DIM; }
static inline attr_t aether_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t aether_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t aether_A_ITALIC(void) { return A_ITALIC; }
static inline int aether_KEY_F(int n) { return KEY_F(n); }
/* The terminfo entry has a mouse (a kmous string): the terminal reports the mouse. */
static inline int aether_terminfo_has_mouse(void) {
    char *s = tigetstr("kmous");
    return s != NULL && s != (char *)-1 && s[0] != 0;
}
/* Draws a UTF-8 string at y,x with attributes and colour pair (waddnstr handles multibyte). */
static inline int aether_put(int y, int x, const char *s, attr_t attrs, int pair, int n) {
    attr_set(attrs, (short)pair, NULL);
    return mvaddnstr(y, x, s, n);
}
#endif
