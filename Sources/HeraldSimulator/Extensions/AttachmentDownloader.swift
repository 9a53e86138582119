import AsyncHTTPClient
import Foundation
import NIOCore

/// Downloads an attachment for the built-in `downloadAttachment` step, as an app's extension would: http and https
/// only (redirects too, at most 5; one to another scheme is not followed and fails as its 3xx status), a body limit, a timeout.
///
/// AsyncHTTPClient rather than Foundation's `URLSession`: on Linux, `URLSession` is libcurl, which a `herald` binary
/// with the Swift runtime linked in would still load with its two dozen libraries (docs/install.md); AsyncHTTPClient
/// runs on the SwiftNIO and BoringSSL the binary already holds.
enum AttachmentDownloader {
    /// Why a download failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The client every download shares: its connection pool and event loops live as long as the process.
    private static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .follow(max: 5, allowCycles: false))
    )

    /// Downloads `url` into a temporary file and returns the file (the runtime moves it into the
    /// center's attachment store).
    static func download(_ url: URL, maximumBytes: Int, timeout: TimeInterval) async throws -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw Failure(description: "only http and https URLs are downloaded")
        }
        let request = HTTPClientRequest(url: url.absoluteString)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
        } catch let error as HTTPClientError {
            throw Failure(description: describe(error, timeout: timeout))
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            throw Failure(description: "HTTP status \(response.status.code)")
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumBytes {
            throw Failure(description: "the body (\(length) bytes) exceeds \(maximumBytes) bytes")
        }
        var body = ByteBuffer()
        do {
            for try await part in response.body {
                guard body.readableBytes + part.readableBytes <= maximumBytes else {
                    throw Failure(description: "the body exceeds \(maximumBytes) bytes")
                }
                var part = part
                body.writeBuffer(&part)
            }
        } catch let error as HTTPClientError {
            throw Failure(description: describe(error, timeout: timeout))
        }
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "attachment" : url.lastPathComponent
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("herald-download-\(UUID().uuidString)-\(name)")
        try Data(body.readableBytesView).write(to: file)
        return file
    }

    private static func describe(_ error: HTTPClientError, timeout: TimeInterval) -> String {
        switch error {
        case .deadlineExceeded, .readTimeout, .connectTimeout, .tlsHandshakeTimeout: "no answer within \(timeout) s"
        case .redirectLimitReached, .redirectCycleDetected: "too many redirects"
        default: "\(error)"
        }
    }
}
