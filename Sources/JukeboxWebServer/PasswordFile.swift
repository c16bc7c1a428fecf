import CCrypt
import Glibc
import JukeboxWeb
import LinuxSupport

/// The web page's password: its yescrypt hash (libcrypt, as Debian hashes /etc/shadow), in a
/// file of its own beside the daemon's database, readable by its owner only.
struct PasswordFile: Sendable {
    let path: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var isSet: Bool { (try? storedHash()) != nil }

    func storedHash() throws -> String {
        let bytes = try readWholeFile(path, limit: 1024)
        guard let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("$") else {
            throw Failure(description: "\(path): not a password hash")
        }
        return String(text.prefix { $0 != "\n" })
    }

    /// Whether `password` is the one set (the comparison takes the same time however much matched).
    func matches(_ password: String) -> Bool {
        guard let stored = try? storedHash(), let hash = try? Self.hash(password, setting: stored) else { return false }
        return SecretText.equal(hash, stored)
    }

    /// Hashes `password` with a new salt and writes it atomically (mode 0600).
    func set(_ password: String) throws {
        guard let setting = crypt_gensalt_ra("$y$", 0, nil, 0) else {
            throw Failure(description: "libcrypt cannot make a salt: \(String(cString: strerror(errno)))")
        }
        defer { free(setting) }
        let hash = try Self.hash(password, setting: String(cString: setting))
        try FileSystem.writeAtomically(Array((hash + "\n").utf8), to: path, mode: 0o600)
    }

    static func hash(_ password: String, setting: String) throws -> String {
        var data: UnsafeMutableRawPointer?
        var size: Int32 = 0
        defer { free(data) }
        guard let result = crypt_ra(password, setting, &data, &size), result.pointee != UInt8(ascii: "*") else {
            throw Failure(
                description: "libcrypt cannot hash with \(setting.prefix(4)): \(String(cString: strerror(errno)))")
        }
        return String(cString: result)
    }
}
