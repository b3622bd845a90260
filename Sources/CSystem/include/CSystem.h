#ifndef AETHER_CSYSTEM_H
#define AETHER_CSYSTEM_H

/* System calls Swift's Glibc module does not declare (it is built without _GNU_SOURCE). */

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no child another thread
   starts meanwhile inherits one. Returns 0, or -1 with errno set. */
int aether_pipe_cloexec(int fds[2]);

#endif
