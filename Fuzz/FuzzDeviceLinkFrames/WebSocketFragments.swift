import HeraldDeviceLink
import NIOCore
import NIOWebSocket

/// The first byte of a script input: the rest is a sequence of WebSocket frames, not a device-link frame (0xFF never
/// begins JSON text, so the frame readers refuse it at once).
let scriptMarker: UInt8 = 0xFF

/// Drives `WebSocketMessageAssembler` from the input: a script input is a sequence of frames, any other input is one
/// text message, cut into fragments.
///
/// Oracle: every frame's output is what RFC 6455 and the assembler's limits call for (``AssemblerModel``): a message
/// within both limits comes out whole and unmasked; a text message that crosses the size limit is reported once, at the
/// fragment that crosses it, and never comes out; one fragment over the fragment limit is a protocol error; control
/// frames between fragments are answered at once. After each message the assembler reads the next one.
func checkAssembler(_ bytes: [UInt8]) {
    if bytes.first == scriptMarker {
        runScript(bytes.dropFirst())
    } else {
        checkFragmented(bytes)
    }
}

/// One text message, cut into fragments whose sizes, masks and interleaved pings come from the input's bytes read
/// backwards; fed to assemblers whose limits are just above, at and below the message and its fragment count.
private func checkFragmented(_ message: [UInt8]) {
    var frames: [(opcode: WebSocketOpcode, fin: Bool, data: ArraySlice<UInt8>, mask: UInt8?)] = []
    var start = 0
    var step = 0
    repeat {
        let choice = message.isEmpty ? 0 : message[message.count - 1 - step % message.count]
        let end = min(message.count, start + 1 + Int(choice % 97))
        let mask = choice & 0x80 != 0 ? choice : nil
        frames.append((start == 0 ? .text : .continuation, end == message.count, message[start..<end], mask))
        if choice & 0x40 != 0, end < message.count { frames.append((.ping, true, message[start..<end].prefix(8), nil)) }
        start = end
        step += 1
    } while start < message.count
    let fragmentCount = frames.count { $0.opcode != .ping }
    let limits = [
        (message.count, fragmentCount), (message.count - 1, fragmentCount), (message.count / 2, fragmentCount),
        (message.count, fragmentCount - 1),
    ]
    for (size, fragments) in limits where size >= 0 && fragments >= 1 {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: size, maximumFragmentCount: fragments)
        var model = AssemblerModel(limit: size, fragmentLimit: fragments)
        for frame in frames { feed(frame.opcode, frame.fin, frame.data, mask: frame.mask, to: &assembler, &model) }
        feed(.text, true, Array("{}".utf8)[...], mask: nil, to: &assembler, &model)
    }
}

/// Frames from bytes: a byte for the limits (message size 0–255, 1–8 fragments), then for each frame a header byte
/// (opcode in the low 4 bits, 0x80 fin, 0x40 masked), a length byte and that many bytes of data.
private func runScript(_ script: ArraySlice<UInt8>) {
    guard script.count >= 2 else { return }
    var rest = script.dropFirst(2)
    let limit = Int(script[script.startIndex])
    var assembler = WebSocketMessageAssembler(maximumMessageSize: limit, maximumFragmentCount: 1 + Int(script[script.startIndex + 1] % 8))
    var model = AssemblerModel(limit: limit, fragmentLimit: assembler.maximumFragmentCount)
    while rest.count >= 2 {
        let header = rest.removeFirst()
        let length = min(Int(rest.removeFirst()), rest.count)
        let data = rest.prefix(length)
        rest = rest.dropFirst(length)
        let opcode = WebSocketOpcode(encodedWebSocketOpcode: header & 0x0F)!
        feed(opcode, header & 0x80 != 0, data, mask: header & 0x40 != 0 ? header : nil, to: &assembler, &model)
    }
}

private func feed(
    _ opcode: WebSocketOpcode,
    _ fin: Bool,
    _ data: ArraySlice<UInt8>,
    mask: UInt8?,
    to assembler: inout WebSocketMessageAssembler,
    _ model: inout AssemblerModel
) {
    var buffer = ByteBuffer(bytes: data)
    let key = mask.flatMap { WebSocketMaskingKey([$0, 0x5A, $0 &+ 1, 0xFF]) }
    if let key { buffer.webSocketMask(key) }
    let output = assembler.receive(WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: buffer))
    let expected = model.receive(opcode, fin: fin, data: data)
    precondition(
        AssemblerModel.Output(output) == expected,
        "\(opcode) (fin \(fin), \(data.count) bytes) gives \(String(describing: output)), not \(expected); limits \(model.limit), \(model.fragmentLimit)"
    )
}

/// What the assembler should say about each frame, written from RFC 6455 §5.4–5.5 and the assembler's documented
/// limits; message texts are not compared.
struct AssemblerModel {
    enum Output: Equatable {
        case none
        case text([UInt8])
        case binary
        case tooLarge(Int)
        case ping([UInt8])
        case pong, close, protocolError

        init(_ output: WebSocketMessageAssembler.Output?) {
            switch output {
            case nil: self = .none
            case .text(let buffer)?: self = .text(Array(buffer.readableBytesView))
            case .binary?: self = .binary
            case .tooLarge(let size)?: self = .tooLarge(size)
            case .ping(let buffer)?: self = .ping(Array(buffer.readableBytesView))
            case .pong?: self = .pong
            case .close?: self = .close
            case .protocolError?: self = .protocolError
            }
        }
    }

    private struct Message {
        var isText: Bool
        var bytes: [UInt8] = []
        var size = 0
        var dropped = false
        var fragments = 1
    }

    let limit: Int
    let fragmentLimit: Int
    private var message: Message?

    init(limit: Int, fragmentLimit: Int) {
        self.limit = limit
        self.fragmentLimit = fragmentLimit
    }

    mutating func receive(_ opcode: WebSocketOpcode, fin: Bool, data: ArraySlice<UInt8>) -> Output {
        switch opcode {
        case .text, .binary:
            guard message == nil else { return .protocolError }
            return add(to: Message(isText: opcode == .text), data, fin: fin)
        case .continuation:
            guard var current = message else { return .protocolError }
            current.fragments += 1
            guard current.fragments <= fragmentLimit else {
                message = nil
                return .protocolError
            }
            return add(to: current, data, fin: fin)
        case .ping: return .ping(Array(data))
        case .pong: return .pong
        case .connectionClose: return .close
        default: return .protocolError
        }
    }

    /// A binary message is not kept (the link uses text), so only a text message has a size limit.
    private mutating func add(to current: Message, _ data: ArraySlice<UInt8>, fin: Bool) -> Output {
        var current = current
        current.size += data.count
        var crossed = false
        if current.isText, !current.dropped {
            current.bytes += data
            if current.size > limit {
                crossed = true
                current.dropped = true
                current.bytes = []
            }
        }
        message = fin ? nil : current
        if crossed { return .tooLarge(current.size) }
        guard fin, !current.dropped else { return .none }
        return current.isText ? .text(current.bytes) : .binary
    }
}
