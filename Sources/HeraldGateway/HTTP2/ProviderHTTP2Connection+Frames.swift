import HeraldCore
import HeraldHTTP2
import NIOCore

/// The client's frames: connection-level ones, and the requests' HEADERS and DATA.
extension ProviderHTTP2Connection {
    func handle(_ frame: HTTP2InboundFrame, context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
        switch frame {
        case .headers(let streamID, let endStream, let block):
            try receiveHeaders(block, streamID: streamID, endStream: endStream, context: context)
        case .rejectedHeaders(let streamID, let block, let errorCode):
            try receiveHeaders(block, streamID: streamID, endStream: true, rejection: errorCode, context: context)
        case .data(let streamID, let endStream, let payload, let flowControlledLength):
            try receiveData(payload, streamID: streamID, endStream: endStream, flowControlledLength: flowControlledLength, context: context)
        case .settings(let settings):
            try apply(settings)
            outbound.writeSettingsAckFrame()
            try queuedControlFrame()
        case .settingsAck:
            // Our first SETTINGS is in force from its acknowledgement (RFC 9113 §6.5.3); a raise is in force at once.
            if !settingsAcknowledged {
                settingsAcknowledged = true
                streamLimit = limitRaised ? maximumConcurrentStreams : initialConcurrentStreams
            }
        case .ping(let ack, let opaqueData):
            if !ack {
                outbound.writePingAckFrame(opaqueData: opaqueData)
                try queuedControlFrame()
            }
        case .windowUpdate(let streamID, let increment):
            try receiveWindowUpdate(streamID: streamID, increment: increment)
        case .rstStream(let streamID, _):
            // §6.4: RST_STREAM for an idle stream is a connection error.
            guard streamID <= lastStreamID else { throw .goAway(.protocolError) }
            closeStream(streamID)
            closeIfDrained(context: context)
        case .goAway:
            // The client opens no more streams: finish the open ones, then close.
            peerGoingAway = true
            closeIfDrained(context: context)
        case .streamError(let streamID, let errorCode):
            try reset(streamID: streamID, errorCode: errorCode)
            closeIfDrained(context: context)
        case .ignored:
            break
        }
    }

    /// Applies the client's SETTINGS: the send windows and frame size for our answers.
    ///
    /// SETTINGS_HEADER_TABLE_SIZE needs nothing: `HPACKResponseEncoder` never adds to the client's table.
    private func apply(_ settings: [HTTP2InboundFrame.Setting]) throws(HTTP2ConnectionError) {
        var windowsChanged = false
        for setting in settings {
            switch setting.parameter {
            case 0x4:
                let size = Int(setting.value)
                let delta = size - peerInitialWindowSize
                peerInitialWindowSize = size
                // §6.9.2: the change applies to every open stream's window, and may not overflow any.
                for index in streams.indices {
                    streams.values[index].sendWindow += delta
                    guard streams.values[index].sendWindow <= Int(Int32.max) else { throw .goAway(.flowControlError) }
                }
                windowsChanged = delta > 0
            case 0x5:
                peerMaximumFrameSize = Int(setting.value)
            default:
                break
            }
        }
        if windowsChanged { sendBlockedAnswers() }
    }

    /// Resets a stream with a stream error (RFC 9113 §5.4.2), counting it and the RST_STREAM frame.
    func reset(streamID: UInt32, errorCode: HTTP2ErrorCode) throws(HTTP2ConnectionError) {
        processor.metrics.recordProtocolError(errorCode)
        outbound.writeRSTStreamFrame(streamID: streamID, errorCode: errorCode)
        recentlyReset.insert(streamID)
        closeStream(streamID)
        try queuedControlFrame()
    }

    /// Forgets a reset stream, unless its notification is still being committed: then it stays, unanswered, and
    /// keeps counting against SETTINGS_MAX_CONCURRENT_STREAMS, so that resets cannot stack up commits beyond it.
    func closeStream(_ streamID: UInt32) {
        guard let index = streams.index(forKey: streamID) else { return }
        if streams.values[index].commitPending {
            streams.values[index].reset = true
        } else {
            streams.remove(at: index)
        }
    }

    private func receiveWindowUpdate(streamID: UInt32, increment: Int) throws(HTTP2ConnectionError) {
        // §5.1: an idle stream may receive only HEADERS and PRIORITY.
        guard streamID <= lastStreamID else { throw .goAway(.protocolError) }
        if streamID == 0 {
            connectionSendWindow += increment
            guard connectionSendWindow <= Int(Int32.max) else { throw .goAway(.flowControlError) }
        } else if let index = streams.index(forKey: streamID) {
            streams.values[index].sendWindow += increment
            // §6.9.1: a window above 2^31-1 is a stream error FLOW_CONTROL_ERROR.
            if streams.values[index].sendWindow > Int(Int32.max) {
                try reset(streamID: streamID, errorCode: .flowControlError)
                return
            }
        }
        sendBlockedAnswers()
    }

