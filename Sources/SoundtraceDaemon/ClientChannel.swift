import SoundtracePlatform

/// Where replies go: the protocol server in the daemon, a recorder in tests. Both calls only
/// queue work, so the appliance may call them while it holds its lock.
protocol ClientChannel: AnyObject, Sendable {
    func send(_ text: String, to client: LineServer.Client)
    func close(_ client: LineServer.Client)
}

extension LineServer: ClientChannel {}
