import HeraldCore
import HeraldHTTP2
import NIOCore

/// Deciding a complete request and writing its answer within the client's flow-control windows.
extension ProviderHTTP2Connection {
    func complete(streamID: UInt32, context: ChannelHandlerContext) {
        guard var stream = streams.removeValue(forKey: streamID) else { return }
        let decision = processor.process(head: stream.head, body: stream.body, bodyTooLarge: stream.oversized, connection: &connection)
        stream.head = ProviderRequestHead()
        stream.body = []
        stream.receiving = false
        if connection.takeStreamLimitRaise() {
            outbound.writeSettingsFrame([.init(parameter: 0x3, value: UInt32(clamping: maximumConcurrentStreams))])
            // A raise may be used at once: the client can only open fewer streams than allowed until it reads it.
            limitRaised = true
            streamLimit = max(streamLimit, maximumConcurrentStreams)
        }
        carryOut(decision, streamID: streamID, stream: stream, context: context)
    }

    private func carryOut(_ decision: ProviderDecision, streamID: UInt32, stream: Stream, context: ChannelHandlerContext) {
        switch decision {
        case .respond(let response):
            write(response, streamID: streamID, stream: stream)
            closeIfDrained(context: context)
        case .commit(let notification, let response, let startedAt, let device):
            hold(stream, streamID: streamID)
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            processor.commit(notification, startedAt: startedAt, device: device) { result in
                eventLoop.execute {
                    loopBound.value.committed(result, response: response, streamID: streamID)
                }
            }
        case .reset:
            do {
                try reset(streamID: streamID, errorCode: .internalError)
                scheduleFlush(context: context)
            } catch {
                fail(error, context: context)
            }
            closeIfDrained(context: context)
        case .close:
            failed = true
            flushIfNeeded(context: context, force: true)
            context.close(promise: nil)
        case .then(let decision, let fault):
            carryOut(decision, streamID: streamID, stream: stream, context: context)
            guard !failed else { return }
            carryOut(fault, context: context)
        case .perform(let work):
            hold(stream, streamID: streamID)
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            work { response in
                eventLoop.execute { loopBound.value.performed(response, streamID: streamID) }
            }
        case .delayed(let delay, let later):
            hold(stream, streamID: streamID)
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: delay) {
                loopBound.value.resume(later, streamID: streamID)
            }
        }
    }

    private func carryOut(_ fault: ConnectionFault, context: ChannelHandlerContext) {
        switch fault {
        case .goAway(let reason):
            goAway(reason: reason, context: context)
        case .stall(let amount):
            stall(for: amount, context: context)
        }
    }

    /// Keeps a stream open — counted against the limit even if reset, and keeping the connection from closing —
    /// while its answer is made elsewhere: a commit, a channel's store work, a fault rule's delay.
    private func hold(_ stream: Stream, streamID: UInt32) {
        var stream = stream
        stream.commitPending = true
        streams[streamID] = stream
        inFlightCommits += 1
    }

    /// Ends a ``hold(_:streamID:)``: the stream to answer, or `nil` when it was reset or the connection failed meanwhile.
    private func release(streamID: UInt32) -> Stream? {
        inFlightCommits -= 1
        guard context != nil, var stream = streams.removeValue(forKey: streamID), !stream.reset, !failed else { return nil }
        stream.commitPending = false
        return stream
    }

    /// Answers a stream whose work is done, unless it was reset meanwhile.
    private func performed(_ response: ProviderResponse, streamID: UInt32) {
        if let stream = release(streamID: streamID), let context {
            write(response, streamID: streamID, stream: stream)
            scheduleFlush(context: context)
        }
        if let context { closeIfDrained(context: context) }
    }

    /// After a fault rule's delay: carries out the decision. A stream reset (or a connection closed) meanwhile gets
    /// no answer, but its notification is committed all the same, as one whose commit had begun.
    private func resume(_ decision: ProviderDecision, streamID: UInt32) {
        guard let stream = release(streamID: streamID), let context else {
            if case .commit(let notification, _, let startedAt, let device) = decision {
                processor.commit(notification, startedAt: startedAt, device: device) { _ in }
            }
            if let context { closeIfDrained(context: context) }
            return
        }
        carryOut(decision, streamID: streamID, stream: stream, context: context)
        scheduleFlush(context: context)
    }

    private func committed(_ result: Result<Void, any Error>, response: ProviderResponse, streamID: UInt32) {
        // A stream reset meanwhile gets no answer (the notification is committed all the same).
        if let stream = release(streamID: streamID), let context {
            switch result {
            case .success:
                write(response, streamID: streamID, stream: stream)
            case .failure(let error):
                let reason = ProviderRequestProcessor.reason(forCommitFailure: error)
                write(.failure(reason, apnsID: response.apnsID), streamID: streamID, stream: stream)
            }
            scheduleFlush(context: context)
        }
        if let context { closeIfDrained(context: context) }
    }

    /// Writes HEADERS and, for an error, the JSON body; a body the windows do not allow yet waits in the stream.
    private func write(_ response: ProviderResponse, streamID: UInt32, stream: Stream) {
        let body = response.body
        outbound.writeHeadersFrame(streamID: streamID, endStream: body == nil) { block in
            HPACKResponseEncoder.writeStatus(response.status, into: &block)
            if response.sendsAPNSID {
                HPACKResponseEncoder.writeLiteral(name: "apns-id", value: response.apnsID.utf8, into: &block)
            }
            if let uniqueID = response.uniqueID {
                HPACKResponseEncoder.writeLiteral(name: "apns-unique-id", value: uniqueID.utf8, into: &block)
            }
            for field in response.extraHeaders {
                HPACKResponseEncoder.writeLiteral(name: field.name, value: field.value.utf8, into: &block)
            }
            if body != nil {
                HPACKResponseEncoder.writeLiteral(nameIndex: HPACKStaticTable.contentTypeNameIndex, value: "application/json".utf8, into: &block)
            }
        }
        guard let body else {
            answered(streamID: streamID, early: stream.answeredEarly)
            return
        }
        var stream = stream
        stream.queued = body[...]
        if sendQueued(streamID: streamID, stream: &stream) {
            answered(streamID: streamID, early: stream.answeredEarly)
        } else {
            streams[streamID] = stream
            blockedStreams.append(streamID)
        }
    }

    /// After an answer's END_STREAM: a request answered before its end is told to stop sending with RST_STREAM
    /// NO_ERROR (RFC 9113 §8.1), and the DATA it sent meanwhile is ignored (`recentlyReset`).
    private func answered(streamID: UInt32, early: Bool) {
        guard early else { return }
        outbound.writeRSTStreamFrame(streamID: streamID, errorCode: .noError)
        recentlyReset.insert(streamID)
    }

    /// Sends as much of a stream's queued answer as the windows allow; true once END_STREAM is written.
    private func sendQueued(streamID: UInt32, stream: inout Stream) -> Bool {
        guard var queued = stream.queued else { return true }
        while true {
            // A window may be negative after the client lowered SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113 §6.9.2).
            let size = max(0, min(queued.count, connectionSendWindow, stream.sendWindow, peerMaximumFrameSize))
            // An empty body still needs its END_STREAM; otherwise nothing to send until a window opens.
            guard size > 0 || queued.isEmpty else {
                stream.queued = queued
                return false
            }
            let chunk = queued.prefix(size)
            queued = queued.dropFirst(size)
            connectionSendWindow -= size
            stream.sendWindow -= size
            outbound.writeDataFrame(streamID: streamID, bytes: chunk, endStream: queued.isEmpty)
            if queued.isEmpty {
                stream.queued = nil
                return true
            }
        }
    }

    /// After a window grew: sends what waits, oldest stream first, and closes the streams that finished.
    func sendBlockedAnswers() {
        guard !blockedStreams.isEmpty else { return }
        var stillBlocked: [UInt32] = []
        for streamID in blockedStreams {
            guard var stream = streams[streamID], stream.queued != nil else { continue }
            if sendQueued(streamID: streamID, stream: &stream) {
                streams.removeValue(forKey: streamID)
                answered(streamID: streamID, early: stream.answeredEarly)
            } else {
                streams[streamID] = stream
                stillBlocked.append(streamID)
            }
        }
        blockedStreams = stillBlocked
        if let context { closeIfDrained(context: context) }
    }
}
