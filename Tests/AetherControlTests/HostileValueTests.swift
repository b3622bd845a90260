import AetherCommands
@testable import AetherControl
import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// A host that records what the controller shows and refuses the interactive-only commands.
private final class RecordingHost: PlayerHost {
    var messages: [String] = []
    func controllerWillUnloadItem(_ controller: PlayerController, reason: String) {}
    func controllerDidLoadItem(_ controller: PlayerController) {}
    func controller(_ controller: PlayerController, show message: String) { messages.append(message) }
    func controller(_ controller: PlayerController, perform ui: UIAction) -> CommandResult { .failure("no UI") }
    func controller(_ controller: PlayerController, screenshot subtitles: Bool) -> CommandResult { .failure("no screen") }
}

/// Values a hostile client sends where a number belongs.
let hostileNumbers = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e300", "-1", "9223372036854775808",
                      "-9223372036854775809", "18446744073709551616", "", "0x10", "1/0", "0/0", "1e308/1e-308",
                      String(repeating: "9", count: 1 << 20)]

struct OutsideValueTests {
    @Test func convertersRefuseWhatIsNotFiniteOrInRangeAndSayWhy() throws {
        #expect(throws: OutsideValue.Refusal.self) { try OutsideValue.number("nan", name: "x") }
        #expect(throws: OutsideValue.Refusal.self) { try OutsideValue.number("inf", name: "x") }
        #expect(throws: OutsideValue.Refusal("'x': the value is too long for a number")) {
            try OutsideValue.number(String(repeating: "1", count: 1 << 20), name: "x")
        }
        #expect(try OutsideValue.number("1/4", name: "x") == 0.25)
        #expect(try OutsideValue.seconds(1e308, name: "t") == OutsideValue.maxSeconds)
        #expect(try OutsideValue.seconds(-1e308, name: "t") == -OutsideValue.maxSeconds)
        #expect(throws: OutsideValue.Refusal("'chapter': 1e+300 is not a whole number in 0…3")) {
            try OutsideValue.integer(1e300, in: 0...3, name: "chapter")
        }
        #expect(throws: OutsideValue.Refusal("'n': nan is not a whole number in 0…3")) {
            try OutsideValue.integer(Double.nan, in: 0...3, name: "n")
        }
        #expect(try OutsideValue.integer(2.9, in: 0...3, name: "n") == 2)
        #expect(try OutsideValue.integer("9223372036854775807", in: 0...Int.max, name: "n") == Int.max)
        #expect(throws: OutsideValue.Refusal.self) { try OutsideValue.integer("9223372036854775808", in: 0...Int.max, name: "n") }
        #expect(OutsideValue.clampedInteger(1e300, to: -5...5) == 5)
        #expect(OutsideValue.clampedInteger(-.infinity, to: -5...5) == -5)
        #expect(OutsideValue.clampedInteger(.nan, to: -5...5) == nil)
        #expect(throws: OutsideValue.Refusal.self) { try OutsideValue.text(String(repeating: "a", count: 10), maxBytes: 9, name: "s") }
    }

    @Test func commandParsingNeverTrapsOnHostileNumbers() {
        // Every command that takes a number, with every hostile value: parsed or refused, never a trap.
        let templates = ["seek %", "seek % absolute", "seek % absolute-percent", "add volume %", "add chapter %",
                         "add time-pos %", "add speed %", "multiply speed %", "multiply volume %",
                         "playlist-play-index %", "quit %", "quit-watch-later %", "set volume %", "set chapter %"]
        for template in templates {
            for value in hostileNumbers {
                let words = template.split(separator: " ").map { $0 == "%" ? value : String($0) }
                switch Result(catching: { try PlayerCommand.parse(words: words) }) {
                case .success(let command):
                    // A parsed number is finite and, for integers, in range.
                    switch command {
                    case .seek(let n, _, _), .add(_, let n), .multiply(_, let n): #expect(n.isFinite, "\(words)")
                    case .quit(let code, _): #expect((0...255).contains(code), "\(words)")
                    case .playlistPlay(let i): #expect(i >= -1 && i <= Int(Int32.max), "\(words)")
                    default: break
                    }
                case .failure(let error):
                    #expect(!"\(error)".isEmpty)
                    #expect(!"\(error)".contains("\n"))
                    #expect("\(error)".utf8.count < 200, "a refusal is one short line: \(words.prefix(2))")
                }
            }
        }
    }

    /// The examples of issue 19, carried out by a real controller on a real player: each one is
    /// refused or clamped, and the player is still there and playing afterwards.
    @Test func everyCommandAndPropertyTakesHostileValuesOnARealPlayer() throws {
        let player = Player()
        let file = TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv")
        var settings = ControllerSettings(player: PlayerOptions(time: .monotonic))
        settings.player.audio.output = .null
        settings.resume = false
        settings.watchLater = WatchLater(directory: NSTemporaryDirectory() + "aether-hostile-\(getpid())")
        let controller = PlayerController(player: player, playlist: Playlist([PlaylistItem(source: file)]), settings: settings, clock: .monotonic)
        let host = RecordingHost()
        controller.host = host
        defer { player.stop() }
        #expect(controller.start(paused: true))
        controller.waitForOpen()
        let hostile: [PropertyValue] = [.number(.nan), .number(.infinity), .number(-.infinity), .number(1e308),
                                        .number(-1e308), .number(-1), .number(9.3e18), .string(""),
                                        .string(String(repeating: "x", count: 1 << 20)), .none, .bool(true)]
        for name in PlayerCommand.settable.sorted() where name != "pause" {
            for value in hostile {
                _ = controller.execute(.set(name, value))
                _ = controller.execute(.add(name, value.number ?? .nan))
                _ = controller.execute(.cycle(name, up: true))
            }
        }
        for value in hostileNumbers {
            for line in ["seek \(value) absolute", "seek \(value)", "playlist-play-index \(value)", "add chapter \(value)"] {
                if let command = try? PlayerCommand.parse(line) { _ = controller.execute(command) }
            }
        }
        // Still loaded, still a player: time is finite and the controller answers (a hostile
        // `vid` reopened the item on the open thread: the commands given meanwhile ran after).
        controller.waitForOpen()
        #expect(player.mediaInfo != nil)
        #expect(player.currentTime.isFinite)
        #expect(controller.execute(.set("volume", .number(50))) == .ok)
        #expect(player.volume == 50)
        #expect(controller.execute(.set("chapter", .number(1e300))) == .failure("no such chapter"))
        #expect(controller.execute(.set("aid", .number(1e300))) == .failure("no audio track 1e+300"))
        #expect(host.messages.allSatisfy { !$0.contains("\n") })
    }
}
