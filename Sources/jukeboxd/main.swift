import JukeboxDaemon

JukeboxdCommand.main()
