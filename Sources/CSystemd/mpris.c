#include "CSystemd.h"

/* The vtables' callbacks: sd-bus passes the handlers struct as userdata (offset 0). */

static int method(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    aether_mpris_handlers *h = userdata;
    return h->method(h->context, m, sd_bus_message_get_interface(m), sd_bus_message_get_member(m), error);
}

static int get(sd_bus *bus, const char *path, const char *interface, const char *property,
               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    aether_mpris_handlers *h = userdata;
    return h->get(h->context, interface, property, reply, error);
}

static int set(sd_bus *bus, const char *path, const char *interface, const char *property,
               sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    aether_mpris_handlers *h = userdata;
    return h->set(h->context, interface, property, value, error);
}

#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONSTANT SD_BUS_VTABLE_PROPERTY_CONST

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", method, 0),
    SD_BUS_METHOD("Quit", "", "", method, 0),
    SD_BUS_PROPERTY("CanQuit", "b", get, 0, CONSTANT),
    SD_BUS_PROPERTY("CanRaise", "b", get, 0, CONSTANT),
    SD_BUS_PROPERTY("HasTrackList", "b", get, 0, CONSTANT),
    SD_BUS_PROPERTY("Identity", "s", get, 0, CONSTANT),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", get, 0, CONSTANT),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", get, 0, CONSTANT),
    SD_BUS_VTABLE_END,
};

/* Position changes all the time and is never signalled (the MPRIS spec: clients extrapolate
   from Rate and listen for Seeked), so it has no EMITS_CHANGE flag. */
static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", method, 0),
    SD_BUS_METHOD("Previous", "", "", method, 0),
    SD_BUS_METHOD("Pause", "", "", method, 0),
    SD_BUS_METHOD("PlayPause", "", "", method, 0),
    SD_BUS_METHOD("Stop", "", "", method, 0),
    SD_BUS_METHOD("Play", "", "", method, 0),
    SD_BUS_METHOD_WITH_NAMES("Seek", "x", SD_BUS_PARAM(Offset), "", "", method, 0),
    SD_BUS_METHOD_WITH_NAMES("SetPosition", "ox", SD_BUS_PARAM(TrackId) SD_BUS_PARAM(Position), "", "", method, 0),
    SD_BUS_METHOD_WITH_NAMES("OpenUri", "s", SD_BUS_PARAM(Uri), "", "", method, 0),
    SD_BUS_SIGNAL_WITH_NAMES("Seeked", "x", SD_BUS_PARAM(Position), 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", get, set, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", get, set, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", get, set, 0, CHANGES),
    SD_BUS_PROPERTY("Metadata", "a{sv}", get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", get, set, 0, CHANGES),
    SD_BUS_PROPERTY("Position", "x", get, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", get, 0, CONSTANT),
    SD_BUS_PROPERTY("MaximumRate", "d", get, 0, CONSTANT),
    SD_BUS_PROPERTY("CanGoNext", "b", get, 0, CHANGES),
    SD_BUS_PROPERTY("CanGoPrevious", "b", get, 0, CHANGES),
    SD_BUS_PROPERTY("CanPlay", "b", get, 0, CHANGES),
    SD_BUS_PROPERTY("CanPause", "b", get, 0, CHANGES),
    SD_BUS_PROPERTY("CanSeek", "b", get, 0, CHANGES),
    SD_BUS_PROPERTY("CanControl", "b", get, 0, CONSTANT),
    SD_BUS_VTABLE_END,
};

int aether_mpris_add_object(sd_bus *bus, aether_mpris_handlers *handlers) {
    int r = sd_bus_add_object_vtable(bus, NULL, AETHER_MPRIS_PATH, AETHER_MPRIS_ROOT_INTERFACE,
                                     root_vtable, handlers);
    if (r < 0) return r;
    return sd_bus_add_object_vtable(bus, NULL, AETHER_MPRIS_PATH, AETHER_MPRIS_PLAYER_INTERFACE,
                                    player_vtable, handlers);
}

int aether_mpris_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

int aether_mpris_reply_error(sd_bus_message *call, const char *name, const char *message) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_error_set(&error, name, message);
    int r = sd_bus_reply_method_error(call, &error);
    sd_bus_error_free(&error);
    return r;
}

int aether_mpris_emit_seeked(sd_bus *bus, int64_t position_us) {
    return sd_bus_emit_signal(bus, AETHER_MPRIS_PATH, AETHER_MPRIS_PLAYER_INTERFACE, "Seeked", "x", position_us);
}
