public enum JukeboxDaemonMain { public static func main() {} }
