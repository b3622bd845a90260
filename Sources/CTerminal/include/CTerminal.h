#ifndef AETHER_CTERMINAL_H
#define AETHER_CTERMINAL_H
#include <stddef.h>

/* Terminal restoration that works from any exit path, including a crash signal, where only
   async-signal-safe calls are allowed: the saved termios and a prepared byte string. */

/* Saves fd's current termios (call before ncurses changes anything). Returns 0 or -1. */
int aether_terminal_save(int fd);

/* Sets the bytes written on restore (leave alternate screen, show cursor, mouse off, SGR reset). */
void aether_terminal_set_restore_sequence(const char *bytes, size_t length);

/* Writes the restore sequence and puts the saved termios back. Safe in a signal handler. */
void aether_terminal_restore(void);

/* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP: restore the terminal, then die of the
   same signal with its default action (so the exit status and core dump stay truthful). */
void aether_terminal_install_crash_handlers(void);
#endif
