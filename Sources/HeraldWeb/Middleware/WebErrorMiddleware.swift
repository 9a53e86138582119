import Hummingbird

/// Answers every error in the web port's one shape, `{"error":"…"}` (``WebError``): a path without routes gets `404`,
/// a method a path has no route for `405` with `allow`, and an error of the framework its status with its message.
struct WebErrorMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    let allowed: AllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as WebError {
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            throw await unrouted(request, context: context)
        } catch let error as HTTPError {
            throw WebError(status: error.status.code, message: error.body ?? error.status.reasonPhrase, headers: Self.fields(error.headers))
        } catch {
            throw WebError(status: 500, message: "the server failed: \(error)")
        }
    }

    /// The answer to a request no route took: `405` when its path has routes for other methods, else `404`.
    private func unrouted(_ request: Request, context: Context) async -> WebError {
        let path = request.uri.path
        let allowed = await allowed.on(path, logger: context.logger)
        guard !allowed.isEmpty else { return .notFound("no resource at \(path)") }
        let use = allowed.filter { $0 != "HEAD" }.joined(separator: ", ")
        return WebError(
            status: 405,
            message: "\(request.method.rawValue) is not allowed on \(path); use \(use)",
            headers: ["allow": allowed.joined(separator: ", ")]
        )
    }

    private static func fields(_ headers: HTTPFields) -> [String: String] {
        var fields: [String: String] = [:]
        for field in headers { fields[field.name.canonicalName] = field.value }
        return fields
    }
}
