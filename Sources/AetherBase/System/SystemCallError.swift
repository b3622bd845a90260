#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the C function's name and `strerror` text.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public let errno: Int32
    public let function: String

    public init(errno: Int32, function: String) {
        self.errno = errno
        self.function = function
    }

    public var description: String { "\(function): \(String(cString: strerror(errno))) (errno \(errno))" }
}
