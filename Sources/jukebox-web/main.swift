import JukeboxWebServer

// Wiring only: WebServer reads the config and serves the page.
await WebServer.main(arguments: Array(CommandLine.arguments.dropFirst()))
