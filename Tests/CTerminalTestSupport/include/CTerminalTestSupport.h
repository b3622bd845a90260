#ifndef AETHER_CTERMINAL_TEST_SUPPORT_H
#define AETHER_CTERMINAL_TEST_SUPPORT_H
#include <stddef.h>

/* How the child in aether_crash_in_pty dies. */
enum aether_crash {
    AETHER_CRASH_STACK_OVERFLOW = 0, /* unbounded recursion: SIGSEGV on the stack guard page */
    AETHER_CRASH_NULL_WRITE = 1,     /* a store through a null pointer: SIGSEGV from the kernel */
    AETHER_CRASH_KILL_SEGV = 2,      /* kill(getpid(), SIGSEGV), as `kill -SEGV` sends it */
    AETHER_CRASH_ABORT = 3,          /* abort(): SIGABRT */
};

/* What the terminal saw. */
struct aether_crash_result {
    int term_signal;           /* the signal the child died of (0 if it exited) */
    int exit_status;           /* its exit status if it exited */
    int echo_and_icanon;       /* the pty's termios has ECHO and ICANON again afterwards */
    size_t length;             /* bytes the terminal received (up to the capacity given) */
};

/* Forks a child on a fresh pty, with stdin the pty opened read-only (`< /dev/tty`) and stdout and
   stderr the pty opened write-only; the child saves the terminal from stdin, arms CTerminal's
   crash handlers with `restore` as the restore sequence (it exits 93 if CTerminal chose no
   output fd, or stdin, for the restore bytes), turns off ECHO and ICANON, writes
   `enter` (e.g. "ESC[?1049h"), then crashes as `how` says. With `previous_handler`, a handler
   that writes "PREVIOUS" to stderr and returns (as the Swift backtracer does for a sent signal)
   is installed before CTerminal's. The parent collects everything the
   child wrote to the terminal into `output`. Returns 0, or -1 if the pty or fork failed. */
int aether_crash_in_pty(int how, int previous_handler, const char *enter, const char *restore,
                        unsigned char *output, size_t capacity, struct aether_crash_result *result);

/* aether_crash_in_pty, with the child's crash report (CrashReport.h) armed to write into
   `report_directory` (NULL: none) for the program "crashtest", with the header
   "HEADER-MARKER\n" and the item "playing: ITEM-MARKER\n". */
int aether_crash_in_pty_reporting(int how, int previous_handler, const char *enter, const char *restore,
                                  const char *report_directory,
                                  unsigned char *output, size_t capacity, struct aether_crash_result *result);
#endif
