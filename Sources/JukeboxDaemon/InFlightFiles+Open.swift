import LinuxSupport
import Logging

extension InFlightFiles {
    /// The record at `path`, with each file the previous run crashed reading logged, marked
    /// by this process's crash signals from now on; nil (and
    /// the reason logged) when it cannot be kept: the box then plays without that guard.
    static func open(path: String, logger: Logger) -> InFlightFiles? {
        do {
            let files = try InFlightFiles(path: path)
            for suspect in files.suspects {
                logger.error(
                    "the previous start stopped abnormally while reading \(suspect.path) (\(suspect.reader)): skipping that file"
                )
            }
            try files.markCrashes()
            return files
        } catch {
            logger.error("cannot keep the record of the files being read: \(error)")
            return nil
        }
    }
}