    /// Decodes a header block, checking it against the message rules, into `head` (unless it is a trailer section).
    private func decode(
        _ block: ByteBuffer,
        into head: inout ProviderRequestHead,
        isTrailers: Bool
    ) throws(HTTP2ConnectionError) -> HTTP2HeaderListCheck {
        var check = HTTP2HeaderListCheck(maximumListSize: limits.maximumHeaderListSize, isTrailers: isTrailers)
        do throws(HPACKError) {
            try decoder.decode(block) { field in
                check.add(field)
                // Beyond the advertised list size nothing more is kept: a stream holds at most that much.
                if !isTrailers, check.withinListSize, let known = field.known, case .text(let value) = field.value.storage {
                    head.add(known, value: value)
                }
            }
        } catch {
            throw .goAway(.compressionError)
        }
        return check
    }

    private func receiveHeaders(
        _ block: ByteBuffer,
        streamID: UInt32,
        endStream: Bool,
        rejection: HTTP2ErrorCode? = nil,
        context: ChannelHandlerContext
    ) throws(HTTP2ConnectionError) {
        var head = ProviderRequestHead()
        let existing = streams.index(forKey: streamID)
        // Every block is decoded, even one that is then refused: the dynamic table must stay in step (RFC 7541 §2.2).
        let check = try decode(block, into: &head, isTrailers: existing != nil)
        let outcome = check.outcome
        if let index = existing {
            // §5.1: after the client's END_STREAM only WINDOW_UPDATE, PRIORITY and RST_STREAM may follow.
            guard streams.values[index].receiving, !streams.values[index].reset else {
                try reset(streamID: streamID, errorCode: .streamClosed)
                return
            }
            // §8.1: a second HEADERS is a trailer section, which must end the stream; its fields mean nothing to APNs.
            guard endStream, rejection == nil, outcome == .valid, streams.values[index].bodyMatchesContentLength else {
                try reset(streamID: streamID, errorCode: rejection ?? .protocolError)
                return
            }
            complete(streamID: streamID, context: context)
            return
        }
        // §5.1.1: client streams are odd and increasing.
        guard streamID & 1 == 1 else { throw .goAway(.protocolError) }
        guard streamID > lastStreamID else {
            // §5.1: late trailers of a stream Herald reset are ignored.
            if recentlyReset.contains(streamID) { return }
            // §5.1: HEADERS on the last stream, closed, is STREAM_CLOSED; a lower id is one §5.1.1 calls unexpected.
            throw .goAway(streamID == lastStreamID ? .streamClosed : .protocolError)
        }
        lastStreamID = streamID
        // After our GOAWAY, new streams are not processed (the client retries them elsewhere).
        guard !goingAway else { return }
        if let rejection {
            try reset(streamID: streamID, errorCode: rejection)
            return
        }
        switch outcome {
        case .valid:
            break
        case .malformed:
            // §8.1.1: a malformed request is a stream error of type PROTOCOL_ERROR.
            try reset(streamID: streamID, errorCode: .protocolError)
            return
        case .tooLarge:
            try refuseHeaderList(streamID: streamID, endStream: endStream)
            return
        }
        guard streams.count < streamLimit else {
            try reset(streamID: streamID, errorCode: .refusedStream)
            return
        }
        // §8.1.1: a request that ends with its headers has no content, so a content-length other than 0 is a lie.
        guard !endStream || (check.contentLength ?? 0) == 0 else {
            try reset(streamID: streamID, errorCode: .protocolError)
            return
        }
        streams[streamID] = Stream(head: head, contentLength: check.contentLength, sendWindow: peerInitialWindowSize)
        if endStream { complete(streamID: streamID, context: context) }
    }

    /// Answers `431` to a request above SETTINGS_MAX_HEADER_LIST_SIZE (§10.5.1), and asks the client to stop sending
    /// it with RST_STREAM NO_ERROR if it has not ended its side (§8.1).
    private func refuseHeaderList(streamID: UInt32, endStream: Bool) throws(HTTP2ConnectionError) {
        processor.metrics.headerListTooLarge.increment()
        outbound.writeHeadersFrame(streamID: streamID, endStream: true) { HPACKResponseEncoder.writeStatus(431, into: &$0) }
        if !endStream {
            outbound.writeRSTStreamFrame(streamID: streamID, errorCode: .noError)
            recentlyReset.insert(streamID)
        }
        try queuedControlFrame()
    }

