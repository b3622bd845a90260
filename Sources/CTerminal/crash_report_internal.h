#ifndef AETHER_CRASH_REPORT_INTERNAL_H
#define AETHER_CRASH_REPORT_INTERNAL_H
#include <signal.h>

/* The crash handler's side of the report (terminal.c); async-signal-safe as CrashReport.h says. */

/* Makes the report's file and writes the signal, the header, the item and the crashing
   thread's frames. Returns its fd, or -1: not configured, or the file could not be made (the
   reason is said on the standard error by crash_report_finish). */
int crash_report_begin(int sig, const siginfo_t *info);

/* Whether the previous handler is to run (aether_crash_report_run_previous_handler). */
int crash_report_runs_previous(void);

/* Before the previous handler runs: a heading in the report, and the standard error pointed at
   it. Returns the standard error's copy for crash_report_finish (-1: none). */
int crash_report_redirect(int report);

/* Puts the standard error back (`saved_stderr`), closes the report and says where it is. */
void crash_report_finish(int report, int saved_stderr);
#endif
