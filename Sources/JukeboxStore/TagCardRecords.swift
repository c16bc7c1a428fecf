import JukeboxCore
import SQLite

// NFC/RFID cards in the database (`tag_cards`): what each plays and where its music was left.

extension LibraryStore {
    /// Every card, by ID. Rows of a kind this version does not know are skipped.
    public func tagCards() throws -> [TagCard] {
        let rows = try cached(
            "SELECT \(Self.tagCardColumns) FROM tag_cards ORDER BY id")
        defer { rows.reset() }
        var cards: [TagCard] = []
        while try rows.step() {
            if let card = Self.tagCard(rows) { cards.append(card) }
        }
        return cards
    }

    /// The card `id`, if it is known.
    public func tagCard(id: String) throws -> TagCard? {
        let row = try cached(
            "SELECT \(Self.tagCardColumns) FROM tag_cards WHERE id = ?")
        defer { row.reset() }
        try row.bind(id, at: 1)
        return try row.step() ? Self.tagCard(row) : nil
    }

    /// Stores what the cards do (one transaction, fsync'd: the user just said so). A card whose
    /// content changed forgets its place; one whose content stayed keeps it. A card's name is
    /// set when `card.name` is given and kept when it is nil (`card assign`, an old file).
    public func assignTagCards(_ cards: [TagCard]) throws {
        let upsert = try cached(
            """
            INSERT INTO tag_cards(id, kind, artist, value, policy, name) VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6, ''))
            ON CONFLICT(id) DO UPDATE SET
                track_path = CASE WHEN (kind, artist, value) = (excluded.kind, excluded.artist, excluded.value)
                    THEN track_path END,
                position_ms = CASE WHEN (kind, artist, value) = (excluded.kind, excluded.artist, excluded.value)
                    THEN position_ms END,
                kind = excluded.kind, artist = excluded.artist, value = excluded.value, policy = excluded.policy,
                name = CASE WHEN ?6 IS NULL THEN name ELSE excluded.name END
            """)
        try connection.transaction(durable: true) {
            for card in cards {
                let (kind, values) = card.content.parts
                try upsert.bind(card.id, at: 1)
                try upsert.bind(kind, at: 2)
                try upsert.bind(values.count == 2 ? values[0] : "", at: 3)
                try upsert.bind(values.last ?? "", at: 4)
                try upsert.bind(card.policy?.rawValue, at: 5)
                try upsert.bind(card.name, at: 6)
                try upsert.run()
            }
        }
    }

    /// Sets card `id`'s policy (nil: by length); false when the card is unknown.
    public func setTagCardPolicy(_ policy: TagCard.Policy?, id: String) throws -> Bool {
        let update = try cached("UPDATE tag_cards SET policy = ? WHERE id = ?")
        return try connection.transaction(durable: true) {
            try update.bind(policy?.rawValue, at: 1)
            try update.bind(id, at: 2)
            try update.run()
            return connection.changes > 0
        }
    }

    /// Names card `id` (already checked: `TagCard.checkedName`; "" clears it); false when the
    /// card is unknown.
    public func setTagCardName(_ name: String, id: String) throws -> Bool {
        let update = try cached("UPDATE tag_cards SET name = ? WHERE id = ?")
        return try connection.transaction(durable: true) {
            try update.bind(name, at: 1)
            try update.bind(id, at: 2)
            try update.run()
            return connection.changes > 0
        }
    }

    /// Card `id` was put on the reader at `seconds` (UTC). Once per read, never per poll of
    /// the reader, and unsynced as the place is: the resume commit that follows makes it
    /// durable (WAL order), so a read costs the SD card no fsync of its own.
    public func setTagCardLastUsed(_ seconds: Int64, id: String) throws {
        let update = try cached("UPDATE tag_cards SET last_used = ? WHERE id = ?")
        try connection.transaction(durable: false) {
            try update.bind(seconds, at: 1)
            try update.bind(id, at: 2)
            try update.run()
        }
    }

    /// Forgets card `id`; false when it was unknown.
    public func forgetTagCard(id: String) throws -> Bool {
        let delete = try cached("DELETE FROM tag_cards WHERE id = ?")
        return try connection.transaction(durable: true) {
            try delete.bind(id, at: 1)
            try delete.run()
            return connection.changes > 0
        }
    }

    /// Where card `id`'s music was left. Unsynced: the resume commit that follows makes it
    /// durable (WAL order), so it costs no fsync of its own.
    public func setTagCardPlace(_ place: PlayHistory.Place, id: String) throws {
        let update = try cached("UPDATE tag_cards SET track_path = ?, position_ms = ? WHERE id = ?")
        try connection.transaction(durable: false) {
            try update.bind(place.trackPath, at: 1)
            try update.bind(place.positionMs, at: 2)
            try update.bind(id, at: 3)
            try update.run()
        }
    }

    private static func tagCard(_ row: Statement) -> TagCard? {
        let kind = row.string(at: 1) ?? ""
        let artist = row.string(at: 2) ?? ""
        let value = row.string(at: 3) ?? ""
        guard
            case .success(let content) = TagCard.Content.make(
                kind: kind, values: artist.isEmpty ? [value] : [artist, value])
        else { return nil }
        let place =
            row.isNull(at: 5)
            ? nil : PlayHistory.Place(trackPath: row.string(at: 5) ?? "", positionMs: row.int64(at: 6))
        let name = row.string(at: 7) ?? ""
        return TagCard(
            id: row.string(at: 0) ?? "", content: content, policy: row.string(at: 4).flatMap(TagCard.Policy.init),
            place: place, name: name.isEmpty ? nil : name, lastUsed: row.isNull(at: 8) ? nil : row.int64(at: 8))
    }

    private static let tagCardColumns = "id, kind, artist, value, policy, track_path, position_ms, name, last_used"
}
