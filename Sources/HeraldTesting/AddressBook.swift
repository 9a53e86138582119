import Synchronization

/// The ports the test server bound, known once it is ready.
final class AddressBook: Sendable {
    private let state = Mutex<(tls: Int?, cleartext: Int?, web: Int?)>((nil, nil, nil))

    var ports: (tls: Int?, cleartext: Int?, web: Int?) { state.withLock { $0 } }

    func set(tls: Int?, cleartext: Int?, web: Int?) {
        state.withLock { $0 = (tls, cleartext, web) }
    }
}
