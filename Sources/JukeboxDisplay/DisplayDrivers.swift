import JukeboxCore
import Logging

/// Opens the hardware display drivers named by `[display] kind`.
public enum DisplayDrivers {
    /// The driver for `config`, or nil (logged) when it cannot be opened.
    public static func open(config: JukeboxConfig.Display, logger: Logger) -> TextDisplay? {
        logger.error("display: kind '\(config.kind.rawValue)' is not supported yet; going on without a display")
        return nil
    }
}
