// The engine's API speaks AetherBase's types (a render size is a `PixelSize`): a host that
// imports the engine has them without importing AetherBase itself.
@_exported import AetherBase
