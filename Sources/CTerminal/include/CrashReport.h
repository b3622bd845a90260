#ifndef AETHER_CRASH_REPORT_H
#define AETHER_CRASH_REPORT_H
#include <stddef.h>

/* The crash report: what CTerminal's crash handler writes, after restoring the terminal, into
   a new file of a directory, before it dies of the signal. Everything it holds is prepared
   beforehand in static memory, so that the handler only formats numbers and calls open,
   write, mkdir, clock_gettime, dup2 and close (and glibc's backtrace and dladdr for the frames,
   warmed up by aether_crash_report_configure: not on POSIX's list, but they neither allocate
   nor take a lock a crashed thread can hold, outside a crash inside the dynamic loader).

   The file, `crash-YYYYMMDD-HHMMSS-PID.txt` (UTC) in `directory` (made with its parents,
   mode 0700, at the crash), holds: the signal, how it came (sent by a process, or a fault at an
   address) and the time; `header` (the version and the options, as the caller wrote them);
   the item text (aether_crash_report_set_item); the crashing thread's frames, each as its
   module's file name and the offset in it; then what the handler that was there before ours
   writes on the standard error (the Swift runtime's backtracer), which is pointed at the
   report while it runs. Then `program crashed; report: PATH` goes to the standard error. */

/* Arms the report: `directory` (absolute), `program` (the one line's first word) and `header`
   are copied (a header longer than 16 KiB is cut). Call once, before any thread, before
   aether_terminal_install_crash_handlers. Returns 0, or -1 if the directory does not fit. */
int aether_crash_report_configure(const char *directory, const char *program, const char *header, size_t header_length);

/* What is playing, written into the report after the header (cut at 8 KiB). From any thread,
   one at a time; the handler reads the last copy completed. */
void aether_crash_report_set_item(const char *text, size_t length);

/* Whether the crash handler runs the handler that was in place before its own (default 1).
   0 when that one would ask the user something (the Swift backtracer's interactive mode). */
void aether_crash_report_run_previous_handler(int run);

/* 1 when something catches `sig` now (at start: the Swift runtime's backtracer, which it
   installs only when it found swift-backtrace), else 0. */
int aether_crash_report_signal_caught(int sig);
#endif
