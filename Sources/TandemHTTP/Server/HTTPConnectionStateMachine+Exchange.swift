/// The two halves of a request's way through the connection: parsed and admitted into a
/// slot (in order, deferred behind unsafe requests if safe), then its answer serialized once
/// every earlier answer has been.
extension HTTPConnectionStateMachine {
    // MARK: requests in

    /// The next request to dispatch in this parse pass, or nil when the pass is over (no
    /// complete request buffered, the pipeline full, held behind unsafe requests, or done).
    mutating func nextRequest(now: UInt64) -> Action? {
        while lifecycle == .open {
            if let request = deferred {
                guard unsafeInFlight == 0 else {
                    inputHeldBack = true
                    return nil
                }
                deferred = nil
                return admit(request, now: now)
            }
            if pendingCount >= Self.maxPipelined {
                inputHeldBack = true
                return nil
            }
            let next: HTTPRequestParser.Event?
            do {
                next = try parser.next()
            } catch {
                fail(error, now: now)
                return nil
            }
            guard let event = next else { return nil }
            // Consumed: the request moves out of the event instead of being copied from it.
            switch consume event {
            case .continueExpected:
                continuePending = true
            case .request(let request):
                timers.headStarted = now
                if request.method.isSafe && unsafeInFlight > 0 {
                    deferred = request
                } else {
                    return admit(request, now: now)
                }
            }
        }
        return nil
    }

    /// Gives `request` a slot and decides whether the connection stays open after it.
    private mutating func admit(_ request: __owned HTTPRequest, now: UInt64) -> Action {
        let keepAlive: Bool
        if request.version.minor == 0 {
            keepAlive = request.headers.hasToken("keep-alive", in: "Connection")
        } else {
            keepAlive = !request.headers.hasToken("close", in: "Connection")
        }
        // The body is here already: an interim answer would only be noise.
        continuePending = false
        if !request.method.isSafe { unsafeInFlight += 1 }
        let sequence = nextSequence
        nextSequence += 1
        slots.append(Slot(
            sequence: sequence, isHead: request.method == .head,
            keepAlive: keepAlive && !shuttingDown, keepAliveHeader: request.version.minor == 0,
            method: request.method, target: request.target, started: now, response: nil))
        if !keepAlive || shuttingDown { stopReading() }
        return .dispatch(request, sequence: sequence)
    }

    /// Queues the answer to a request that could not be read; nothing more is read.
    mutating func fail(_ error: HTTPParseError, now: UInt64) {
        stopReading()
        continuePending = false
        slots.append(Slot(
            sequence: nextSequence, isHead: false, keepAlive: false, keepAliveHeader: false,
            method: "-", target: "-", started: now, response: error.response))
        nextSequence += 1
    }

    /// Where request `sequence` waits, if it still does.
    func slotIndex(of sequence: Int) -> Int? {
        guard slotsHead < slots.count else { return nil }
        let index = slotsHead + (sequence - slots[slotsHead].sequence)
        guard index >= slotsHead, index < slots.count, slots[index].sequence == sequence else { return nil }
        return index
    }

    // MARK: responses out

    /// Serializes the answered response at the front of the queue, if any (and no stream is
    /// being written), and says what to log or start.
    mutating func nextResponse(now: UInt64, date: [UInt8]) -> Action? {
        guard !streaming, slotsHead < slots.count, let response = slots[slotsHead].response else { return nil }
        let slot = slots[slotsHead]
        slots[slotsHead].response = nil
        let keepAlive = slot.keepAlive && !shuttingDown
        let connection: StaticString? = keepAlive ? (slot.keepAliveHeader ? "keep-alive" : nil) : "close"
        let before = output.count
        let status = response.status
        switch response.body {
        case .bytes(let body):
            ResponseSerializer.appendHead(
                status: status, headers: response.headers,
                framing: status.allowsBody ? .length(body.count) : .none,
                connection: connection, date: date, to: &output.bytes)
            if status.allowsBody && !slot.isHead { output.bytes.append(contentsOf: body) }
        case .stream(let start):
            let framing: ResponseSerializer.Framing = slot.isHead || !status.allowsBody ? .none : .chunked
            ResponseSerializer.appendHead(
                status: status, headers: response.headers, framing: framing,
                connection: connection, date: date, to: &output.bytes)
            if case .chunked = framing {
                // Set by `ContentEncoding.negotiate` for a client that takes gzip.
                let gzip = response.headers["Content-Encoding"].map { HTTPHeaders.namesEqual($0, "gzip") } ?? false
                streaming = true
                return .startStream(start, gzip: gzip, slot, status: status.code, bytes: output.count - before)
            }
        }
        popSlot(keepAlive: keepAlive)
        return .log(slot, status: status.code, bytes: output.count - before)
    }

    /// The front slot's response is complete in the output.
    mutating func popSlot(keepAlive: Bool) {
        slotsHead += 1
        if !keepAlive {
            stopReading(closeWhenDrained: true)
            // Whatever was pipelined after a closing response is dropped.
            slots.removeSubrange(slotsHead...)
        }
    }

    /// After the answered responses: reclaims the slots and sends `100 Continue` if it is due.
    mutating func endSerializing(now: UInt64) {
        if slotsHead == slots.count && slotsHead > 0 {
            slots.removeAll(keepingCapacity: true)
            slotsHead = 0
        }
        if continuePending && pendingCount == 0 && !streaming && lifecycle == .open {
            continuePending = false
            output.bytes.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            timers.bodyInvited(now: now)
        }
    }
}
