import JukeboxDaemon

Jukeboxd.main(arguments: Array(CommandLine.arguments.dropFirst()))
