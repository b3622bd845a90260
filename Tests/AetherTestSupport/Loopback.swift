// The loopback server harness lives in Sources/AetherLoopback (the benchmark uses it too); every
// test that imports AetherTestSupport has `LoopbackHTTP` as before.
@_exported import AetherLoopback
