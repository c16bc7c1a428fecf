import JukeboxCore
import Logging

extension Daemon {
    /// What the card readers read: each is the event `card ID` / `card none` injects from a
    /// console. Until the cards' mapping and place-to-play are wired (issue 17 items 2-4),
    /// the daemon logs them.
    func handleCardReads(_ reads: [(reader: String, event: CardEvent)]) {
        for (reader, event) in reads {
            logger.info("card reader \(reader): \(event)")
        }
    }
}
