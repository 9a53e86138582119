import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads an attachment for the built-in `downloadAttachment` step with `URLSession`, as an
/// app's extension would: http and https only (redirects too), a body limit, a timeout.
enum AttachmentDownloader {
    /// Why a download failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Downloads `url` into a temporary file and returns the file (the runtime moves it into the
    /// center's attachment store).
    static func download(_ url: URL, maximumBytes: Int, timeout: TimeInterval) async throws -> URL {
        let receiver = BodyReceiver(limit: maximumBytes)
        let session = URLSession(configuration: .ephemeral, delegate: receiver, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout))
        let data = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                receiver.wait(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "attachment" : url.lastPathComponent
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("herald-download-\(UUID().uuidString)-\(name)")
        try data.write(to: file)
        return file
    }
}

/// Collects one response body, refusing redirects away from http(s), error statuses and bodies
/// over the limit; resumes its waiter exactly once.
private final class BodyReceiver: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var body = Data()
        var result: Result<Data, any Error>?
        var waiter: CheckedContinuation<Data, any Error>?
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
        super.init()
    }

    func wait(_ continuation: CheckedContinuation<Data, any Error>) {
        let ready = state.withLock { state -> Result<Data, any Error>? in
            if state.result == nil { state.waiter = continuation }
            return state.result
        }
        if let ready { continuation.resume(with: ready) }
    }

    private func finish(_ result: Result<Data, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Data, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if !(200..<300).contains(status) {
            finish(.failure(AttachmentDownloader.Failure(description: "HTTP status \(status)")))
            completionHandler(.cancel)
        } else if response.expectedContentLength > Int64(limit) {
            finish(.failure(AttachmentDownloader.Failure(description: "the body (\(response.expectedContentLength) bytes) exceeds \(limit) bytes")))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            state.body.append(data)
            return state.body.count > limit
        }
        if over {
            finish(.failure(AttachmentDownloader.Failure(description: "the body exceeds \(limit) bytes")))
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            completionHandler(request)
        } else {
            finish(.failure(AttachmentDownloader.Failure(description: "redirected to a URL that is not http or https")))
            completionHandler(nil)
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let body = state.withLock { $0.body }
        finish(error.map { .failure($0) } ?? .success(body))
    }
}
