import JukeboxCore

/// The libraries of the menu's snapshots (`MenuScreenTests`, the user guide's pictures), for the
/// display tests and for `jukeboxd render --menu` over a database of them.
public enum MenuLibrary {
    /// 14 albums of 12 tracks: accents, a leading "The", numbers and CJK names.
    public static let albums: [TrackInfo] = {
        let albums: [(String, String)] = [
            ("ABBA", "Arrival"), ("ABBA", "Voulez-Vous"), ("The Beatles", "Abbey Road"), ("Björk", "Homogenic"),
            ("Édith Piaf", "La Vie en rose"), ("Daft Punk", "Discovery"), ("10cc", "Sheet Music"),
            ("Miles Davis", "Kind of Blue"), ("Nina Simone", "Pastel Blues"), ("Queen", "A Night at the Opera"),
            ("Sigur Rós", "Ágætis byrjun"), ("邓丽君", "淡淡幽情"), ("Zaz", "Zaz"), ("2Pac", "Me Against the World"),
        ]
        var tracks: [TrackInfo] = []
        for (artist, album) in albums {
            for number in 1...12 {
                tracks.append(
                    TrackInfo(
                        id: TrackID(tracks.count + 1), path: "\(artist)/\(album)/\(number).mp3",
                        title: "Track \(number)", artist: artist, album: album, trackNumber: number))
            }
        }
        return tracks
    }()

    /// 64 one-track albums, 8 per initial letter A–H: a list long enough to jump by letter.
    public static let letters: [TrackInfo] = {
        var tracks: [TrackInfo] = []
        for (i, name) in ["Amber", "Blue", "Cold", "Dusk", "Echo", "Fire", "Gold", "Haze"].enumerated() {
            for n in 0..<8 {
                tracks.append(
                    TrackInfo(
                        id: TrackID(i * 100 + n), path: "\(name) \(n)/1.mp3", title: "One", artist: "Band \(n)",
                        album: "\(name) \(n)", trackNumber: 1))
            }
        }
        return tracks
    }()
}
