import AetherEngine
import Testing

/// A radio station's `icy-*` headers and in-band title blocks (unit tier).
@Suite struct StationMetadataTests {
    static func block(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        bytes += [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16)
        return bytes
    }

    @Test func headersGiveNameGenreAndURL() {
        var station = StationMetadata()
        station.take(headers: Array("icy-name:Radio One\nIcy-Genre: Jazz \nicy-url: http://example.com/\nicy-pub:1\nicy-metaint:16000\n".utf8))
        #expect(station.name == "Radio One")
        #expect(station.genre == "Jazz")
        #expect(station.url == "http://example.com/")
        #expect(station.title == nil)
        #expect(station.tags == ["icy-name": "Radio One", "icy-genre": "Jazz", "icy-url": "http://example.com/"])
        // A reconnect's headers that leave one out keep it.
        station.take(headers: Array("icy-name:Radio One HD\n".utf8))
        #expect(station.name == "Radio One HD" && station.genre == "Jazz")
    }

    @Test func titlesRunToTheirClosingQuoteAndSemicolon() {
        #expect(StationMetadata.streamFields(Self.block("StreamTitle='Artist - Song';StreamUrl='http://x/';"))
                == ["StreamTitle": "Artist - Song", "StreamUrl": "http://x/"])
        // Apostrophes inside a title; a block whose title is never closed.
        #expect(StationMetadata.streamFields(Self.block("StreamTitle='Don't Stop';")) == ["StreamTitle": "Don't Stop"])
        #expect(StationMetadata.streamFields(Array("StreamTitle='Unclosed".utf8)) == ["StreamTitle": "Unclosed"])
        #expect(StationMetadata.streamFields(Array("garbage without equals".utf8)).isEmpty)
        // The padding ends the block; what follows a NUL is not read.
        #expect(StationMetadata.streamFields(Array("StreamTitle='a';".utf8) + [0, 0] + Array("StreamTitle='b';".utf8)) == ["StreamTitle": "a"])
    }

    @Test func eachNewTitleCountsAndAnEmptyOneClearsExceptAfterAReconnect() {
        var station = StationMetadata()
        var changed = station.take(packet: Self.block("StreamTitle='One';"))
        #expect(changed)
        changed = station.take(packet: Self.block("StreamTitle='One';"))
        #expect(!changed)
        changed = station.take(packet: Self.block("StreamUrl='x';"))
        #expect(!changed)
        changed = station.take(packet: Self.block("StreamTitle='Two';"))
        #expect(changed)
        #expect(station.title == "Two" && station.titleChanges == 2)
        // A restarted source says '' to a new listener: the title stays...
        changed = station.take(packet: Self.block("StreamTitle='';"), reconnected: true)
        #expect(!changed)
        #expect(station.title == "Two")
        // ...until the station says so on a connection that has played.
        changed = station.take(packet: Self.block("StreamTitle='';"))
        #expect(changed)
        #expect(station.title == nil && station.titleChanges == 2)
        #expect(station.tags["icy-title"] == nil)
    }

    @Test func hostileValuesAreCleanedAndCut() {
        var station = StationMetadata()
        station.take(packet: Array("StreamTitle='\u{1B}]0;PWNED\u{07}\u{1B}[2Jred \u{202E}evil\u{2066} \u{85}end';".utf8))
        #expect(station.title == "red evil end")
        // Latin-1 (SHOUTcast's usual charset) when nothing in it is UTF-8.
        station.take(packet: Array("StreamTitle='caf".utf8) + [0xE9] + Array("';".utf8))
        #expect(station.title == "café")
        // UTF-8 with one stray byte stays UTF-8.
        station.take(packet: Array("StreamTitle='naïve ".utf8) + [0xFF] + Array("';".utf8))
        #expect(station.title == "naïve \u{FFFD}")
        // The largest block there is: cut to the value budget.
        station.take(packet: Array("StreamTitle='".utf8) + [UInt8](repeating: 0x41, count: 5000))
        #expect(station.title?.count == StationMetadata.maxValueCharacters)
        #expect(station.title?.hasSuffix("…") == true)
        // Headers past their budget are not read.
        var flooded = StationMetadata()
        flooded.take(headers: [UInt8](repeating: 0x78, count: StationMetadata.maxHeaderBytes) + Array("\nicy-name: late\n".utf8))
        #expect(flooded.name == nil)
    }
}
