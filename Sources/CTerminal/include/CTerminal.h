#ifndef AETHER_CTERMINAL_H
#define AETHER_CTERMINAL_H
#include <stddef.h>
#include "CrashReport.h"

/* Terminal restoration that works from any exit path, including a crash signal, where only
   async-signal-safe calls are allowed: the saved termios and a prepared byte string. */

/* Saves fd's current termios (call before ncurses changes anything) and opens the terminal's
   output for the restore bytes: /dev/tty (O_WRONLY | O_NOCTTY, non-blocking), else stdout or
   stderr if one is a tty. `fd` is often stdin and may be read-only (`< /dev/tty`), so the bytes
   never go to it. Returns 0, or -1 when fd has no termios. */
int aether_terminal_save(int fd);

/* The fd the restore bytes go to (-1: none found), for tests and diagnostics. */
int aether_terminal_output_fd(void);

/* Sets the bytes written on restore (leave alternate screen, show cursor, mouse off, SGR reset). */
void aether_terminal_set_restore_sequence(const char *bytes, size_t length);

/* Whether the terminal may be inside a sequence we sent (1: a write is under way, or one was
   cut short; 0: every write so far ended whole). While it may be, the restore starts with CAN
   and ST (closing a sixel's DCS, a kitty APC or an escape sequence, which would otherwise
   swallow the rest) and ends synchronized output; after whole writes it does not, as a stray
   ST and a ?2026l with no ?2026h open are parse errors to kitty. Async-signal-safe. */
void aether_terminal_set_write_open(int open);

/* Writes the restore sequence to the terminal's output (giving up after about a second if the
   terminal does not take it), discards unread input, and puts the saved termios back on the fd
   it came from. Safe in a signal handler. */
void aether_terminal_restore(void);

/* Gives the calling thread an alternate signal stack if it has none, so a crash handler can
   still run after a stack overflow (SIGSEGV on the guard page). Per thread: the crash handlers
   install one for the thread that calls them; other threads call this when they start (after
   the first call on a thread it costs a thread-local check). */
void aether_terminal_install_altstack(void);

/* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP: restore the terminal on the alternate
   signal stack, write the crash report when one is configured (CrashReport.h), run whatever
   handled the signal before (the Swift runtime's backtracer; its output goes into the report
   when there is one, else to the normal screen) unless told not to, then die of the signal with
   its default action, so the exit status and core dump stay truthful. One thread reports:
   another that crashes meanwhile waits for the process to end. Installs an alternate stack for
   the calling thread; calling it again changes nothing. */
void aether_terminal_install_crash_handlers(void);
/* A pipe for capturing a library's terminal output: close-on-exec, the read end non-blocking,
   as large as the system allows (up to `capacity` bytes). Returns 0 and fills fds, or -1. */
int aether_terminal_capture_pipe(int fds[2], int capacity);
#endif
