// The engine is one target per capability (the DocC article "Targets" draws the graph); a host
// imports this umbrella and has all of them, and AetherBase's types the engine's API speaks (a
// render size is a `PixelSize`), without importing each one.
@_exported import AetherBase
@_exported import AetherDisc
@_exported import AetherMedia
@_exported import AetherTransport
@_exported import AetherStreaming
@_exported import AetherSubtitles
@_exported import AetherStructure
@_exported import AetherDownload
@_exported import AetherStills
@_exported import AetherPlayback
