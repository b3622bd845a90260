#ifndef AETHER_CALSA_SHIM_H
#define AETHER_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
