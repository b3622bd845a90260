#include "CTerminal.h"
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static int saved_fd = -1;
static char restore_bytes[256];
static size_t restore_length;

int aether_terminal_save(int fd) {
    if (tcgetattr(fd, &saved) != 0) return -1;
    saved_fd = fd;
    return 0;
}

void aether_terminal_set_restore_sequence(const char *bytes, size_t length) {
    if (length > sizeof restore_bytes) length = sizeof restore_bytes;
    memcpy(restore_bytes, bytes, length);
    restore_length = length;
}

void aether_terminal_restore(void) {
    if (saved_fd < 0) return;
    size_t off = 0;
    while (off < restore_length) {
        ssize_t n = write(saved_fd, restore_bytes + off, restore_length - off);
        if (n <= 0) break;
        off += (size_t)n;
    }
    tcsetattr(saved_fd, TCSAFLUSH, &saved);
}

static void crash_handler(int sig) {
    aether_terminal_restore();
    signal(sig, SIG_DFL);
    raise(sig);
}

void aether_terminal_install_crash_handlers(void) {
    int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = crash_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &sa, NULL);
    }
}
