import JukeboxDaemon
JukeboxDaemonMain.main()
