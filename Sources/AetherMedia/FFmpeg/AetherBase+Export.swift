// What imports no C library lives in AetherBase (the clock beside ``TimeSource``, the
// sanitizer, outside values, the log, the thread hooks); the media core's users keep reaching
// them through `import AetherMedia`.
@_exported import enum AetherBase.MonotonicClock
@_exported import struct AetherBase.TimeSource
@_exported import enum AetherBase.TextSanitizer
@_exported import enum AetherBase.OutsideValue
@_exported import enum AetherBase.AppLog
@_exported import enum AetherBase.EngineThreads
