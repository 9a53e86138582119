import HeraldCore

/// `GET /api/v1/`: the web port's API resources, each a path with its methods, read from the route table's documented
/// operations (``WebRoutes/operations``) once every other route is in it (``WebServer`` adds it last), so that the list
/// cannot miss one. docs/inspection-api.json documents each.
enum APIIndex {
    /// Where the index answers; its routes' paths start with it.
    static let path = "/api/v1/"
    /// Its operation id in docs/inspection-api.json.
    static let operationID = "listResources"
    /// Where the resources are documented, as the index names it.
    static let document = "docs/inspection-api.json"

    /// Adds `GET /api/v1/` to `routes`, listing the routes under it (and itself), by path.
    static func addRoute(to routes: inout WebRoutes) {
        var methods: [String: [String]] = [path: ["GET"]]
        for route in routes.operations where route.path.hasPrefix(path) && !(methods[route.path]?.contains(route.method.rawValue) ?? false) {
            methods[route.path, default: []].append(route.method.rawValue)
        }
        var writer = JSONTextWriter(capacity: 64 * methods.count + 64)
        writer.beginObject()
        writer.member("documentation", document)
        writer.key("resources")
        writer.beginArray()
        for (resource, verbs) in methods.sorted(by: { $0.key < $1.key }) {
            writer.beginObject()
            writer.member("path", resource)
            writer.key("methods")
            writer.beginArray()
            for verb in verbs { writer.string(verb) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        let body = writer.bytes
        routes.get(path, operationID: operationID) { _ in .json(body) }
    }
}
