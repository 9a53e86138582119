import HeraldCore
import NIOCore
import NIOHTTP2

/// The client's frames: connection-level ones, and the requests' HEADERS and DATA.
extension ProviderHTTP2Connection {
    func handle(_ frame: HTTP2InboundFrame, context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
        switch frame {
        case .headers(let streamID, let endStream, let block):
            try receiveHeaders(block, streamID: streamID, endStream: endStream, context: context)
        case .data(let streamID, let endStream, let payload, let flowControlledLength):
            try receiveData(payload, streamID: streamID, endStream: endStream, flowControlledLength: flowControlledLength, context: context)
        case .settings(let settings):
            try apply(settings)
            outbound.writeSettingsAckFrame()
        case .settingsAck:
            // Our first SETTINGS is in force from its acknowledgement (RFC 9113 §6.5.3); a raise is in force at once.
            if !settingsAcknowledged {
                settingsAcknowledged = true
                streamLimit = limitRaised ? maximumConcurrentStreams : initialConcurrentStreams
            }
        case .ping(let ack, let opaqueData):
            if !ack { outbound.writePingAckFrame(opaqueData: opaqueData) }
        case .windowUpdate(let streamID, let increment):
            try receiveWindowUpdate(streamID: streamID, increment: increment)
        case .rstStream(let streamID, _):
            streams.removeValue(forKey: streamID)
            closeIfDrained(context: context)
        case .goAway:
            // The client opens no more streams: finish the open ones, then close.
            peerGoingAway = true
            closeIfDrained(context: context)
        case .streamError(let streamID, let errorCode):
            streams.removeValue(forKey: streamID)
            outbound.writeRSTStreamFrame(streamID: streamID, errorCode: errorCode)
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

    private func receiveWindowUpdate(streamID: UInt32, increment: Int) throws(HTTP2ConnectionError) {
        if streamID == 0 {
            connectionSendWindow += increment
            guard connectionSendWindow <= Int(Int32.max) else { throw .goAway(.flowControlError) }
        } else if let index = streams.index(forKey: streamID) {
            streams.values[index].sendWindow += increment
            if streams.values[index].sendWindow > Int(Int32.max) {
                streams.remove(at: index)
                outbound.writeRSTStreamFrame(streamID: streamID, errorCode: .flowControlError)
                return
            }
        }
        sendBlockedAnswers()
    }

    private func decode(_ block: ByteBuffer, into head: inout ProviderRequestHead) throws(HTTP2ConnectionError) {
        do throws(HPACKError) {
            try decoder.decode(block) { field in
                if let known = field.known, case .text(let value) = field.value.storage {
                    head.add(known, value: value)
                }
            }
        } catch {
            throw .goAway(.compressionError)
        }
    }

    private func receiveHeaders(_ block: ByteBuffer, streamID: UInt32, endStream: Bool, context: ChannelHandlerContext) throws(HTTP2ConnectionError) {
        var head = ProviderRequestHead()
        // Every block is decoded, even one that is then ignored: the dynamic table must stay in step.
        try decode(block, into: &head)
        if let index = streams.index(forKey: streamID) {
            // Trailers: nothing in them matters to APNs; the request ends here.
            if endStream, streams.values[index].receiving { complete(streamID: streamID, context: context) }
            return
        }
        // §5.1.1: client streams are odd and increasing.
        guard streamID & 1 == 1 else { throw .goAway(.protocolError) }
        // A stream already closed (answered or reset): its late frames are ignored.
        guard streamID > lastStreamID else { return }
        lastStreamID = streamID
        // After our GOAWAY, new streams are not processed (the client retries them elsewhere).
        guard !goingAway else { return }
        guard streams.count < streamLimit else {
            outbound.writeRSTStreamFrame(streamID: streamID, errorCode: .refusedStream)
            return
        }
        streams[streamID] = Stream(head: head, sendWindow: peerInitialWindowSize)
        if endStream { complete(streamID: streamID, context: context) }
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
        guard let index = streams.index(forKey: streamID), streams.values[index].receiving else { return }
        streams.values[index].receive(payload, flowControlledLength: flowControlledLength)
        if endStream {
            complete(streamID: streamID, context: context)
        } else if streams.values[index].inboundWindow < Self.defaultWindowSize / 2 {
            let increment = Self.defaultWindowSize - streams.values[index].inboundWindow
            streams.values[index].inboundWindow = Self.defaultWindowSize
            outbound.writeWindowUpdateFrame(streamID: streamID, increment: increment)
        }
    }
}

extension ProviderHTTP2Connection.Stream {
    /// Adds a DATA payload, keeping at most `ProviderRequestProcessor.bodyLimit` bytes.
    mutating func receive(_ payload: ByteBuffer, flowControlledLength: Int) {
        inboundWindow -= flowControlledLength
        guard !oversized else { return }
        if body.count + payload.readableBytes > ProviderRequestProcessor.bodyLimit {
            oversized = true
            body = []
        } else {
            body.append(contentsOf: payload.readableBytesView)
        }
    }
}
