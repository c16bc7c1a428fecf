/// What a client sets for its own connection: `tagtypes` and MPD 0.24's `protocol`, with
/// MPD 0.24's sub commands and messages (src/command/ClientCommands.cxx).
extension MPDCommands {
    /// `tagtypes [all|clear|enable NAME...|disable NAME...|available|reset NAME...]`. The
    /// tags a client turns off are still sent (MPD leaves them out; clients read what they
    /// know and skip the rest), so the list is always every tag the library keeps.
    static func tagTypes(_ c: inout Call) throws {
        guard let sub = c.arguments.first else {
            listTagTypes(&c)
            return
        }
        let names = c.arguments.dropFirst()
        switch sub {
        case "all", "clear":
            guard names.isEmpty else { throw MPDError(.argument, "Too many arguments") }
        case "enable", "disable", "reset":
            guard !names.isEmpty else { throw MPDError(.argument, "Not enough arguments") }
        case "available":
            listTagTypes(&c)
        default:
            throw MPDError(.argument, "Unknown sub command")
        }
    }

    static func listTagTypes(_ c: inout Call) {
        for tag in MPDTag.allCases where tag.isShown { c.response.add("tagtype", tag.rawValue) }
    }

    /// `protocol [all|clear|enable FEATURE...|disable FEATURE...|available]` (MPD 0.24): the
    /// features this connection uses (`feature: NAME` lines).
    static func protocolFeatures(_ c: inout Call) throws {
        guard let sub = c.arguments.first else {
            for feature in MPDProtocolFeature.allCases where c.protocolFeatures.contains(feature) {
                c.response.add("feature", feature.rawValue)
            }
            return
        }
        let names = c.arguments.dropFirst()
        switch sub {
        case "all", "clear", "available":
            guard names.isEmpty else { throw MPDError(.argument, "Too many arguments") }
            if sub == "all" { c.protocolFeatures = Set(MPDProtocolFeature.allCases) }
            if sub == "clear" { c.protocolFeatures = [] }
            if sub == "available" {
                for feature in MPDProtocolFeature.allCases { c.response.add("feature", feature.rawValue) }
            }
        case "enable", "disable":
            guard !names.isEmpty else { throw MPDError(.argument, "Not enough arguments") }
            var features: Set<MPDProtocolFeature> = []
            for name in names {
                guard let feature = MPDProtocolFeature(name: name) else {
                    throw MPDError(.argument, "Unknown protocol feature")
                }
                features.insert(feature)
            }
            if sub == "enable" {
                c.protocolFeatures.formUnion(features)
            } else {
                c.protocolFeatures.subtract(features)
            }
        default:
            throw MPDError(.argument, "Unknown sub command")
        }
    }
}
