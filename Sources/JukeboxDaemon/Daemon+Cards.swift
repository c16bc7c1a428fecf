import Glibc
import JukeboxCore
import JukeboxStore
import LinuxSupport
import MPDProtocol

// NFC/RFID cards (control thread). A reader's reads and removals (and `card ID` / `card none`
// on every console) go through the core's `TagCardPresence`, which debounces removals and
// says play, continue, pause or swiped again; what a card plays comes from `tag_cards`.
//
// A card holds the queue while the music it chose is the queue's source (`history.source`):
// its removal pauses that music and it continues it when it comes back, also after a restart
// (the resume journal put the queue back within 2 s of where it was). The place of a card whose
// music is left for another's is written with Recently played's entry (at the switch, at a
// pause or stop, and with the resume commits, unsynced and made durable by the next commit):
// no writes of its own while music plays. A known card's read writes its `last_used` once,
// unsynced the same way (SD cards wear: never per poll of the reader, no fsync of its own),
// and only when the box trusts its wall clock (`[rules] clock`): a Pi without NTP yet would
// record a day of 1970 or the day it was last switched off.

extension Daemon {
    /// A read or a removal at a reader (or typed on a console).
    func handleTagCard(_ event: TagCardPresence.Event) {
        perform(boxMachine.handle(.card(event), now: Instant.now))
    }

    /// What the card presence (in the box machine) decided.
    func perform(_ action: TagCardPresence.Action) {
        logger.debug("card: \(action)")
        switch action {
        case .play(let id), .resume(let id):
            putOn(id)
        case .pause(let id):
            guard let card = holdingCard, card.id == id, holdsQueue(card) else { return }
            refreshPosition()
            perform(machine.handle(.command(.pause), now: Instant.now))
        case .swipeAgain(let id, let again):
            guard let card = holdingCard, card.id == id, holdsQueue(card) else { return putOn(id) }
            feedback(.cardRead)
            light.handle(.cardRead, now: Instant.now)
            switch again {
            case .toggle: perform(machine.handle(.command(.toggle), now: Instant.now))
            case .skip: perform(machine.handle(.command(.next), now: Instant.now))
            case .restart:
                if case .source(let source) = card.content { play(source, trackPath: nil, positionMs: 0) }
            case .nothing: break
            }
        }
    }

    /// Whether the queue still holds `card`'s music.
    func holdsQueue(_ card: TagCard) -> Bool {
        if case .source(let source) = card.content { return history.source == source }
        return false
    }

    /// Card `id` was put on the reader: its music continues if the queue holds it, else
    /// plays (from where it was left, as its policy says); a command runs; an unknown card
    /// opens the menu to learn what it plays.
    private func putOn(_ id: String) {
        startingCard = id
        defer { startingCard = nil }
        refreshPosition()  // where the music that plays now is left
        let card: TagCard?
        do {
            card = try store.tagCard(id: id)
        } catch {
            logger.error("card \(id): cannot read the card mapping: \(error)")
            light.handle(.error, now: Instant.now)
            return
        }
        light.handle(.cardRead, now: Instant.now)
        mpd.lastCard = id
        mpd.cardReads += 1
        mpd.observer.mark(.cards)
        guard let card else {
            if !announce(.unknownCard) { feedback(.unknownCard) }
            learningCard = id
            mpd.lastUnknownCard = id
            logger.info("card \(id): new card; choose what it plays in the menu")
            console?.announce("new card \(id): choose what it plays in the menu")
            display?.announce("New card", now: Instant.now)
            openMenu(at: Instant.now)
            return
        }
        recordUse(of: id)
        if card.content.isMusic, let refusal = startRefusal(card: id) {
            // The queue stays as it is: the card's music did not start.
            announceRefusal(refusal)
            return
        }
        switch card.content {
        case .source(let source):
            if holdsQueue(card) {
                feedback(.cardRead)
                holdingCard = card
                logger.info("card \(id): continuing \(source.title)")
                if machine.state != .playing { perform(machine.handle(.command(.play(index: nil)), now: Instant.now)) }
                return
            }
            var start: PlayHistory.Place?
            if let place = card.place,
                card.continues(durationMs: durationMs(of: source), continueOverMs: config.cards.continueOverMs)
            {
                start = place
            }
            let count = play(source, trackPath: start?.trackPath, positionMs: start?.positionMs ?? 0)
            guard count > 0 else {
                feedback(.nothingToPlay)
                light.handle(.error, now: Instant.now)
                console?.announce("card \(id): nothing to play in \(source.title)")
                return
            }
            feedback(.cardRead)
            holdingCard = card
            console?.announce("card \(id): playing \(source.title)")
        case .url(let url):
            playStation(url)
            console?.announce("card \(id): playing \(url)")
        case .command(let line):
            feedback(.cardRead)
            logger.info("card \(id): \(line)")
            handleConsoleLine(line)
        }
    }

