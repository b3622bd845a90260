/// The stored renders for ``ChromeSnapshotTests``: a view's characters with a line of role letters
/// under each row, or a legend of the roles' styles in a theme (see ``Snapshot``).
enum ChromeSnapshots {
    static let expected: [String: String] = [
        "filmstrip-40": #"""


           01:23      ▶ 01:35        01:45
        .ssssssssssss.MMMMMMMMMMMM.ssssssssssss
        """#,
        "filmstrip-80": #"""


                01:13            01:25          ▶ 01:35            01:45
        ......ssssssssssssssss.ssssssssssssssss.MMMMMMMMMMMMMMMM.ssssssssssssssss
        """#,
        "filmstrip-160": #"""


               01:03                    01:15                    01:25                  ▶ 01:35                    01:45                    01:55
        .....ssssssssssssssssssssssss.ssssssssssssssssssssssss.ssssssssssssssssssssssss.MMMMMMMMMMMMMMMMMMMMMMMM.ssssssssssssssssssssssss.ssssssssssssssssssssssss
        """#,
        "filmstrip-40-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        s status: fg default bg default
        """#,
        "filmstrip-80-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        s status: fg default bg default
        """#,
        "filmstrip-160-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        s status: fg default bg default
        """#,
        "filmstrip-40-mono": #"""
        M menu.selected: fg default bg default bold reverse
        s status: fg default bg default
        """#,
        "filmstrip-80-mono": #"""
        M menu.selected: fg default bg default bold reverse
        s status: fg default bg default
        """#,
        "filmstrip-160-mono": #"""
        M menu.selected: fg default bg default bold reverse
        s status: fg default bg default
        """#,
        "menu-40": #"""


        ┌─ Audio tracks ─────────────────────┐
        ||||||||||||||||||||||||||||||||||||||
        │ ● 2. fra · ac3 · 5.1               │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   3. deu · ac3 · 5.1               │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   4. spa · aac · stereo            │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   5. eng · "Commentary with the di…│
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   6. jpn · aac · stereo            │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   7. kor · aac · stereo            │
        |MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM|
        └────────────────────────────────────┘
        ||||||||||||||||||||||||||||||||||||||
        """#,
        "menu-80": #"""


        ┌─ Audio tracks ─────────────────────────────────────────────────────────────┐
        ||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||
        │ ● 2. fra · ac3 · 5.1                                                       │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   3. deu · ac3 · 5.1                                                       │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   4. spa · aac · stereo                                                    │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   5. eng · "Commentary with the director and the whole cast" · aac · stereo│
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   6. jpn · aac · stereo                                                    │
        |mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
        │   7. kor · aac · stereo                                                    │
        |MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM|
        └────────────────────────────────────────────────────────────────────────────┘
        ||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||
        """#,
        "menu-160": #"""


                                                                                       ┌─ Audio tracks ──────────────────────────────────────────────────────────────┐
        ...............................................................................|||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||
                                                                                       │ ● 2. fra · ac3 · 5.1                                                        │
        ...............................................................................|mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
                                                                                       │   3. deu · ac3 · 5.1                                                        │
        ...............................................................................|mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
                                                                                       │   4. spa · aac · stereo                                                     │
        ...............................................................................|mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
                                                                                       │   5. eng · "Commentary with the director and the whole cast" · aac · stereo │
        ...............................................................................|mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
                                                                                       │   6. jpn · aac · stereo                                                     │
        ...............................................................................|mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm|
                                                                                       │   7. kor · aac · stereo                                                     │
        ...............................................................................|MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM|
                                                                                       └─────────────────────────────────────────────────────────────────────────────┘
        ...............................................................................|||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||
        """#,
        "menu-40-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg 6 bg default
        """#,
        "menu-80-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg 6 bg default
        """#,
        "menu-160-default": #"""
        M menu.selected: fg 6 bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg 6 bg default
        """#,
        "menu-40-mono": #"""
        M menu.selected: fg default bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg default bg default
        """#,
        "menu-80-mono": #"""
        M menu.selected: fg default bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg default bg default
        """#,
        "menu-160-mono": #"""
        M menu.selected: fg default bg default bold reverse
        m menu: fg default bg default
        | menu.border: fg default bg default
        """#,
        "music-40": #"""


          Gymnopédie No. 1
        ..TTTTTTTTTTTTTTTT
          Erik Satie
        ..tttttttttt
          Trois Gymnopédies
        ..sssssssssssssssss
          Track 1 · 1888 · Classical
        ..ssssssssssssssssssssssssss
          flac · 44.1 kHz · stereo
        ..yyyyyyyyyyyyyyyyyyyyyyyy

                ▁▁       ▂▂    ▁▁ ▆▆    ▁▁
        ........CC.......~~....CC.~~....CC
             ▁▁ ▆▆    ▁▁ ██       ██    ▄▄
        .....CC.~~....CC.~~.......~~....~~
                ██    ▃▃ ██ ▁▁ ██ ██ ▁▁ ██
        ........~~....~~.~~.CC.~~.~~.CC.~~
          ▁▁ ▇▇ ██ ▁▁ ██ ██ ▁▁ ██ ██ ▅▅ ██ ▁▁
        ..CC.~~.~~.CC.~~.~~.~~.~~.~~.~~.~~.CC
             ██ ██ ▄▄ ██ ██ ██ ██ ██ ██ ██ ▃▃
        .....~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~
        """#,
        "music-80": #"""


          ┌────────────────────┐   Gymnopédie No. 1
        ..||||||||||||||||||||||...TTTTTTTTTTTTTTTT
          │                    │   Erik Satie
        ..|....................|...tttttttttt
          │                    │   Trois Gymnopédies
        ..|....................|...sssssssssssssssss
          │                    │   Track 1 · 1888 · Classical
        ..|....................|...ssssssssssssssssssssssssss
          │                    │   flac · 44.1 kHz · stereo
        ..|....................|...yyyyyyyyyyyyyyyyyyyyyyyy
          │     ♪ no cover     │
        ..|.....ssssssssss.....|
          │                    │         ▁▁       ▂▂    ▁▁ ▆▆    ▁▁       ▁▁    ▁▁ ▅▅
        ..|....................|.........CC.......~~....CC.~~....CC.......CC....CC.~~
          │                    │      ▁▁ ▆▆    ▁▁ ██       ██    ▄▄    ▁▁ ██       ██
        ..|....................|......CC.~~....CC.~~.......~~....~~....CC.~~.......~~
          │                    │         ██    ▃▃ ██ ▁▁ ██ ██ ▁▁ ██    ▂▂ ██ ▁▁ ▆▆ ██
        ..|....................|.........~~....~~.~~.CC.~~.~~.CC.~~....~~.~~.CC.~~.~~
          │                    │   ▁▁ ▇▇ ██ ▁▁ ██ ██ ▁▁ ██ ██ ▅▅ ██ ▁▁ ██ ██    ██ ██
        ..|....................|...CC.~~.~~.CC.~~.~~.~~.~~.~~.~~.~~.CC.~~.~~....~~.~~
          └────────────────────┘      ██ ██ ▄▄ ██ ██ ██ ██ ██ ██ ██ ▃▃ ██ ██ ▇▇ ██ ██
        ..||||||||||||||||||||||......~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~
        """#,
        "music-160": #"""


          ┌────────────────────┐   Gymnopédie No. 1
        ..||||||||||||||||||||||...TTTTTTTTTTTTTTTT
          │                    │   Erik Satie
        ..|....................|...tttttttttt
          │                    │   Trois Gymnopédies
        ..|....................|...sssssssssssssssss
          │                    │   Track 1 · 1888 · Classical
        ..|....................|...ssssssssssssssssssssssssss
          │                    │   flac · 44.1 kHz · stereo
        ..|....................|...yyyyyyyyyyyyyyyyyyyyyyyy
          │     ♪ no cover     │
        ..|.....ssssssssss.....|
          │                    │          ▁▁       ▂▂    ▁▁ ▆▆    ▁▁       ▁▁    ▁▁ ▅▅    ▁▁       ▁▁       ▃▃    ▁▁ ██    ▁▁       ▂▂    ▁▁ ▆▆    ▁▁       ▁▁
        ..|....................|..........CC.......~~....CC.~~....CC.......CC....CC.~~....CC.......CC.......~~....CC.~~....CC.......~~....CC.~~....CC.......CC
          │                    │       ▁▁ ▆▆    ▁▁ ██       ██    ▄▄    ▁▁ ██       ██    ▂▂    ▁▁ ▇▇    ▁▁ ██    ▁▁ ██ ▁▁ ▅▅    ▁▁ ██       ██    ▄▄    ▁▁ ██    ▁▁
        ..|....................|.......CC.~~....CC.~~.......~~....~~....CC.~~.......~~....~~....CC.~~....CC.~~....~~.~~.CC.~~....CC.~~.......~~....~~....CC.~~....CC
          │                    │          ██    ▃▃ ██ ▁▁ ██ ██ ▁▁ ██    ▂▂ ██ ▁▁ ▆▆ ██ ▁▁ ██       ██    ▄▄ ██ ▁▁ ██ ██    ██    ▃▃ ██ ▁▁ ▇▇ ██ ▁▁ ██    ▁▁ ██ ▁▁ ▆▆
        ..|....................|..........~~....~~.~~.CC.~~.~~.CC.~~....~~.~~.CC.~~.~~.CC.~~.......~~....~~.~~.CC.~~.~~....~~....~~.~~.CC.~~.~~.CC.~~....~~.~~.CC.~~
          │                    │    ▁▁ ▇▇ ██ ▁▁ ██ ██ ▁▁ ██ ██ ▅▅ ██ ▁▁ ██ ██    ██ ██ ▄▄ ██ ▁▁ ██ ██ ▁▁ ██ ██ ▂▂ ██ ██ ▆▆ ██ ▁▁ ██ ██    ██ ██ ▅▅ ██ ▁▁ ██ ██    ██
        ..|....................|....CC.~~.~~.CC.~~.~~.~~.~~.~~.~~.~~.CC.~~.~~....~~.~~.~~.~~.CC.~~.~~.CC.~~.~~.~~.~~.~~.~~.~~.CC.~~.~~....~~.~~.~~.~~.CC.~~.~~....~~
          └────────────────────┘       ██ ██ ▄▄ ██ ██ ██ ██ ██ ██ ██ ▃▃ ██ ██ ▇▇ ██ ██ ██ ██ ▁▁ ██ ██ ▆▆ ██ ██ ██ ██ ██ ██ ██ ▄▄ ██ ██ ██ ██ ██ ██ ██ ▂▂ ██ ██ ▇▇ ██
        ..||||||||||||||||||||||.......~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~.~~
        """#,
        "music-40-default": #"""
        C progress.chapter: fg 3 bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "music-80-default": #"""
        C progress.chapter: fg 3 bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        | menu.border: fg 6 bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "music-160-default": #"""
        C progress.chapter: fg 3 bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        | menu.border: fg 6 bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "music-meter": #"""


          Gymnopédie No. 1
        ..TTTTTTTTTTTTTTTT
          Erik Satie
        ..tttttttttt

          ██████████████▌      ▕        -35 dB
        ..~~~~~~~~~~~~~~~~~~~~~C~~~~~~~yyyyyyy
        """#,
        "music-40-mono": #"""
        C progress.chapter: fg default bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "music-80-mono": #"""
        C progress.chapter: fg default bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        | menu.border: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "music-160-mono": #"""
        C progress.chapter: fg default bg default bold
        T title: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        y telemetry: fg default bg default
        | menu.border: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "scrub-40": #"""

                             1:06:40  Act III
        ....................ssssssssssssssssss
        """#,
        "scrub-80": #"""

                                                           1:06:40  Act III
        ..................................................ssssssssssssssssss
        """#,
        "scrub-160": #"""

                                                                                                                      1:06:40  Act III
        .............................................................................................................ssssssssssssssssss
        """#,
        "scrub-40-default": #"""
        s status: fg default bg default
        """#,
        "scrub-80-default": #"""
        s status: fg default bg default
        """#,
        "scrub-160-default": #"""
        s status: fg default bg default
        """#,
        "scrub-40-mono": #"""
        s status: fg default bg default
        """#,
        "scrub-80-mono": #"""
        s status: fg default bg default
        """#,
        "scrub-160-mono": #"""
        s status: fg default bg default
        """#,
        "scrub-picture-40": #"""


                             1:06:40
        ....................ssssssssssssssss
        """#,
        "scrub-picture-80": #"""


                                                 1:06:40
        ........................................ssssssssssssssssssssssssss
        """#,
        "scrub-picture-160": #"""


                                                                                         1:06:40
        ................................................................................ssssssssssssssssssssssssssssssssssssssssssssssss
        """#,
        "stats-40": #"""

         ┌─ Stats ─────────────────────────────┐
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
         │ File       Big Buck Bunny (2008) — …│
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Video      h264 (High)  decoder h264│
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Clock      audio  A/V -3.2 ms (p95 …│
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         └─────────────────────────────────────┘
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
          audio: 2. fra · ac3 · 5.1
        .sssssssssssssssssssssssssss
        """#,
        "stats-80": #"""

         ┌─ Stats ───────────────────────────────────────────────┐
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
         │ File       Big Buck Bunny (2008) — the open movie.mkv │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Video      h264 (High)  decoder h264                  │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Clock      audio  A/V -3.2 ms (p95 8.1)               │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         └───────────────────────────────────────────────────────┘
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
          audio: 2. fra · ac3 · 5.1
        .sssssssssssssssssssssssssss
        """#,
        "stats-160": #"""

         ┌─ Stats ───────────────────────────────────────────────┐
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
         │ File       Big Buck Bunny (2008) — the open movie.mkv │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Video      h264 (High)  decoder h264                  │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         │ Clock      audio  A/V -3.2 ms (p95 8.1)               │
        .XxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX
         └───────────────────────────────────────────────────────┘
        .XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
          audio: 2. fra · ac3 · 5.1
        .sssssssssssssssssssssssssss
        """#,
        "stats-40-default": #"""
        X stats.border: fg 12 bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "stats-80-default": #"""
        X stats.border: fg 12 bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "stats-160-default": #"""
        X stats.border: fg 12 bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "stats-40-mono": #"""
        X stats.border: fg default bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "stats-80-mono": #"""
        X stats.border: fg default bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "stats-160-mono": #"""
        X stats.border: fg default bg default
        s status: fg default bg default
        x stats: fg default bg default
        """#,
        "telemetry-24": #"""

         Telemetry
        XXXXXXXXXX
         bitrate  4.25 Mb/s
        yyyyyyyyyyyyyyyyyyy
          ▇█▁▂▃▄▅▆▇█
        ~~~~~~~~~~~~
         A/V gap  -3.2 ms
        yyyyyyyyyyyyyyyyy
          █▄▁▄██▄▁▄█
        ~~~~~~~~~~~~
         fps      24.0
        yyyyyyyyyyyyyy
          ██████████
        ~~~~~~~~~~~~
         tty       300 kB/s
        yyyyyyyyyyyyyyyyyyy
          ▆█▁▃▆█▁▃▆█
        ~~~~~~~~~~~~
         buffer    2.5 s, 12 fra
        yyyyyyyyyyyyyyyyyyyyyyyy
         net       640 kB/s, 12.
        yyyyyyyyyyyyyyyyyyyyyyyy
         frames  1440 shown 3 dr
        yyyyyyyyyyyyyyyyyyyyyyyy
         decode   4.12 ms/frame
        yyyyyyyyyyyyyyyyyyyyyyy
         read 0.05 filter 0.50 s
        yyyyyyyyyyyyyyyyyyyyyyyy
         render 6.50 write 2.00
        yyyyyyyyyyyyyyyyyyyyyyyy
         clock   audio
        yyyyyyyyyyyyyy
         audio   pulse: null sin
        yyyyyyyyyyyyyyyyyyyyyyyy
        """#,
        "telemetry-36": #"""

         Telemetry
        XXXXXXXXXX
         bitrate  4.25 Mb/s
        yyyyyyyyyyyyyyyyyyy
          ▃▄▅▆▇█▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█
        ~~~~~~~~~~~~~~~~~~~~~~~~
         A/V gap  -3.2 ms
        yyyyyyyyyyyyyyyyy
          ▄██▄▁▄██▄▁▄██▄▁▄██▄▁▄█
        ~~~~~~~~~~~~~~~~~~~~~~~~
         fps      24.0
        yyyyyyyyyyyyyy
          ██████████████████████
        ~~~~~~~~~~~~~~~~~~~~~~~~
         tty       300 kB/s
        yyyyyyyyyyyyyyyyyyy
          ▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█
        ~~~~~~~~~~~~~~~~~~~~~~~~
         buffer    2.5 s, 12 frames
        yyyyyyyyyyyyyyyyyyyyyyyyyyy
         net       640 kB/s, 12.5 MB, 1 retr
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         frames  1440 shown 3 dropped
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         decode   4.12 ms/frame
        yyyyyyyyyyyyyyyyyyyyyyy
         read 0.05 filter 0.50 scale 1.25
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         render 6.50 write 2.00 ms
        yyyyyyyyyyyyyyyyyyyyyyyyyy
         clock   audio
        yyyyyyyyyyyyyy
         audio   pulse: null sink
        yyyyyyyyyyyyyyyyyyyyyyyyy
        """#,
        "telemetry-60": #"""

         Telemetry
        XXXXXXXXXX
         bitrate  4.25 Mb/s
        yyyyyyyyyyyyyyyyyyy
          ▃▄▅▆▇█▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
         A/V gap  -3.2 ms
        yyyyyyyyyyyyyyyyy
          █▄▁▄██▄▁▄██▄▁▄██▄▁▄██▄▁▄██▄▁▄█
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
         fps      24.0
        yyyyyyyyyyyyyy
          ██████████████████████████████
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
         tty       300 kB/s
        yyyyyyyyyyyyyyyyyyy
          ▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█▁▃▆█
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
         buffer    2.5 s, 12 frames
        yyyyyyyyyyyyyyyyyyyyyyyyyyy
         net       640 kB/s, 12.5 MB, 1 retries, 2 rebuffers
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         frames  1440 shown 3 dropped
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         decode   4.12 ms/frame
        yyyyyyyyyyyyyyyyyyyyyyy
         read 0.05 filter 0.50 scale 1.25
        yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
         render 6.50 write 2.00 ms
        yyyyyyyyyyyyyyyyyyyyyyyyyy
         clock   audio
        yyyyyyyyyyyyyy
         audio   pulse: null sink
        yyyyyyyyyyyyyyyyyyyyyyyyy
        """#,
        "telemetry-24-default": #"""
        X stats.border: fg 12 bg default
        y telemetry: fg default bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "telemetry-36-default": #"""
        X stats.border: fg 12 bg default
        y telemetry: fg default bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "telemetry-60-default": #"""
        X stats.border: fg 12 bg default
        y telemetry: fg default bg default
        ~ sparkline: fg 2 bg default bold
        """#,
        "telemetry-24-mono": #"""
        X stats.border: fg default bg default
        y telemetry: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "telemetry-36-mono": #"""
        X stats.border: fg default bg default
        y telemetry: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "telemetry-60-mono": #"""
        X stats.border: fg default bg default
        y telemetry: fg default bg default
        ~ sparkline: fg default bg default bold
        """#,
        "title-40": #"""
         Big Buck Bunny (2008) — t2. The meadow
        TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT
        """#,
        "title-80": #"""
         Big Buck Bunny (2008) — the open movie                           2. The meadow
        TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT
        """#,
        "title-160": #"""
         Big Buck Bunny (2008) — the open movie                                                                                                           2. The meadow
        TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT
        """#,
        "title-40-default": #"""
        T title: fg default bg default bold
        """#,
        "title-80-default": #"""
        T title: fg default bg default bold
        """#,
        "title-160-default": #"""
        T title: fg default bg default bold
        """#,
        "title-40-mono": #"""
        T title: fg default bg default bold
        """#,
        "title-80-mono": #"""
        T title: fg default bg default bold
        """#,
        "title-160-mono": #"""
        T title: fg default bg default bold
        """#,
        "transport-40": #"""

        ━━━━━━┃━━━━━━●────────────┃──◆──────────
        PPPPPPCPPPPPPPBBBEEEEEEEEECEEtEEEEEEEEEE
         ‖ 30:00 / 1:30:00     vol 80%   1.00×
        ssstttttttttttttttssssssssssssssssssssss
        """#,
        "transport-80": #"""

        ━━━━━━━━━━━━━┃━━━━━━━━━━━━●──────────────────────────┃─────◆────────────────────
        PPPPPPPPPPPPPCPPPPPPPPPPPPPBBBBBBBBEEEEEEEEEEEEEEEEEECEEEEEtEEEEEEEEEEEEEEEEEEEE
         ‖ 30:00 / 1:30:00           vol 80%   1.00×   HDR10   3840×2160   5.1   sixel
        ssstttttttttttttttsssssssssssssssssssssssssssshhhhhhhsbbbbbbbbbbbsbbbbbsbbbbbbbs
        """#,
        "transport-160": #"""

        ━━━━━━━━━━━━━━━━━━━━━━━━━━┃━━━━━━━━━━━━━━━━━━━━━━━━━━●────────────────────────────────────────────────────┃───────────◆─────────────────────────────────────────
        PPPPPPPPPPPPPPPPPPPPPPPPPPCPPPPPPPPPPPPPPPPPPPPPPPPPPPBBBBBBBBBBBBBBBBBEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEECEEEEEEEEEEEtEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE
         ‖ 30:00 / 1:30:00                                                                                           vol 80%   1.00×   HDR10   3840×2160   5.1   sixel
        ssstttttttttttttttsssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssshhhhhhhsbbbbbbbbbbbsbbbbbsbbbbbbbs
        """#,
        "transport-40-default": #"""
        B progress.buffered: fg 7 bg default
        C progress.chapter: fg 3 bg default bold
        E progress.empty: fg 7 bg default dim
        P progress.played: fg 6 bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
        "transport-80-default": #"""
        B progress.buffered: fg 7 bg default
        C progress.chapter: fg 3 bg default bold
        E progress.empty: fg 7 bg default dim
        P progress.played: fg 6 bg default bold
        b badge: fg 6 bg default reverse
        h badge.hdr: fg 3 bg default bold reverse
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
        "transport-160-default": #"""
        B progress.buffered: fg 7 bg default
        C progress.chapter: fg 3 bg default bold
        E progress.empty: fg 7 bg default dim
        P progress.played: fg 6 bg default bold
        b badge: fg 6 bg default reverse
        h badge.hdr: fg 3 bg default bold reverse
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
        "transport-40-mono": #"""
        B progress.buffered: fg default bg default
        C progress.chapter: fg default bg default bold
        E progress.empty: fg default bg default dim
        P progress.played: fg default bg default bold
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
        "transport-80-mono": #"""
        B progress.buffered: fg default bg default
        C progress.chapter: fg default bg default bold
        E progress.empty: fg default bg default dim
        P progress.played: fg default bg default bold
        b badge: fg default bg default reverse
        h badge.hdr: fg default bg default bold reverse
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
        "transport-160-mono": #"""
        B progress.buffered: fg default bg default
        C progress.chapter: fg default bg default bold
        E progress.empty: fg default bg default dim
        P progress.played: fg default bg default bold
        b badge: fg default bg default reverse
        h badge.hdr: fg default bg default bold reverse
        s status: fg default bg default
        t time: fg default bg default bold
        """#,
    ]
}
