@testable import AetherMedia
@testable import AetherScreen
@testable import AetherTUI
import Testing
import AetherInput
import TerminalGraphics

/// The screen's views are functions of the model and two values, the player as read for a pass
/// (``PlayerReading``) and the display's facts (``DisplayReading``): a whole frame composed here
/// with no player, no controller and no terminal, and what it shows follows the values alone.
/// (Unit tier.)
struct ChromeFrameTests {
    /// A film 10 minutes long, 65 s in, in its second chapter, playing at 1.5× with the sound at 80 %.
    static func reading() -> PlayerReading {
        var r = PlayerReading()
        r.state = .playing
        r.isPaused = false
        r.position = 65
        r.duration = 600
        r.rate = 1.5
        r.volume = 80
        r.mediaTitle = "Sintel"
        r.source = "/films/sintel.mkv"
        r.mediaInfo = MediaInfo(url: r.source, container: "matroska,webm", containerLongName: "Matroska / WebM",
                                chapters: [Chapter(title: "Opening", start: 0, end: 60), Chapter(title: "The gate", start: 60, end: 600)],
                                video: [], audio: [], subtitles: [], attachments: [])
        return r
    }

    static func display(columns: Int = 100, rows: Int = 30) -> DisplayReading {
        DisplayReading(layout: Layout(columns: columns, rows: rows, cellSize: nil, displayAspect: 16.0 / 9, driver: nil, showTelemetry: false),
                       driver: NullDriver(), outputDescription: "null")
    }

    static func compose(_ model: ViewState = ViewState(), _ player: PlayerReading = reading(),
                        _ display: DisplayReading = display(), now: Double = 100) -> CellGrid {
        ChromeView(model: model, player: player, display: display, telemetry: TelemetrySampler(), music: nil,
                   bindings: InputBindings(), now: now).compose(subtitles: []).cells
    }

    @Test func aFrameIsMadeFromTheReadingAlone() {
        let text = Self.compose().text
        #expect(text.contains("Sintel"))
        #expect(text.contains("The gate"))        // the chapter at 65 s
        #expect(text.contains("01:05 / 10:00"))
        #expect(text.contains("vol 80%"))
        #expect(text.contains("1.50×"))
    }

    @Test func theSameReadingTheSameFrame_anotherReadingAnother() {
        #expect(Self.compose().text == Self.compose().text)
        var later = Self.reading()
        later.position = 30
        later.isMuted = true
        let text = Self.compose(ViewState(), later).text
        #expect(text.contains("00:30 / 10:00"))
        #expect(text.contains("Opening"))
        #expect(text.contains("muted"))
        #expect(!text.contains("The gate"))
    }

    @Test func theModelDecidesWhatShows() {
        var model = ViewState()
        model.overlays.stats = true
        model.chrome.showRemaining = true
        let text = Self.compose(model).text
        #expect(text.contains("Stats"))
        #expect(text.contains("Container  Matroska / WebM"))
        #expect(text.contains("01:05 / -08:55"))
        var hidden = Self.display()
        hidden.chromeVisible = false
        #expect(!Self.compose(ViewState(), Self.reading(), hidden).text.contains("01:05"))
    }

    /// An open that takes longer than a moment is named with its time, from the reading's `opening`.
    @Test func anOpeningItemIsNamedOnTheTransportRow() {
        var r = Self.reading()
        r.opening = ("https://radio.example/stream", since: 97)
        #expect(Self.compose(ViewState(), r, now: 100).text.contains("opening radio.example/stream · 3 s · q to quit"))
        #expect(!Self.compose(ViewState(), r, now: 97.2).text.contains("opening"))
    }
}
