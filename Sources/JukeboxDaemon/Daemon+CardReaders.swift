import JukeboxCore
import Logging

extension Daemon {
    /// What the card readers read: the same events as `card ID` / `card none` on a console,
    /// through the same debounce and place-to-play.
    func handleCardReads(_ reads: [(reader: String, event: CardEvent)]) {
        for (reader, event) in reads {
            logger.info("card reader \(reader): \(event)")
            switch event {
            case .read(let id): handleTagCard(.read(id))
            case .removed: handleTagCard(.removed)
            }
        }
    }
}
