import FoundationEssentials

/// Times as the player writes them (the transport bar, messages, progress lines).
public enum TimeFormat {
    /// `mm:ss`, or `h:mm:ss` from an hour on (`m:ss` with `padMinutes: false`), in whole
    /// seconds `rounding` the time; a time that is not a finite number at least 0 is 0, and
    /// one past 999,999 hours is that.
    public static func clock(_ seconds: Double, rounding: FloatingPointRoundingRule = .down, padMinutes: Bool = true) -> String {
        let s = Int(seconds.isFinite ? min(max(0, seconds), 3.6e9).rounded(rounding) : 0)
        return s >= 3600 ? String(cFormat: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                         : String(cFormat: padMinutes ? "%02d:%02d" : "%d:%02d", s / 60, s % 60)
    }
}
