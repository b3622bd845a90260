// The monotonic clock lives in AetherBase (beside ``TimeSource``, which every layer can take);
// the media core's users keep reaching it through `import AetherMedia`.
@_exported import enum AetherBase.MonotonicClock
@_exported import struct AetherBase.TimeSource
