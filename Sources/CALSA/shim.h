#ifndef AETHER_CALSA_SHIM_H
#define AETHER_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#include <stdarg.h>

static void aether_alsa_quiet_handler(const char *file, int line, const char *function, int err,
                                      const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* alsa-lib prints its own errors on stderr, which belongs to the picture: silence them (each
   failure still reaches us as a return code, which we report with snd_strerror). */
static inline void aether_alsa_silence_errors(void) {
    snd_lib_error_set_handler(aether_alsa_quiet_handler);
}
#endif
