import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Error {
    /// A line saying why a file or system operation failed: strerror's words for the POSIX
    /// error under a FileManager or Data error ("No such file or directory"), else the error's
    /// own description (what `localizedDescription` gave before the product left Foundation).
    public var systemReason: String {
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = self as? CocoaError, let underlying = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return String(describing: self)
    }
}
