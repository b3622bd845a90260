import AetherEngine
@testable import AetherMedia
import Foundation
import Testing

/// The peak resident set the stats file reports is the process's own (`VmHWM`), not the
/// high-water mark Linux carries over `execve` from whatever spawned it.
struct PeakMemoryTests {
    @Test func vmHWMIsReadFromTheStatusFile() {
        let status = "Name:\taether-tui\nVmPeak:\t  812344 kB\nVmSize:\t  800000 kB\nVmHWM:\t  228552 kB\nVmRSS:\t  201000 kB\n"
        #expect(PeakMemory.vmHWM(status) == 228_552)
        #expect(PeakMemory.vmHWM("Name:\tx\nVmRSS:\t 10 kB\n") == nil)
        #expect(PeakMemory.vmHWM("VmHWM:\t 99999999999999999999999 kB\n") == nil)
        #expect(PeakMemory.vmHWM("") == nil)
    }

    @Test func theTestRunnersOwnPeakIsAtLeastWhatItHoldsNow() throws {
        // 64 MiB touched: the peak is at least that, and no more than getrusage's (which may
        // also hold a parent's).
        var block = [UInt8](repeating: 1, count: 64 << 20)
        block[block.count - 1] = 2
        let peak = PeakMemory.residentKiB()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        // Linux folds each thread's RSS count into the process's every 64 page faults, so with
        // other tests allocating on other threads the two readings may differ by a few MiB.
        let lag = 32 << 10
        #expect(peak >= 64 << 10 && peak <= Int(usage.ru_maxrss) + lag, "VmHWM \(peak) KiB, ru_maxrss \(usage.ru_maxrss) KiB")
        #expect(block[0] == 1)
    }
}
