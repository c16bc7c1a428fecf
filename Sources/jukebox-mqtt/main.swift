import JukeboxMQTT

// Wiring only: MQTTBridgeProcess reads the config and runs the bridge.
MQTTBridgeProcess.main(arguments: Array(CommandLine.arguments.dropFirst()))
