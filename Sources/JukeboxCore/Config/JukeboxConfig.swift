/// The validated configuration of the daemon. Every field but `musicDir` has a default.
public struct JukeboxConfig: Sendable, Equatable {
    /// The folder with the music (required).
    public var musicDir: String
    /// The SQLite database file.
    public var database: String = "/var/lib/jukebox/jukebox.sqlite"
    /// Where `.lrc` files live when not beside the tracks.
    public var lyricsDir: String?
    /// Where stored playlists (`NAME.m3u`) live; nil for `playlists` beside the database.
    public var playlistDir: String?
    public var audio = Audio()
    public var queue = Queue()
    public var resume = Resume()
    public var console = Console()
    public var buttons = Buttons()
    public var encoder = Encoder()
    public var menu = MenuSettings()
    public var display = Display()
    public var network = Network()
    public var web = Web()
    public var mqtt = MQTT()
    public var snapcast = Snapcast()
    public var sleep = Sleep()
    /// `[rules]`: profiles, quiet hours and the daily listening budget.
    public var rules = ListeningRulesConfig()
    public var chapters = Chapters()
    public var cards = Cards()
    public var podcasts = Podcasts()
    public var feedback = Feedback()
    public var speech = Speech()
    /// The `[card_reader.NAME]` tables, in the file's order.
    public var cardReaders: [CardReaderConfig] = []
    /// `[[alarm]]`: the wake-up alarms, in file order.
    public var alarms: [WakeUpAlarm] = []

    /// The defaults, with `musicDir`.
    public init(musicDir: String) {
        self.musicDir = musicDir
    }

    /// The stored playlists' folder: `playlist_dir`, else `playlists` beside the database.
    public var playlistFolder: String {
        if let playlistDir { return playlistDir }
        guard let slash = database.lastIndex(of: "/") else { return "playlists" }
        return database[..<slash] + "/playlists"
    }

    /// `[podcasts]`: feeds subscribed from the config, and the episodes' cache.
    public struct Podcasts: Sendable, Equatable {
        /// Feed URLs; the console's subscriptions come on top.
        public var feeds: [String] = []
        /// Where episodes are downloaded; nil for `podcasts` beside the database.
        public var cacheDir: String?
        /// The cache's size limit, in MiB.
        public var cacheLimitMB = 2048

        /// The defaults.
        public init() {}

        /// `cacheLimitMB` in bytes.
        public var cacheLimitBytes: Int64 { Int64(cacheLimitMB) << 20 }
    }

    /// The episodes' cache folder: `cache_dir`, else `podcasts` beside the database.
    public var podcastCacheFolder: String {
        if let cacheDir = podcasts.cacheDir { return cacheDir }
        guard let slash = database.lastIndex(of: "/") else { return "podcasts" }
        return database[..<slash] + "/podcasts"
    }

    /// `[audio]`: the ALSA output.
    public struct Audio: Sendable, Equatable {
        /// Any ALSA PCM name: `default`, `hw:1,0`, `plughw:0`, `file:'/tmp/out.raw',raw`.
        public var device = "default"
        public var periodMs = 10
        public var bufferMs = 40
        /// The ALSA buffer asked of a sound card (not the `file` or `null` PCM), kept full and
        /// topped up when it has drained to `bufferMs`; commands take back what it holds.
        /// 0: the buffer is `bufferMs`, written one period at a time.
        public var deepBufferMs = 500
        /// An ALSA mixer control for hardware volume; empty means software volume.
        public var mixer = ""
        public var startVolume = 40
        public var maxVolume = 85
        public var minVolume = 0
        /// The maximum while `headphoneDetect` reads high; nil for `maxVolume`.
        public var headphoneMaxVolume: Int?
        public var headphoneChip = "gpiochip0"
        /// The GPIO line that reads high while headphones are plugged in; nil for none.
        public var headphoneDetect: Int?
        /// Volume changes are ignored while stopped or paused.
        public var volumeLockedAtRest = false
        public var pacing = Pacing.auto
        /// `replaygain_preamp` and `replaygain_missing_preamp`, in dB.
        public var replayGain = ReplayGainSettings()

        /// The defaults.
        public init() {}
    }

