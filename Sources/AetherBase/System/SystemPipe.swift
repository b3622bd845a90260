#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSystem

/// The program's pipes, both ends close-on-exec from the start (`pipe2`). A pipe made first and
/// marked after could be inherited by a child another thread starts in between, which would
/// keep the pipe's reader from ever seeing its end. (The terminal's capture pipes are made in
/// C, where a crash handler reads them, also with `pipe2`.)
public enum SystemPipe {
    /// Makes a pipe into `ends` (two descriptors: the read end, then the write end). Returns
    /// false, with `errno` set, when none could be made.
    public static func make(_ ends: inout [Int32]) -> Bool {
        precondition(ends.count == 2, "a pipe has two ends")
        return aether_pipe_cloexec(&ends) == 0
    }
}
