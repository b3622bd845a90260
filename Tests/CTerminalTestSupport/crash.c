#define _GNU_SOURCE
#include "CTerminalTestSupport.h"
#include "CTerminal.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Recurses without end; the volatile frame keeps the compiler from turning it into a loop. */
static int __attribute__((noinline)) recurse(int depth) {
    volatile char frame[1024];
    frame[depth % sizeof frame] = (char)depth;
    return recurse(depth + 1) + frame[0];
}

static void previous(int sig, siginfo_t *info, void *context) {
    (void)sig; (void)info; (void)context;
    (void)!write(2, "PREVIOUS", 8);
}

static void child(const char *slave, int how, int previous_handler, const char *enter, const char *restore,
                  const char *report_directory) {
    setsid();
    int ctty = open(slave, O_RDWR);            /* the first tty opened becomes the controlling tty */
    if (ctty < 0) _exit(90);
    ioctl(ctty, TIOCSCTTY, 0);
    int in = open(slave, O_RDONLY), out = open(slave, O_WRONLY);
    if (in < 0 || out < 0) _exit(91);
    dup2(in, 0); dup2(out, 1); dup2(out, 2);
    close(in); close(out); close(ctty);
    /* Whatever the test runner handled (the Swift backtracer) is not ours to run. */
    int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
    if (previous_handler) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = previous;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &sa, NULL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (aether_terminal_save(0) != 0) _exit(92);
    int target = aether_terminal_output_fd();
    if (target == 0 || target < 0) _exit(93);
    aether_terminal_set_restore_sequence(restore, strlen(restore));
    if (report_directory != NULL) {
        const char *header = "HEADER-MARKER\n", *item = "playing: ITEM-MARKER\n";
        if (aether_crash_report_configure(report_directory, "crashtest", header, strlen(header)) != 0) _exit(95);
        aether_crash_report_set_item("playing: stale\n", 15);
        aether_crash_report_set_item(item, strlen(item));
    }
    aether_terminal_install_crash_handlers();
    struct termios raw;
    tcgetattr(0, &raw);
    raw.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
    tcsetattr(0, TCSANOW, &raw);
    (void)!write(1, enter, strlen(enter));
    switch (how) {
    case AETHER_CRASH_STACK_OVERFLOW: recurse(0); break;
    case AETHER_CRASH_NULL_WRITE: { volatile int *p = NULL; *p = 1; break; }
    case AETHER_CRASH_KILL_SEGV: kill(getpid(), SIGSEGV); break;
    case AETHER_CRASH_ABORT: abort();
    }
    _exit(94);
}

int aether_crash_in_pty(int how, int previous_handler, const char *enter, const char *restore,
                        unsigned char *output, size_t capacity, struct aether_crash_result *result) {
    return aether_crash_in_pty_reporting(how, previous_handler, enter, restore, NULL, output, capacity, result);
}

int aether_crash_in_pty_reporting(int how, int previous_handler, const char *enter, const char *restore,
                                  const char *report_directory,
                                  unsigned char *output, size_t capacity, struct aether_crash_result *result) {
    memset(result, 0, sizeof *result);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return -1;
    char slave[128];
    if (ptsname_r(master, slave, sizeof slave) != 0) { close(master); return -1; }
    /* Kept open by the parent so the pty's termios can be read after the child is gone. */
    int probe = open(slave, O_RDWR | O_NOCTTY);
    if (probe < 0) { close(master); return -1; }
    pid_t pid = fork();
    if (pid < 0) { close(probe); close(master); return -1; }
    if (pid == 0) { close(master); close(probe); child(slave, how, previous_handler, enter, restore, report_directory); }

    int status = 0;
    int done = 0;
    for (int rounds = 0; rounds < 1000; rounds++) {      /* at most ~10 s */
        struct pollfd p = { .fd = master, .events = POLLIN };
        if (poll(&p, 1, 10) > 0) {
            unsigned char chunk[4096];
            ssize_t n = read(master, chunk, sizeof chunk);
            if (n > 0) {
                size_t room = capacity - result->length;
                size_t take = (size_t)n < room ? (size_t)n : room;
                memcpy(output + result->length, chunk, take);
                result->length += take;
                continue;
            }
        }
        if (done) break;                                  /* one more drain after the exit */
        if (waitpid(pid, &status, WNOHANG) == pid) done = 1;
    }
    if (!done) { kill(pid, SIGKILL); waitpid(pid, &status, 0); }
    if (WIFSIGNALED(status)) result->term_signal = WTERMSIG(status);
    else if (WIFEXITED(status)) result->exit_status = WEXITSTATUS(status);
    struct termios after;
    if (tcgetattr(probe, &after) == 0)
        result->echo_and_icanon = (after.c_lflag & ECHO) && (after.c_lflag & ICANON);
    close(probe);
    close(master);
    return 0;
}
