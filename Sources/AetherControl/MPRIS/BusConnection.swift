import AetherBase
import CSystemd
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An sd-bus call that failed: the function and its negative errno, with strerror's words.
public struct BusError: Error, Equatable, CustomStringConvertible {
    public let function: String
    public let code: Int32
    public var description: String { "\(function): \(String(cString: strerror(-code)))" }
}

/// Runs an sd-bus call that returns a negative errno on failure.
@discardableResult
func busCall(_ function: String, _ result: Int32) throws(BusError) -> Int32 {
    if result < 0 { throw BusError(function: function, code: result) }
    return result
}

/// Owns a connection to a D-Bus bus (`sd_bus *`) and frees it exactly once
/// (`sd_bus_close_unref`, after a bounded flush). sd-bus objects are single-threaded: one
/// thread creates, uses and frees it.
final class BusConnection {
    let bus: OpaquePointer

    /// How long a synchronous call (Hello, RequestName) may take before it fails.
    static let callTimeout: UInt64 = 2_000_000  // µs
    /// How long closing waits for queued replies and signals to be written.
    static let flushTimeout: UInt64 = 200_000  // µs

    /// Connects to the session bus (`sd_bus_open_user`: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`), or to the bus at `address`.
    init(address: String? = nil) throws(BusError) {
        var handle: OpaquePointer?
        if let address {
            try busCall("sd_bus_new", sd_bus_new(&handle))
            guard let bus = handle else { throw BusError(function: "sd_bus_new", code: -ENOMEM) }
            let started: Int32 = address.withCString { a in
                var r = sd_bus_set_address(bus, a)
                if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
                if r >= 0 { r = sd_bus_start(bus) }
                return r
            }
            guard started >= 0 else {
                sd_bus_close_unref(bus)
                throw BusError(function: "sd_bus_start", code: started)
            }
        } else {
            try busCall("sd_bus_open_user", sd_bus_open_user(&handle))
        }
        guard let bus = handle else { throw BusError(function: "sd_bus_open_user", code: -ENOMEM) }
        self.bus = bus
        sd_bus_set_method_call_timeout(bus, Self.callTimeout)
    }

    deinit {
        let deadline = SystemDeadline(after: Double(Self.flushTimeout) / 1e6)
        var queued: UInt64 = 0
        while sd_bus_get_n_queued_write(bus, &queued) >= 0, queued > 0 {
            let left = deadline.microsecondsLeft
            guard left > 0, sd_bus_process(bus, nil) >= 0, sd_bus_wait(bus, left) >= 0 else { break }
        }
        sd_bus_close_unref(bus)
    }
}

/// Appends values to a message sd-bus lends a callback (not owned; valid during the call).
struct BusWriter {
    let message: OpaquePointer

    /// Appends `value` with its own signature (a property getter's reply is already inside the
    /// variant). Returns a negative errno on failure.
    func append(_ value: BusValue) -> Int32 {
        switch value {
        case .bool(let b):
            var v: Int32 = b ? 1 : 0
            return sd_bus_message_append_basic(message, type("b"), &v)
        case .int32(var v): return sd_bus_message_append_basic(message, type("i"), &v)
        case .int64(var v): return sd_bus_message_append_basic(message, type("x"), &v)
        case .double(var v): return sd_bus_message_append_basic(message, type("d"), &v)
        case .string(let s): return appendText(s, type: "s")
        case .objectPath(let p): return appendText(p, type: "o")
        case .strings(let list):
            var r = sd_bus_message_open_container(message, type("a"), "s")
            for s in list where r >= 0 { r = appendText(s, type: "s") }
            return r < 0 ? r : sd_bus_message_close_container(message)
        case .dictionary(let entries):
            var r = sd_bus_message_open_container(message, type("a"), "{sv}")
            for entry in entries where r >= 0 {
                r = sd_bus_message_open_container(message, type("e"), "sv")
                if r >= 0 { r = appendText(entry.key, type: "s") }
                if r >= 0 { r = entry.value.signature.withCString { sd_bus_message_open_container(message, type("v"), $0) } }
                if r >= 0 { r = append(entry.value) }
                if r >= 0 { r = sd_bus_message_close_container(message) }
                if r >= 0 { r = sd_bus_message_close_container(message) }
            }
            return r < 0 ? r : sd_bus_message_close_container(message)
        }
    }

    private func appendText(_ text: String, type t: Unicode.Scalar) -> Int32 {
        MPRIS.busText(text).withCString { sd_bus_message_append_basic(message, type(t), $0) }
    }
}

/// Reads basic values from a message sd-bus lends a callback.
struct BusReader {
    let message: OpaquePointer

    func bool() throws(BusError) -> Bool {
        var v: Int32 = 0
        try read("b", &v)
        return v != 0
    }

    func int64() throws(BusError) -> Int64 {
        var v: Int64 = 0
        try read("x", &v)
        return v
    }

    func double() throws(BusError) -> Double {
        var v = 0.0
        try read("d", &v)
        return v
    }

    /// A string (`s`) or object path (`o`); sd-bus has checked it is valid UTF-8.
    func text(_ t: Unicode.Scalar = "s") throws(BusError) -> String {
        var p: UnsafePointer<CChar>?
        try read(t, &p)
        guard let p else { throw BusError(function: "sd_bus_message_read_basic", code: -EBADMSG) }
        return String(cString: p)
    }

    private func read<T>(_ t: Unicode.Scalar, _ value: inout T) throws(BusError) {
        let r = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type(t), $0) }
        // 0: the message has no more values (the vtable's signature makes this a bug, not input).
        if r <= 0 { throw BusError(function: "sd_bus_message_read_basic", code: r < 0 ? r : -EBADMSG) }
    }
}

/// A D-Bus type code as sd-bus's `char` argument.
private func type(_ code: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: code.value) }
