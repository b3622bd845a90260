// The frame buffer lives in AetherBase with its unchecked writer; hosts that import
// TerminalGraphics see it as before.
@_exported import class AetherBase.ByteBuffer
