import Glibc
import JukeboxAudio
import JukeboxStore
import LinuxSupport
import MPDProtocol

/// The MPD commands' view of music_dir's files and of the sticker table: the store's
/// `MusicFolder` and `LibraryStore` behind the protocol's interfaces (the protocol target
/// stays free of I/O).
struct MusicFiles: MPDMusicFolder {
    let folder: MusicFolder

    func entries(in uri: String) throws -> [MPDFileEntry] {
        do {
            return try folder.entries(in: uri).map { MPDFileEntry(name: $0.name, size: $0.size, modified: $0.modified) }
        } catch {
            // MPD's words for a folder it cannot open (DirectoryReader).
            throw MPDError(.system, "Failed to open \(error.path ?? uri): \(error.message)")
        }
    }

    func coverArt(in folder: String, offset: Int, limit: Int) throws -> MPDBinaryChunk? {
        try self.folder.coverFile(in: folder, names: MPDCommands.coverNames, offset: offset, limit: limit).map {
            MPDBinaryChunk(size: $0.size, bytes: $0.bytes)
        }
    }

    func embeddedPicture(of uri: String, offset: Int, limit: Int) throws -> MPDBinaryChunk? {
        try loading { () throws(Errno) in try folder.embeddedPicture(of: uri, offset: offset, limit: limit) }.map {
            MPDBinaryChunk(size: $0.size, mimeType: $0.mimeType, bytes: $0.bytes)
        }
    }

    /// An MP4 file's tags as FFmpeg reads them (MPD reads them through FFmpeg too); other
    /// files' user text tags.
    func comments(of uri: String) throws -> [(name: String, value: String)] {
        let path = folder.root + "/" + uri
        if (try? AudioFileKind.of(path: path))?.name == AudioFileKind.mp4.name {
            return try loading { try MP4FileDecoder.allTags(path: path).map { ($0.key, $0.value) } }
        }
        return try loading { () throws(Errno) in try folder.userTexts(of: uri) }
    }

    /// A song file that cannot be opened is MPD's `Failed to load file`.
    private func loading<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw MPDError(.noExist, "Failed to load file")
        }
    }
}

/// The sticker table of the daemon's database.
struct Stickers: MPDStickerDatabase {
    let store: LibraryStore

    func value(type: String, uri: String, name: String) throws -> String? {
        try store.sticker(type: type, uri: uri, name: name)
    }

    func values(type: String, uri: String) throws -> [(name: String, value: String)] {
        try store.stickers(type: type, uri: uri)
    }

    func set(type: String, uri: String, name: String, value: String) throws {
        try store.setSticker(type: type, uri: uri, name: name, value: value)
    }

    func delete(type: String, uri: String, name: String?) throws -> Bool {
        try store.deleteStickers(type: type, uri: uri, name: name)
    }

    func find(type: String, prefix: String, name: String, match: MPDStickerMatch) throws -> [(
        uri: String, value: String
    )] {
        let comparison: (LibraryStore.StickerComparison, String)?
        switch match {
        case .exists: comparison = nil
        case .equals(let value): comparison = (.equal, value)
        case .lessThan(let value): comparison = (.less, value)
        case .greaterThan(let value): comparison = (.greater, value)
        }
        return try store.findStickers(type: type, prefix: prefix, name: name, comparison: comparison)
    }

    func names(type: String?) throws -> [String] { try store.stickerNames(type: type) }
}