    /// How the output thread paces itself.
    public enum Pacing: String, Sendable, Equatable, CaseIterable {
        /// The device's clock when it blocks, else the monotonic clock.
        case auto
        /// Block on the device.
        case device
        /// The monotonic clock (for PCMs that swallow data at once).
        case clock
    }

    /// `[queue]`.
    public struct Queue: Sendable, Equatable {
        public var mode = PlayMode.repeatAll
        /// The most entries the queue holds (`PlayQueue.limit`; MPD's `max_playlist_length`).
        public var maxLength = PlayQueue.defaultLimit

        /// The defaults.
        public init() {}
    }

    /// `[resume]`: what happens on power-up and how often state is made durable.
    public struct Resume: Sendable, Equatable {
        public var onStart = ResumeOnStart.play
        /// Tracks longer than this resume from their own saved position.
        public var longTrackMinutes: Double = 10
        /// A durable checkpoint happens at least this often while playing. A restart after a
        /// power cut resumes half of it after the last one, so it is off by at most half.
        public var syncIntervalSeconds = 4
        /// Where the power-cut checkpoint sector goes: empty for a file beside the database;
        /// else a device of its own (a small raw partition), so that the card's file system
        /// journals no inode for each checkpoint.
        public var checkpointDevice = ""

        /// The defaults.
        public init() {}

        /// `longTrackMinutes` in milliseconds.
        public var longTrackMs: Int64 { Int64(longTrackMinutes * 60_000) }
        /// `syncIntervalSeconds` in milliseconds.
        public var syncIntervalMs: Int64 { Int64(syncIntervalSeconds) * 1000 }
    }

    /// `[cards]`: what NFC/RFID cards on a reader do.
    public struct Cards: Sendable, Equatable {
        /// Place to play (on = play, off = pause) or swipes.
        public var mode = TagCardPresence.Mode.place
        /// What a second swipe of the playing card does (swipe mode).
        public var swipeAgain = TagCardPresence.SwipeAgain.toggle
        /// A card away for less than this and read again was never removed.
        public var removalDebounceMs = 1000
        /// A card with no policy of its own continues where it was left when its music is
        /// longer than this (audiobooks), else starts from the beginning (songs).
        public var continueOverMinutes: Double = 20

        /// The defaults.
        public init() {}

        /// `continueOverMinutes` in milliseconds.
        public var continueOverMs: Int64 { Int64(continueOverMinutes * 60_000) }
    }

    /// `[feedback]`: what a box without a screen says (generated sounds, a status LED).
    public struct Feedback: Sendable, Equatable {
        /// Short sounds for a card read, an unknown card, a limit reached.
        public var sounds = true
        /// Their loudness, as a volume percent (never above `[audio] max_volume`).
        public var volume = 30
        public var ledChip = "gpiochip0"
        /// The status LED's line (lit = high); nil for none.
        public var ledLine: Int?

        /// The defaults.
        public init() {}
    }

    /// `[speech]`: spoken announcements with espeak-ng (`say`, and events when `events`).
    public struct Speech: Sendable, Equatable {
        /// Whether `say` speaks (libespeak-ng1 is opened on the first one).
        public var enabled = true
        /// espeak-ng's voice name ("en", "de", "fr", "en-us", …).
        public var voice = "en"
        /// Words per minute (espeak-ng's default is 175; slower is clearer for children).
        public var rate = 150
        /// The voice's loudness, as a volume percent (never above `[audio] max_volume`).
        public var volume = 60
        /// The music's level under the voice, as a percent of its own (0: silent).
        public var duck = 25
        /// Speak the events a box without a screen cannot show (an unknown card) instead of
        /// their feedback sound.
        public var events = false

        /// The defaults.
        public init() {}
    }

    /// `[console]`: the text command console.
    public struct Console: Sendable, Equatable {
        /// `stdin`, or a tty path such as `/dev/serial0`.
        public var device = "stdin"
        public var baud = 115_200
        /// How a terminal on stdin is read: command lines, or single keys acting as buttons.
        public var input = ConsoleInput.lines

        /// The defaults.
        public init() {}
    }

    /// `[console] input`.
    public enum ConsoleInput: String, Sendable, Equatable, CaseIterable {
        /// Whole command lines (`pause`, `seek +10`).
        case lines
        /// Keys as buttons (space = play/pause, arrows = the knob); `:` opens a command line.
        /// Only when stdin is a terminal; otherwise lines.
        case keys
    }

