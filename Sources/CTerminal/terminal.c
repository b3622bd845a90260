#define _GNU_SOURCE
#include "CTerminal.h"
#include "crash_report_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static int saved_fd = -1;   /* where the termios came from (stdin; may be read-only) */
static int output_fd = -1;  /* where the restore bytes go: the terminal's output */
static char restore_bytes[256];
static size_t restore_length;
/* A write to the terminal is under way or was cut short (aether_terminal_set_write_open). */
static volatile sig_atomic_t write_open;
/* What closes whatever a cut write left open: CAN, ST, synchronized output off. */
static const char closer_bytes[] = "\x18\x1b\\\x1b[?2026l";

/* Handlers that were in place before ours, by signal number. */
#define MAX_SIGNAL 65
static struct sigaction previous[MAX_SIGNAL];

int aether_terminal_save(int fd) {
    if (tcgetattr(fd, &saved) != 0) return -1;
    saved_fd = fd;
    if (output_fd < 0) {
        /* Non-blocking: a stalled terminal (Ctrl-S, a dead ssh link) must not hang a crash. */
        output_fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (output_fd < 0) {
            if (isatty(STDOUT_FILENO)) output_fd = STDOUT_FILENO;
            else if (isatty(STDERR_FILENO)) output_fd = STDERR_FILENO;
        }
    }
    return 0;
}

int aether_terminal_output_fd(void) { return output_fd; }

void aether_terminal_set_write_open(int open) { write_open = open ? 1 : 0; }

void aether_terminal_set_restore_sequence(const char *bytes, size_t length) {
    if (length > sizeof restore_bytes) length = sizeof restore_bytes;
    memcpy(restore_bytes, bytes, length);
    restore_length = length;
}

/* write(2) until done; waits for room at most ~1 s in all (async-signal-safe: poll, write). */
static void write_all(int fd, const char *bytes, size_t length) {
    size_t off = 0;
    int waits = 0;
    while (off < length) {
        ssize_t n = write(fd, bytes + off, length - off);
        if (n > 0) { off += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits++ < 10) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, 100);
            continue;
        }
        return;
    }
}

void aether_terminal_restore(void) {
    if (saved_fd < 0) return;
    int saved_errno = errno;
    if (output_fd >= 0 && write_open) write_all(output_fd, closer_bytes, sizeof closer_bytes - 1);
    if (output_fd >= 0) write_all(output_fd, restore_bytes, restore_length);
    /* TCSANOW, not TCSAFLUSH: waiting for the output to drain could hang on a stalled
       terminal. Unread input (keys, late terminal replies) is dropped so the shell does not
       receive it. */
    /* From the background (job control), SIGTTOU would stop the process or, when a handler
       catches it, restart the call for ever: blocked, the calls just proceed. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTTOU);
    sigaddset(&block, SIGTTIN);
    sigprocmask(SIG_BLOCK, &block, &old);
    tcflush(saved_fd, TCIFLUSH);
    tcsetattr(saved_fd, TCSANOW, &saved);
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = saved_errno;
}

void aether_terminal_install_altstack(void) {
    static __thread int done;
    if (done) return;
    done = 1;
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE) && current.ss_sp != NULL) return;
    /* Enough for the handler (a few syscalls) and the Swift backtracer's own handler after it. */
    size_t size = 256 * 1024;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) return;
    stack_t ss = { .ss_sp = stack, .ss_size = size, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) != 0) munmap(stack, size);
}

/* The default action of `sig`: the process dies of it (a truthful exit status and core dump).
   A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE from the kernel) returns to the faulting
   instruction, which faults again. A signal that was sent (kill, raise, abort), or a trap that
   would continue past its instruction, is sent again: it is blocked here, so it arrives as the
   handler returns. */
static void default_action(int sig, const siginfo_t *info) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (info == NULL || info->si_code <= 0 || sig == SIGTRAP || sig == SIGABRT) raise(sig);
}

/* The thread handling a crash (0: none): one report, whichever threads crash. */
static _Atomic pid_t handling_thread;

static void crash_handler(int sig, siginfo_t *info, void *context) {
    pid_t self = (pid_t)syscall(SYS_gettid), none = 0;
    if (!atomic_compare_exchange_strong(&handling_thread, &none, self)) {
        /* Another signal on this thread, from inside the handler: die of it now. Another
           thread's crash: the first one ends the process. */
        if (none == self) { default_action(sig, info); return; }
        for (;;) pause();
    }
    aether_terminal_restore();
    /* The report's own part (the signal, the version, the options, the item, the frames). */
    int report = crash_report_begin(sig, info);
    /* Whatever handled the signal before us (the Swift runtime's backtracer) runs now, on the
       normal screen, with the true siginfo and context, writing into the report. It may
       return: for a signal that was sent (kill -SEGV) the backtracer does, and the process
       would carry on. */
    struct sigaction prev = previous[sig];
    int has_previous = (prev.sa_flags & SA_SIGINFO) ? prev.sa_sigaction != NULL
                                                    : prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN;
    int saved_stderr = -1;
    if (has_previous && crash_report_runs_previous()) {
        saved_stderr = crash_report_redirect(report);
        /* The signal mask the kernel would have given it. The backtracer's memory reader (a
           thread it starts, which inherits this mask) relies on catching SIGSEGV: blocked, as
           it is in this handler, a fault there would kill the process at once. */
        sigset_t mask = prev.sa_mask, old;
        if (!(prev.sa_flags & SA_NODEFER)) sigaddset(&mask, sig);
        else sigdelset(&mask, sig);
        sigprocmask(SIG_SETMASK, &mask, &old);
        if (prev.sa_flags & SA_SIGINFO) prev.sa_sigaction(sig, info, context);
        else prev.sa_handler(sig);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    crash_report_finish(report, saved_stderr);
    default_action(sig, info);
}

void aether_terminal_install_crash_handlers(void) {
    aether_terminal_install_altstack();
    int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        int sig = signals[i];
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = crash_handler;
        sigemptyset(&sa.sa_mask);
        /* SA_RESETHAND: a fault inside the handler itself kills with the default action. */
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
        struct sigaction old;
        if (sigaction(sig, &sa, &old) == 0 && old.sa_sigaction != crash_handler) previous[sig] = old;
    }
}

int aether_terminal_capture_pipe(int fds[2], int capacity) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    (void)fcntl(fds[0], F_SETPIPE_SZ, capacity);
    (void)fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    return 0;
}
