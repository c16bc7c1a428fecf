// Playback speed. A long track (a book) keeps the speed it was last played at, and gets it
// back whenever it starts again; every other track plays at the box's speed, which a speed
// chosen during such a track sets. So an audiobook at 1.5× and the music after it at 1.0×
// each come back as they were left. Speeds are in track time: positions, the resume point
// and the lyrics do not change with them.
extension PlayerMachine {
    /// `speed X` (also a step or the cycle): applied now, and remembered for the current track
    /// when it is long, else as the box's speed.
    mutating func choose(_ chosen: PlaybackSpeed, into actions: inout [PlayerAction]) {
        if let track = queue.currentTrack, isLong(track) {
            savedSpeeds[track] = chosen
            actions.append(.rememberSpeed(chosen, track: track))
        } else {
            boxSpeed = chosen
            actions.append(.rememberSpeed(chosen, track: nil))
        }
        apply(chosen, into: &actions)
        actions.append(.reply("speed: \(chosen)"))
    }

    /// The speed `track` plays at: its own when it is long and has one, else the box's.
    public func speed(for track: TrackID) -> PlaybackSpeed {
        isLong(track) ? savedSpeeds[track] ?? boxSpeed : boxSpeed
    }

    /// A track becomes the current one: its speed takes over.
    mutating func followSpeed(of track: TrackID, into actions: inout [PlayerAction]) {
        apply(speed(for: track), into: &actions)
    }

    private mutating func apply(_ next: PlaybackSpeed, into actions: inout [PlayerAction]) {
        guard next != speed else { return }
        speed = next
        actions.append(.setSpeed(next))
    }
}
