#ifndef AETHER_CSYSTEMD_H
#define AETHER_CSYSTEMD_H
#include <stdint.h>
#include <sys/eventfd.h> /* the bus thread's wake-up fd (Glibc's module leaves it out) */
#include <systemd/sd-bus.h>

/* The MPRIS object on sd-bus (libsystemd). sd-bus describes an object's interfaces with
   vtables built by C macros (SD_BUS_METHOD, SD_BUS_PROPERTY, …), so the two MPRIS vtables live
   here; every method call, property get and property set is forwarded to the three functions
   in `aether_mpris_handlers`, with the interface and member names, for Swift to dispatch.
   All of it runs on the thread that calls sd_bus_process. */

/* A method call on either interface. Reply now (aether_mpris_reply_*), or take a reference
   (sd_bus_message_ref) and reply later on the bus's thread; return 1 either way, or a negative
   errno / set `error` to have sd-bus reply with an error. */
typedef int (*aether_mpris_method_fn)(void *context, sd_bus_message *call, const char *interface,
                                      const char *member, sd_bus_error *error);
/* Appends the value of `property` to `reply` (already inside the variant). Returns >= 0, or a
   negative errno / sets `error`. */
typedef int (*aether_mpris_get_fn)(void *context, const char *interface, const char *property,
                                   sd_bus_message *reply, sd_bus_error *error);
/* Reads the new value of a writable `property` from `value` (positioned inside the variant). */
typedef int (*aether_mpris_set_fn)(void *context, const char *interface, const char *property,
                                   sd_bus_message *value, sd_bus_error *error);

typedef struct aether_mpris_handlers {
    void *context;
    aether_mpris_method_fn method;
    aether_mpris_get_fn get;
    aether_mpris_set_fn set;
} aether_mpris_handlers;

/* The interfaces and the object path MPRIS prescribes. */
#define AETHER_MPRIS_PATH "/org/mpris/MediaPlayer2"
#define AETHER_MPRIS_ROOT_INTERFACE "org.mpris.MediaPlayer2"
#define AETHER_MPRIS_PLAYER_INTERFACE "org.mpris.MediaPlayer2.Player"

/* Adds org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player at AETHER_MPRIS_PATH (as
   floating slots: they go with the bus). `handlers` must stay valid until the bus is freed.
   Returns 0 or a negative errno. */
int aether_mpris_add_object(sd_bus *bus, aether_mpris_handlers *handlers);

/* sd_bus_reply_method_return(call, NULL): an empty successful reply. */
int aether_mpris_reply_empty(sd_bus_message *call);

/* An error reply named `name` (a D-Bus error name) saying `message`. */
int aether_mpris_reply_error(sd_bus_message *call, const char *name, const char *message);

/* Emits org.mpris.MediaPlayer2.Player.Seeked(x position) from AETHER_MPRIS_PATH. */
int aether_mpris_emit_seeked(sd_bus *bus, int64_t position_us);

#endif