    /// `[buttons]`: libgpiod lines (BCM numbers on a Pi); nil means not wired.
    public struct Buttons: Sendable, Equatable {
        public var chip = "gpiochip0"
        public var playPause: Int?
        public var next: Int?
        public var previous: Int?
        /// A press or release counts once the line has been stable this long: noise pulses
        /// and bounce shorter than that are ignored (config/jukebox.toml has the measurements).
        public var debounceMs = 5
        public var longPressMs = 800
        public var repeatMs = 300
        public var doublePressMs = 300
        public var veryLongPressMs = 5000
        public var bias = LineBias.pullUp
        public var active = LineActive.low
        /// A Linux input device (`/dev/input/eventN`, gpio-keys overlay) read for KEY_* events.
        public var inputDevice = ""
        /// Run by `/bin/sh -c` for a `shutdown` gesture.
        public var shutdownCommand = "systemctl poweroff"
        /// `<button>_<gesture>` and `<button>+<button>` (chords) → a console command,
        /// `shutdown`, or `none`.
        public var gestures = ControlDefaults.buttonGestures

        /// The defaults.
        public init() {}
    }

    /// `[encoder]`: a rotary encoder with a push switch; nil lines mean not wired.
    public struct Encoder: Sendable, Equatable {
        public var chip = "gpiochip0"
        public var a: Int?
        public var b: Int?
        public var pushSwitch: Int?
        /// Quadrature steps per detent: 1, 2 or 4.
        public var stepsPerDetent = 4
        /// Per-line bounce lockout of A and B, in milliseconds; nil: none with 2 or 4 steps
        /// per detent (the state table cancels bounce out at every speed), 3 with 1 step.
        public var debounceMs: Int?
        public var turn = EncoderTurn.volume
        /// Volume percent (or seek seconds) per detent.
        public var step = 2
        public var direction = EncoderDirection.normal
        /// 1 = off; up to this many steps per detent when turned fast.
        public var acceleration = 1
        public var bias = LineBias.pullUp
        public var active = LineActive.low
        /// A Linux input device (`/dev/input/eventN`, rotary-encoder overlay) read for REL_* events.
        public var inputDevice = ""
        /// `switch_<gesture>` → a console command, `shutdown` or `none`.
        public var gestures = ControlDefaults.encoderGestures
        /// Held while the knob turns: scrub through the track (the jump comes at the release).
        public var scrubButton = ScrubButton.knobSwitch
        /// Seconds the scrub target moves per click.
        public var scrubStepSeconds = 10

        /// The defaults.
        public init() {}
    }

    /// The kind of display attached.
    public enum DisplayKind: String, Sendable, Equatable, CaseIterable {
        case framebuffer
        case serialLCD = "serial-lcd"
        case i2cLCD = "i2c-lcd"
        case terminal
        case none
    }

    /// The command set of a serial character LCD backpack.
    public enum SerialLCDProtocol: String, Sendable, Equatable, CaseIterable {
        /// SparkFun SerLCD and compatible: 0xFE then a raw HD44780 instruction.
        case serlcd
        /// Matrix Orbital: 0xFE 'G' col row, 0xFE 'N' custom characters, 0xFE 'X' clear.
        case matrixOrbital = "matrix-orbital"
    }

    /// `[display]`.
    public struct Display: Sendable, Equatable {
        public var kind = DisplayKind.none
        /// `/dev/fb1`, a serial tty or an I2C bus device; empty for the kind's default.
        public var device = ""
        /// Character displays (and the terminal display): columns × rows.
        public var columns = 16
        public var rows = 2
        /// Serial LCD baud rate.
        public var baud = 9600
        /// Serial LCD command set.
        public var serialProtocol = SerialLCDProtocol.serlcd
        /// I2C address of a PCF8574 LCD backpack (0x27 or 0x3F are usual).
        public var i2cAddress = 0x27
        /// A PSF font (e.g. /usr/share/consolefonts/Unifont-APL8x16.psf.gz) for the framebuffer; empty = built-in + Unifont if installed.
        public var font = ""

