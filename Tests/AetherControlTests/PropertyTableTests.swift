import AetherCommands
@testable import AetherControl
import Testing

/// The writable properties are named twice, by necessity: the command parser (AetherCommands,
/// which key parsing uses with no engine below it) refuses an unknown one when input.conf is
/// read, and the controller's table says what each does. The two lists are the same. (Unit tier.)
struct PropertyTableTests {
    @Test func theParserAndTheTableKnowTheSameProperties() {
        let table = Set(PropertyTable.all.flatMap(\.names))
        #expect(table == PlayerCommand.settable, "only the parser: \(PlayerCommand.settable.subtracting(table).sorted()); only the table: \(table.subtracting(PlayerCommand.settable).sorted())")
    }
}
