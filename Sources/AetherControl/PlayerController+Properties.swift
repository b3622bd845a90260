import AetherEngine
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Properties: `set`, `add`, `multiply` and `cycle` by mpv's names, each through its entry in
/// the ``PropertyTable``.
extension PlayerController {
    func set(_ name: String, _ value: PropertyValue) -> CommandResult {
        guard let entry = PropertyTable.entry(name) else { return .failure("unknown property '\(name)'") }
        return entry.set(self, name, value)
    }

    func add(_ name: String, _ delta: Double) -> CommandResult {
        guard let add = PropertyTable.entry(name)?.add else { return .failure("cannot add to '\(name)'") }
        return add(self, name, delta)
    }

    func multiply(_ name: String, _ factor: Double) -> CommandResult {
        guard let multiply = PropertyTable.entry(name)?.multiply else { return .failure("cannot multiply '\(name)'") }
        return multiply(self, name, factor)
    }

    func cycle(_ name: String, up: Bool) -> CommandResult {
        guard let cycle = PropertyTable.entry(name)?.cycle else { return .failure("cannot cycle '\(name)'") }
        return cycle(self, name, up)
    }
}