        /// The defaults.
        public init() {}
    }

    /// `[network]`: the MPD protocol listener.
    /// `[snapcast]`: the extra output that feeds snapserver's pipe source (multi-room).
    public struct Snapcast: Sendable, Equatable {
        /// The FIFO snapserver's `pipe://` source reads; empty for no Snapcast output.
        public var fifo = ""
        /// The source's `sampleformat` in snapserver.conf: `RATE:16:2` (S16 stereo).
        public var sampleFormat = "48000:16:2"
        /// The output's name in MPD's `outputs`.
        public var name = "Snapcast"

        /// The rate of `sampleFormat` when it is `RATE:16:2` with a rate snapserver takes.
        public var rate: Int? {
            let parts = sampleFormat.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "16", parts[2] == "2", let rate = Int(parts[0]),
                (8000...192_000).contains(rate)
            else { return nil }
            return rate
        }

        /// The defaults.
        public init() {}
    }

    public struct Network: Sendable, Equatable {
        /// The TCP address to listen on (`any` for every address, `none` for no TCP).
        public var address = "127.0.0.1"
        public var port = 6600
        /// A Unix socket path to listen on as well; empty for none.
        public var socket = ""
        /// A password that MPD clients must send before other commands; empty for none.
        public var password = ""
        /// The most MPD clients connected at once.
        public var maxConnections = 10

        /// The defaults.
        public init() {}
    }

    /// `[web]`: the family's web page, served by the separate `jukebox-web` process.
    public struct Web: Sendable, Equatable {
        /// The address jukebox-web listens on; `0.0.0.0` (every interface) by default.
        public var address = "0.0.0.0"
        public var port = 8080

        /// The defaults.
        public init() {}
    }

    /// `[mqtt]`: Home Assistant over MQTT, served by the separate `jukebox-mqtt` process.
    public struct MQTT: Sendable, Equatable {
        /// The broker; nil leaves jukebox-mqtt with nothing to do.
        public var broker: MQTTBroker?
        public var username = ""
        public var password = ""
        /// Home Assistant's discovery prefix.
        public var discoveryPrefix = "homeassistant"
        /// Where the box's own state and command topics live.
        public var topicPrefix = "jukebox"
        /// The CA certificate an `mqtts://` broker's certificate is checked against; empty for
        /// the system's CAs.
        public var caFile = ""

        /// The defaults.
        public init() {}
    }

    /// `[sleep]`: the sleep timer and idle power-off.
    public struct Sleep: Sendable, Equatable {
        /// The sleep timer fades out over its last seconds.
        public var fadeSeconds = 10
        public var then = SleepEnd.stop
        /// Power off after this long stopped or paused; 0 = never.
        public var idlePowerOffMinutes: Double = 0
        public var holdChip = "gpiochip0"
        /// A power switch's keep-on line, held while running and let go at power-off; nil for none.
        public var holdLine: Int?
        /// The level the line is held at (true: high; false for switches that cut on high).
        public var holdHigh = true

        /// `idlePowerOffMinutes` in milliseconds; nil for never.
        public var idlePowerOffMs: Int64? { idlePowerOffMinutes > 0 ? Int64(idlePowerOffMinutes * 60_000) : nil }

        /// The defaults.
        public init() {}
    }

    /// `[chapters]`: chapters of long files (MP4/M4B, ID3 CHAP, CUE sheets read as chapters).
    public struct Chapters: Sendable, Equatable {
        /// `next`/`previous` move by chapter in a file with chapters.
        public var navigate = true
        public var cueSheets = CueSheetReading.auto
        /// `auto`: a sheet over one file longer than this is its chapters.
        public var cueChaptersMinutes = 80

        public var cueChaptersMs: Int64 { Int64(cueChaptersMinutes) * 60_000 }

        /// The defaults.
        public init() {}
    }

    /// The player settings that come from this config.
    public var playerConfiguration: PlayerMachine.Configuration {
        PlayerMachine.Configuration(
            maxVolume: audio.maxVolume, startVolume: audio.startVolume, minVolume: audio.minVolume,
            headphoneMaxVolume: audio.headphoneMaxVolume, volumeLockedAtRest: audio.volumeLockedAtRest,
            longTrackMs: resume.longTrackMs)
    }
}
