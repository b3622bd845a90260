import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The process's own peak resident set.
///
/// `getrusage`'s `ru_maxrss` is not it: Linux carries the high-water mark of the address space
/// a process replaced at `execve` into it, so a player spawned by a large process (a test
/// runner at 1 GB, an IDE) reported its parent's peak. `VmHWM` in `/proc/self/status` is the
/// high-water mark of this process's own address space.
public enum PeakMemory {
    /// KiB; `ru_maxrss` where `/proc` cannot be read.
    public static func residentKiB() -> Int {
        // The file is about 1.5 KiB; VmHWM is in its first half.
        if let data = FileBytes.prefix(path: "/proc/self/status", limit: 16 << 10), let kib = vmHWM(String(decoding: data, as: UTF8.self)) {
            return kib
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// The `VmHWM:   123456 kB` line's number.
    static func vmHWM(_ status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.dropFirst(6).filter(\.isNumber)
            return digits.count <= 15 ? Int(digits) : nil
        }
        return nil
    }
}
