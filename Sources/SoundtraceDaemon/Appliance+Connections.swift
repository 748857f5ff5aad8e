import SoundtracePlatform
import SoundtraceProtocol

extension Appliance {
    /// A client connected: loopback clients may control, others read until they present the token.
    func clientConnected(_ client: LineServer.Client) {
        state.withLock { $0.clients[client.id] = ClientState(client: client, permission: client.isLoopback ? .control : .read) }
    }

    func clientDisconnected(_ client: LineServer.Client) {
        state.withLock { $0.clientDisconnected(client) }
    }

    /// One line from a client. Lines that arrive while a delayed answer is pending wait for it,
    /// so answers always come in the order of the commands.
    func clientLine(_ client: LineServer.Client, _ line: [UInt8]) {
        state.withLock { $0.clientLine(client, line) }
    }

    /// The earliest monotonic time a delayed answer is due, if any. A method, not a property:
    /// it takes the state's lock, so it must not be called from inside `state.withLock`.
    func nextTimerDue() -> Int64? {
        state.withLock { state in
            [state.clients.values.compactMap(\.heldUntil).min(), state.pendingOpen?.deadlineMonotonic].compactMap { $0 }.min()
        }
    }

    /// Sends delayed answers that are due, then runs the lines that waited for them.
    func fireTimers() {
        state.withLock { $0.fireTimers() }
    }
}

extension ApplianceState {
    mutating func clientDisconnected(_ client: LineServer.Client) {
        if clients.removeValue(forKey: client.id)?.heldUntil != nil { environment.timersChanged() }
        deferredStarts.removeAll { $0 == .client(client.id) }
    }

    /// Answers `error` and closes the connection, forgetting the client.
    private mutating func refuseAndHangUp(_ client: LineServer.Client, _ error: ProtocolError) {
        channel.send(ProtocolText.reply(error), to: client)
        channel.close(client)
        clients[client.id] = nil
    }

    mutating func clientLine(_ client: LineServer.Client, _ line: [UInt8]) {
        guard var state = clients[client.id] else { return }
        if state.isHolding {
            guard state.heldLines.count < ClientState.maxHeldLines else {
                refuseAndHangUp(client, ProtocolError(.badArguments, command: "", "too many commands while waiting for an answer"))
                return
            }
            state.heldLines.append(line)
            clients[client.id] = state
            return
        }
        process(line, client: client)
        reportHolding(of: client.id)
    }

    mutating func fireTimers() {
        let now = environment.clock.monotonicMilliseconds()
        endPendingOpenIfDue(now: now)
        for id in Array(clients.keys) {
            guard var state = clients[id], let due = state.heldUntil, due <= now else { continue }
            channel.send(state.heldReply, to: state.client)
            if state.closeAfterHeld {
                channel.close(state.client)
                clients[id] = nil
                continue
            }
            state.heldUntil = nil
            state.heldReply = ""
            clients[id] = state
            runHeldLines(of: id)
            reportHolding(of: id)
        }
    }

    /// Tells the server whether an answer to `id` is held back now, so that a client that has
    /// finished sending (`printf 'listen\n' | nc`) stays connected until it has its answers. Called
    /// after the answers that were due are queued: the server closes such a client once told.
    mutating func reportHolding(of id: Int) {
        guard var state = clients[id], state.isHolding != state.serverKeepsOpen else { return }
        state.serverKeepsOpen = state.isHolding
        clients[id] = state
        channel.setAwaitingAnswer(state.client, state.isHolding)
    }

    /// Runs the lines a client sent while its answer waited, in order, until one makes it wait again.
    mutating func runHeldLines(of id: Int) {
        guard var state = clients[id] else { return }
        let waiting = state.heldLines
        state.heldLines = []
        clients[id] = state
        for (index, line) in waiting.enumerated() {
            process(line, client: state.client)
            // A line that delayed its answer again keeps the rest waiting behind it.
            if var again = clients[id], again.isHolding {
                again.heldLines.append(contentsOf: waiting[(index + 1)...])
                clients[id] = again
                break
            }
        }
    }

    private mutating func process(_ line: [UInt8], client: LineServer.Client) {
        guard var state = clients[client.id] else { return }
        let request: ProtocolRequest
        switch ProtocolRequest.parse(line[...]) {
        case let .success(parsed):
            request = parsed
        case .failure(.empty):
            return
        case let .failure(.notACommand(why)):
            // Not our protocol (binary junk, an HTTP request): say so once and hang up.
            refuseAndHangUp(client, ProtocolError(.unknownCommand, command: "", "\(why); this port speaks the Soundtrace line protocol"))
            return
        case .failure(.tooLong):
            refuseAndHangUp(client, ProtocolError(.badArguments, command: "", "line longer than \(ProtocolRequest.maxLineBytes) bytes"))
            return
        case let .failure(.malformed(why)):
            channel.send(ProtocolText.reply(ProtocolError(.badArguments, command: "", why)), to: client)
            return
        }
        // Every command, noidle too, is checked against the command table (permission, argument
        // count) first, so a noidle with arguments is refused like any wrong argument count.
        let checked = request.check(permission: state.permission)
        if state.idling != nil {
            if request.command == ProtocolCommand.noidle.name {
                // A malformed noidle is refused like any command; the idle keeps waiting.
                if case let .failure(error) = checked {
                    channel.send(ProtocolText.reply(error), to: client)
                    return
                }
                state.idling = nil
                channel.setIdleExempt(client, false)
                clients[client.id] = state
                channel.send(ProtocolText.reply([]), to: client)
            } else {
                channel.send(
                    ProtocolText.reply(ProtocolError(.badArguments, command: request.command, "only noidle is allowed while idle")),
                    to: client)
            }
            return
        }
        do throws(ProtocolError) {
            // Commands read and write this client's state in `clients` themselves: a command can
            // change every client's state (a listen marks `state` changed for all).
            switch try execute(checked.get(), request.arguments, client: client) {
            case let .reply(pairs):
                channel.send(ProtocolText.reply(pairs), to: client)
            case .waiting:
                break
            case .deferred:
                // Runs again, first of its held lines, when the previous device has closed.
                if var deferred = clients[client.id] {
                    deferred.heldLines.insert(line, at: 0)
                    deferred.awaitingCapture = true
                    clients[client.id] = deferred
                }
            }
        } catch {
            channel.send(ProtocolText.reply(error), to: client)
        }
    }
}
