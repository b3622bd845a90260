#define _GNU_SOURCE
#include "CrashReport.h"
#include "crash_report_internal.h"
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Everything below is written before the crash (configure, set_item) and only read by the
   handler, which runs once (terminal.c lets one thread in). */
static atomic_int configured;
static char directory[4096];
static char program[64];
static char header[16384];
static size_t header_length;
static char items[2][8192];
static size_t item_lengths[2];
static atomic_int item_current = -1;       /* the copy to read; -1: none yet */
static volatile sig_atomic_t run_previous = 1;
/* The report's path, or the errno of the failure to make it (for the one line). */
static char path[4096 + 64];
static int failure;

int aether_crash_report_configure(const char *dir, const char *name, const char *text, size_t length) {
    size_t dl = strlen(dir), nl = strlen(name);
    if (dl == 0 || dir[0] != '/' || dl >= sizeof directory || nl >= sizeof program) return -1;
    memcpy(directory, dir, dl + 1);
    memcpy(program, name, nl + 1);
    if (length > sizeof header) length = sizeof header;
    memcpy(header, text, length);
    header_length = length;
    /* glibc loads libgcc_s for its unwinder on the first call: now, not in the handler. */
    void *warm[2];
    (void)backtrace(warm, 2);
    atomic_store(&configured, 1);
    return 0;
}

void aether_crash_report_set_item(const char *text, size_t length) {
    int next = atomic_load(&item_current) == 0 ? 1 : 0;
    if (length > sizeof items[next]) length = sizeof items[next];
    memcpy(items[next], text, length);
    item_lengths[next] = length;
    atomic_store_explicit(&item_current, next, memory_order_release);
}

void aether_crash_report_run_previous_handler(int run) { run_previous = run != 0; }

int crash_report_runs_previous(void) { return run_previous; }

int aether_crash_report_signal_caught(int sig) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) != 0) return 0;
    if (current.sa_flags & SA_SIGINFO) return current.sa_sigaction != NULL;
    return current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
}

/* ---- formatting without stdio ---- */

/* write(2) until done (EINTR retried); gives up on any other error. */
static void put(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        bytes += n;
        length -= (size_t)n;
    }
}

static void put_text(int fd, const char *text) { put(fd, text, strlen(text)); }

/* `value` in `base` (10 or 16), at least `width` digits, into `out`; returns its length. */
static size_t format_number(char *out, unsigned long value, unsigned base, size_t width) {
    char digits[32];
    size_t n = 0;
    do { digits[n++] = "0123456789abcdef"[value % base]; value /= base; } while (value > 0 && n < sizeof digits);
    while (n < width && n < sizeof digits) digits[n++] = '0';
    for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
    return n;
}

static void put_number(int fd, unsigned long value, unsigned base) {
    char text[32];
    put(fd, text, format_number(text, value, base, 1));
}

static void put_signed(int fd, long value) {
    if (value < 0) { put(fd, "-", 1); put_number(fd, (unsigned long)-value, 10); }
    else put_number(fd, (unsigned long)value, 10);
}

static void put_hex(int fd, unsigned long value) { put(fd, "0x", 2); put_number(fd, value, 16); }

/* Appends `text` to `out` (capacity `room`) at `*at`; false when it does not fit. */
static int append(char *out, size_t room, size_t *at, const char *text, size_t length) {
    if (*at + length >= room) return 0;
    memcpy(out + *at, text, length);
    *at += length;
    out[*at] = 0;
    return 1;
}

/* The civil date of a day count since 1970-01-01 (Howard Hinnant's days_from_civil, inverted). */
static void civil(long days, long *year, unsigned *month, unsigned *day) {
    days += 719468;
    long era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *day = doy - (153 * mp + 2) / 5 + 1;
    *month = mp < 10 ? mp + 3 : mp - 9;
    *year = (long)yoe + era * 400 + (*month <= 2);
}

/* `YYYYMMDD-HHMMSS` (sep 0) or `YYYY-MM-DD HH:MM:SS` (sep 1) of `seconds` since the epoch, UTC. */
static size_t format_time(char *out, long seconds, int readable) {
    long year;
    unsigned month, day;
    long days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
    long rest = seconds - days * 86400;
    civil(days, &year, &month, &day);
    size_t n = format_number(out, (unsigned long)(year < 0 ? 0 : year), 10, 4);
    if (readable) out[n++] = '-';
    n += format_number(out + n, month, 10, 2);
    if (readable) out[n++] = '-';
    n += format_number(out + n, day, 10, 2);
    out[n++] = readable ? ' ' : '-';
    n += format_number(out + n, (unsigned long)(rest / 3600), 10, 2);
    if (readable) out[n++] = ':';
    n += format_number(out + n, (unsigned long)(rest / 60 % 60), 10, 2);
    if (readable) out[n++] = ':';
    n += format_number(out + n, (unsigned long)(rest % 60), 10, 2);
    return n;
}

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic fault)";
    case SIGABRT: return "SIGABRT (abort)";
    case SIGTRAP: return "SIGTRAP (trap)";
    default: return "a signal";
    }
}

/* ---- the report ---- */

/* mkdir -p of `directory`, mode 0700 for what it makes. */
static void make_directories(void) {
    static char partial[sizeof directory];
    size_t length = strlen(directory);
    memcpy(partial, directory, length + 1);
    for (size_t i = 1; i <= length; i++) {
        if (partial[i] != '/' && partial[i] != 0) continue;
        char kept = partial[i];
        partial[i] = 0;
        (void)mkdir(partial, 0700);
        partial[i] = kept;
    }
}

