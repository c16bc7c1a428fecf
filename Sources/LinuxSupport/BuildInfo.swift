import CLinuxShims

/// What the binary was built from, as `jukeboxd --version` says it.
public enum BuildInfo {
    /// "7af7f62c1a2b 2026-12-07" when Board/build-jukeboxd.sh stamped the binary, nil in a
    /// development build.
    public static var commit: String? {
        let text = String(cString: jb_build_commit())
        return text.isEmpty ? nil : text
    }
}