    private func receiveData(
        _ payload: ByteBuffer,
        streamID: UInt32,
        endStream: Bool,
        flowControlledLength: Int,
        context: ChannelHandlerContext
    ) throws(HTTP2ConnectionError) {
        // The connection window counts every DATA frame, padding included, even on streams already closed.
        connectionInboundWindow -= flowControlledLength
        guard connectionInboundWindow >= 0 else { throw .goAway(.flowControlError) }
        if connectionInboundWindow < Self.connectionWindowTarget / 2 {
            outbound.writeWindowUpdateFrame(streamID: 0, increment: Self.connectionWindowTarget - connectionInboundWindow)
            connectionInboundWindow = Self.connectionWindowTarget
        }
        // §5.1: DATA on a stream the client never opened.
        guard streamID <= lastStreamID else { throw .goAway(.protocolError) }
        guard let index = streams.index(forKey: streamID) else {
            try receiveDataOnClosedStream(streamID)
            return
        }
        // One in-place access (a read of `streams.values[index]` copies the whole stream, its head's strings and all).
        switch streams.values[index].receive(payload, flowControlledLength: flowControlledLength, endStream: endStream) {
        case .closed:
            try receiveDataOnClosedStream(streamID)
        case .ignored, .more:
            break
        case .halfClosed:
            // §5.1: no DATA after the client's END_STREAM (half-closed remote).
            try reset(streamID: streamID, errorCode: .streamClosed)
        case .beyondWindow:
            // §6.9.1: a sender may not exceed the stream's window; Herald resets that stream with FLOW_CONTROL_ERROR.
            try reset(streamID: streamID, errorCode: .flowControlError)
        case .contentLengthMismatch:
            // §8.1.1: more content than content-length said is malformed at once; less, once the stream ends.
            try reset(streamID: streamID, errorCode: .protocolError)
        case .complete, .answerEarly:
            // `.answerEarly`: past the largest body any push type may have (APNs takes at most 5120 octets), answered
            // now, PayloadTooLarge, and stopped with RST_STREAM NO_ERROR (§8.1 allows a response before the request
            // ends). Herald reads no more of it, so a body with no end cannot keep the connection busy.
            complete(streamID: streamID, context: context)
        case .windowSpentOnPadding:
            // A window spent without the body growing (padding): nothing legitimate does that.
            try reset(streamID: streamID, errorCode: .enhanceYourCalm)
        }
    }

    /// DATA on a stream that is not open (RFC 9113 §5.1, §6.1): closed after its answer, reset by the client, or
    /// half-closed by the client's END_STREAM and already answered.
    ///
    /// A stream Herald reset may still get the DATA the client sent before it read the reset, which §5.1 says to
    /// ignore; so are streams Herald did not take after its GOAWAY (§6.8). Anything else is a stream error of type
    /// STREAM_CLOSED (§5.1 "closed", §6.1); its id is then remembered, so that the rest of that DATA is ignored.
    private func receiveDataOnClosedStream(_ streamID: UInt32) throws(HTTP2ConnectionError) {
        guard !recentlyReset.contains(streamID), !goingAway else { return }
        try reset(streamID: streamID, errorCode: .streamClosed)
    }
}

extension ProviderHTTP2Connection.Stream {
    /// What a DATA frame means for its stream (``receive(_:flowControlledLength:endStream:)``).
    enum DataVerdict {
        /// Reset (by either side) while its commit was pending: as for a closed stream.
        case closed
        /// The rest of a body already answered: read and dropped, its window never reopened.
        case ignored
        /// After the client's END_STREAM.
        case halfClosed
        /// Beyond the stream's window.
        case beyondWindow
        /// The content disagrees with `content-length`.
        case contentLengthMismatch
        /// The request is whole: decide it.
        case complete
        /// The body passed every push type's limit before its end: answer now (`answeredEarly` is set).
        case answerEarly
        /// The window is spent and the body did not grow.
        case windowSpentOnPadding
        /// More is to come.
        case more
    }

    /// Whether the DATA received adds up to the request's `content-length`, when it sent one (RFC 9113 §8.1.1).
    var bodyMatchesContentLength: Bool { contentLength.map { $0 == received } ?? true }

    /// Takes a DATA frame, keeping at most `ProviderRequestProcessor.bodyLimit` bytes of body, and says what it means.
    ///
    /// One mutating call, so that the connection reaches its stream in place once per frame.
    mutating func receive(_ payload: ByteBuffer, flowControlledLength: Int, endStream: Bool) -> DataVerdict {
        guard !reset else { return .closed }
        guard !answeredEarly else { return .ignored }
        guard receiving else { return .halfClosed }
        guard flowControlledLength <= inboundWindow else { return .beyondWindow }
        inboundWindow -= flowControlledLength
        received += payload.readableBytes
        if !oversized {
            if body.count + payload.readableBytes > ProviderRequestProcessor.bodyLimit {
                oversized = true
                body = []
            } else {
                body.append(contentsOf: payload.readableBytesView)
            }
        }
        if let contentLength, received > contentLength || (endStream && !bodyMatchesContentLength) { return .contentLengthMismatch }
        if endStream { return .complete }
        if oversized {
            answeredEarly = true
            return .answerEarly
        }
        return inboundWindow == 0 ? .windowSpentOnPadding : .more
    }
}