    /// When card `id` was put on the reader, when the wall clock can be trusted.
    private func recordUse(of id: String) {
        guard let now = rulesWallTime else { return }
        do {
            try store.setTagCardLastUsed(now.utcSeconds, id: id)
        } catch {
            logger.error("card \(id): cannot save when it was used: \(error)")
        }
    }

    /// The length of `source`'s music, for the place policy.
    private func durationMs(of source: PlaySource) -> Int64 {
        (trackIDs(of: source, only: nil) ?? []).reduce(0) { $0 + (library[$1]?.durationMs ?? 0) }
    }

    /// Where the music of the card holding the queue was left: written with its Recently
    /// played entry (`recordHistory`).
    func saveCardPlace(_ entry: RecentlyPlayed.Entry) {
        guard let card = holdingCard, card.content == .source(entry.source) else { return }
        let place = PlayHistory.Place(trackPath: entry.trackPath, positionMs: entry.positionMs)
        do {
            try store.setTagCardPlace(place, id: card.id)
        } catch {
            logger.error("card \(card.id): cannot save its place: \(error)")
        }
    }

    /// After a restart (a kill -9, a power cut) the queue may hold a card's music again: that
    /// card holds it, so that its place is written when other music replaces it, as before.
    func findHoldingCard() {
        guard let source = history.source else { return }
        do {
            holdingCard = try store.tagCards().first { $0.content == .source(source) }
        } catch {
            logger.error("cannot read the card mapping: \(error)")
        }
    }

    /// The menu chose `source` while a new card waited: the card plays it from now on.
    func learn(_ source: PlaySource) {
        guard let id = learningCard else { return }
        learningCard = nil
        let card = TagCard(id: id, content: .source(source))
        do {
            try store.assignTagCards([card])
        } catch {
            logger.error("card \(id): cannot save what it plays: \(error)")
            return
        }
        holdingCard = card
        mpd.observer.mark(.cards)
        logger.info("card \(id): now plays \(source.title)")
        console?.announce("card \(id): now plays \(source.title)")
    }
}

/// The card mapping in `tag_cards` as every console's `card` words manage it, and its file
/// (CSV, or TOML when the name ends in `.toml`).
struct TagCardMapping: MPDTagCardMapping {
    let store: LibraryStore
    /// The last card read that played nothing; `card unknown` names it until it is assigned.
    let lastUnknown: String?
    /// The last card read, and the reads since the daemon started (`card last`).
    let lastCard: String?
    let cardReads: Int

    /// A problem with the mapping file.
    struct FileProblem: Error, CustomStringConvertible {
        var description: String
    }

    func run(_ command: TagCardCommand) throws -> [String] {
        switch command {
        case .assign(let card):
            try store.assignTagCards([card])
            return ["\(card.id) \(card.content.description)"]
        case .policy(let id, let policy):
            guard try store.setTagCardPolicy(policy, id: id) else { throw FileProblem(description: "no card \(id)") }
            return []
        case .name(let id, let name):
            guard try store.setTagCardName(name, id: id) else { throw FileProblem(description: "no card \(id)") }
            return []
        case .list:
            return try store.tagCards().map(TagCardCommand.listLine)
        case .info:
            return TagCardCommand.infoLines(try store.tagCards())
        case .unknown:
            guard let id = lastUnknown, try store.tagCard(id: id) == nil else { return [] }
            return TagCardCommand.unknownLines(id)
        case .last:
            return TagCardCommand.lastLines(lastCard, reads: cardReads)
        case .forget(let id):
            guard try store.forgetTagCard(id: id) else { throw FileProblem(description: "no card \(id)") }
            return []
        case .export(let path):
            let cards = try store.tagCards()
            let fd = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
            try fd.writeAll(Array(TagCardFile.text(cards, as: TagCardFile.Format(path: path)).utf8))
            try fd.syncData()
            return ["\(cards.count) cards written to \(path)"]
        case .import(let path):
            let text = String(decoding: try readWholeFile(path, limit: 4 << 20), as: UTF8.self)
            let (cards, problems) = TagCardFile.parse(text, as: TagCardFile.Format(path: path))
            guard problems.isEmpty else {
                // Nothing is imported from a file with a bad line: fix it and import again.
                throw FileProblem(description: "\(path): nothing imported; " + problems.joined(separator: "; "))
            }
            try store.assignTagCards(cards)
            return ["\(cards.count) cards read from \(path)"]
        case .read, .removed:
            return []
        }
    }
}
