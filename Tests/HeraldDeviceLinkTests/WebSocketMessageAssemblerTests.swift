import HeraldTestTiers
import NIOCore
import NIOWebSocket
import Testing

@testable import HeraldDeviceLink

@Suite("Device link: WebSocket message assembly", .tier(.unit))
struct WebSocketMessageAssemblerTests {
    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, masked: Bool = false) -> WebSocketFrame {
        var data = ByteBuffer(string: text)
        let key: WebSocketMaskingKey? = masked ? WebSocketMaskingKey([1, 2, 3, 4]) : nil
        if let key { data.webSocketMask(key) }
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: data)
    }

    @Test("a single text frame is a message, unmasked")
    func single() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(assembler.receive(frame(.text, "hello", masked: true)) == .text(ByteBuffer(string: "hello")))
    }

    @Test("fragments are joined")
    func fragments() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(assembler.receive(frame(.text, "hel", fin: false)) == nil)
        // A control frame may come between fragments.
        #expect(assembler.receive(frame(.ping, "p")) == .ping(ByteBuffer(string: "p")))
        #expect(assembler.receive(frame(.continuation, "lo ", fin: false, masked: true)) == nil)
        #expect(assembler.receive(frame(.continuation, "world")) == .text(ByteBuffer(string: "hello world")))
        #expect(assembler.receive(frame(.text, "next")) == .text(ByteBuffer(string: "next")))
    }

    @Test("a message in more fragments than the limit is a protocol error, even when every fragment is empty")
    func fragmentLimit() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100, maximumFragmentCount: 3)
        #expect(assembler.receive(frame(.text, "", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "", fin: false)) == .protocolError("a message in more than 3 fragments"))
        // Exactly at the limit is fine, and the count starts again with each message.
        #expect(assembler.receive(frame(.text, "a", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "b", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "c")) == .text(ByteBuffer(string: "abc")))
    }

    @Test("a message over the limit is reported once and dropped; the next message is read")
    func tooLarge() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 4)
        #expect(assembler.receive(frame(.text, "12345")) == .tooLarge(5))
        #expect(assembler.receive(frame(.text, "123", fin: false)) == nil)
        #expect(assembler.receive(frame(.continuation, "45", fin: false)) == .tooLarge(5))
        #expect(assembler.receive(frame(.continuation, "6789")) == nil)
        #expect(assembler.receive(frame(.text, "1234")) == .text(ByteBuffer(string: "1234")))
    }

    @Test("protocol violations and binary messages are named")
    func violations() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        if case .protocolError = assembler.receive(frame(.continuation, "x")) {} else { Issue.record("continuation without a message") }
        #expect(assembler.receive(frame(.text, "a", fin: false)) == nil)
        if case .protocolError = assembler.receive(frame(.text, "b")) {} else { Issue.record("a new message inside a fragmented one") }
        var fresh = WebSocketMessageAssembler(maximumMessageSize: 100)
        #expect(fresh.receive(frame(.binary, "\u{0}")) == .binary)
        #expect(fresh.receive(frame(.pong, "")) == .pong)
    }

    @Test("a close frame gives its code and reason")
    func close() {
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 100)
        var data = ByteBuffer()
        data.write(webSocketErrorCode: .policyViolation)
        data.writeString("bye")
        #expect(assembler.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)) == .close(.policyViolation, "bye"))
        #expect(assembler.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer())) == .close(nil, nil))
    }
}
