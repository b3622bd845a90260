// The random-access byte sources the parsers read through live in AetherBase (a disc image is
// read through them too); re-exported, as they are part of these parsers' API.
@_exported import protocol AetherBase.ByteSource
@_exported import class AetherBase.FileByteSource
@_exported import class AetherBase.MemoryByteSource
