#ifndef AETHER_CZLIB_SHIM_H
#define AETHER_CZLIB_SHIM_H
#include <zlib.h>
#endif
