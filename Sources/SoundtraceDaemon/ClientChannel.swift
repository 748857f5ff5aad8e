import SoundtracePlatform

/// Where replies go: the protocol server in the daemon, a recorder in tests. Both calls only
/// queue work, so the appliance may call them while it holds its lock.
protocol ClientChannel: AnyObject, Sendable {
    func send(_ text: String, to client: LineServer.Client)
    func close(_ client: LineServer.Client)
    /// While a client waits in `idle` the idle timeout does not apply to it.
    func setIdleExempt(_ client: LineServer.Client, _ exempt: Bool)
    /// While an answer to a client is held back, a client that has finished sending stays connected.
    func setAwaitingAnswer(_ client: LineServer.Client, _ awaiting: Bool)
}

extension LineServer: ClientChannel {}
