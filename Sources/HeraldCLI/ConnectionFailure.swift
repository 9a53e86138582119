import AsyncHTTPClient
import NIOCore
import NIOPosix

/// A few words for why an HTTP request through AsyncHTTPClient failed, for a one-line CLI message: the system's
/// words for an `errno` ("connection refused"), not a type dump.
enum ConnectionFailure {
    static func text(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return SystemError.text(error.errnoCode)
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return text(first.error) }
            return error.dnsAAAAError.map(text) ?? error.dnsAError.map(text) ?? "cannot connect"
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .deadlineExceeded, .readTimeout: return "no answer within 30 s"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        default:
            return "\(error)"
        }
    }
}
