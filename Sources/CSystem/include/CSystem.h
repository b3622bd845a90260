#ifndef AETHER_CSYSTEM_H
#define AETHER_CSYSTEM_H

/* System calls Swift's Glibc module does not declare (it is built without _GNU_SOURCE). */

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no child another thread
   starts meanwhile inherits one. Returns 0, or -1 with errno set. */
int aether_pipe_cloexec(int fds[2]);

/* The columns a terminal gives the Unicode scalar `c`: glibc's wcwidth(3) in the C.UTF-8
   locale (Unicode's East Asian Width, zero for combining marks and format characters),
   whatever the process's own locale is. -1 where wcwidth has no width (a control, an
   unassigned scalar); -2 when C.UTF-8 cannot be made. Thread-safe (the locale is made once
   and set per call on the calling thread only). */
int aether_wcwidth(unsigned int c);

#endif