/* `how` the signal came: a fault the kernel raised at an address, or sent by a process. */
static void put_cause(int fd, int sig, const siginfo_t *info) {
    put_text(fd, signal_name(sig));
    put_text(fd, ", signal ");
    put_number(fd, (unsigned long)sig, 10);
    if (info == NULL) return;
    if (info->si_code > 0 && sig != SIGTRAP) {
        put_text(fd, ", a fault at address ");
        put_hex(fd, (unsigned long)info->si_addr);
        put_text(fd, " (code ");
        put_signed(fd, info->si_code);
        put_text(fd, ")");
    } else if (info->si_code <= 0) {
        if (info->si_pid == getpid()) put_text(fd, ", raised by the process itself (abort, a failed check)");
        else { put_text(fd, ", sent by process "); put_signed(fd, info->si_pid); }
    }
}

/* The crashing thread's frames as glibc's unwinder sees them (this handler's own come first). */
static void put_frames(int fd) {
    void *frames[64];
    int count = backtrace(frames, 64);
    put_text(fd, "\nThe crashing thread's frames (module+offset: addr2line -f -C -e MODULE OFFSET names the line;\n"
                 "a packaged aether-tui is stripped: install aether-tui-dbgsym, whose debug file addr2line\n"
                 "finds by the binary's build ID, or give it -e /usr/lib/debug/.build-id/XX/REST.debug;\n"
                 "the first ones are the crash handler's):\n");
    for (int i = 0; i < count; i++) {
        put_text(fd, i < 10 ? "  #0" : "  #");
        put_number(fd, (unsigned long)i, 10);
        put_text(fd, "  ");
        put_hex(fd, (unsigned long)frames[i]);
        Dl_info where;
        if (dladdr(frames[i], &where) != 0 && where.dli_fname != NULL) {
            const char *name = strrchr(where.dli_fname, '/');
            put_text(fd, "  ");
            put_text(fd, name ? name + 1 : where.dli_fname);
            put_text(fd, "+");
            put_hex(fd, (unsigned long)((char *)frames[i] - (char *)where.dli_fbase));
            if (where.dli_sname != NULL) {
                put_text(fd, "  ");
                put_text(fd, where.dli_sname);
                put_text(fd, "+");
                put_hex(fd, (unsigned long)((char *)frames[i] - (char *)where.dli_saddr));
            }
        }
        put_text(fd, "\n");
    }
}

int crash_report_begin(int sig, const siginfo_t *info) {
    if (!atomic_load(&configured)) return -1;
    struct timespec now = { 0, 0 };
    clock_gettime(CLOCK_REALTIME, &now);
    make_directories();
    char stamp[32], number[32];
    size_t at = 0;
    path[0] = 0;
    int fits = append(path, sizeof path, &at, directory, strlen(directory))
        && append(path, sizeof path, &at, "/crash-", 7)
        && append(path, sizeof path, &at, stamp, format_time(stamp, (long)now.tv_sec, 0))
        && append(path, sizeof path, &at, "-", 1)
        && append(path, sizeof path, &at, number, format_number(number, (unsigned long)getpid(), 10, 1))
        && append(path, sizeof path, &at, ".txt", 4);
    int fd = fits ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    if (fd < 0) { failure = fits ? errno : ENAMETOOLONG; return -1; }
    put_text(fd, program);
    put_text(fd, " crashed: ");
    put_cause(fd, sig, info);
    put_text(fd, "\nat ");
    put(fd, stamp, format_time(stamp, (long)now.tv_sec, 1));
    put_text(fd, " UTC, process ");
    put_number(fd, (unsigned long)getpid(), 10);
    put_text(fd, "\n\n");
    put(fd, header, header_length);
    int item = atomic_load_explicit(&item_current, memory_order_acquire);
    if (item >= 0) { put_text(fd, "\n"); put(fd, items[item], item_lengths[item]); }
    put_frames(fd);
    return fd;
}

int crash_report_redirect(int report) {
    if (report < 0) return -1;
    put_text(report, "\nThe handler that was in place before ours (the Swift runtime's backtracer):\n");
    int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0) return -1;
    if (dup2(report, STDERR_FILENO) < 0) { close(saved); return -1; }
    return saved;
}

void crash_report_finish(int report, int saved_stderr) {
    if (saved_stderr >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
    }
    if (!atomic_load(&configured)) return;
    /* One write, so that the line is not torn by another thread's output. */
    static char line[sizeof path + 256];
    size_t at = 0;
    char number[32];
    append(line, sizeof line, &at, program, strlen(program));
    if (report >= 0) {
        close(report);
        append(line, sizeof line, &at, " crashed; report: ", 18);
        append(line, sizeof line, &at, path, strlen(path));
    } else {
        append(line, sizeof line, &at, " crashed; no report: cannot write in ", 37);
        append(line, sizeof line, &at, directory, strlen(directory));
        append(line, sizeof line, &at, " (errno ", 8);
        append(line, sizeof line, &at, number, format_number(number, (unsigned long)failure, 10, 1));
        append(line, sizeof line, &at, ")", 1);
    }
    append(line, sizeof line, &at, "\n", 1);
    put(STDERR_FILENO, line, at);
}
