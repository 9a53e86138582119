import HeraldServiceWorker
import HeraldTestTiers
import Testing

@Suite("Finding node", .tier(.unit))
struct NodeExecutableTests {
    @Test("HERALD_NODE names it; a path that is not executable finds none")
    func explicit() {
        #expect(NodeExecutable.locate(environment: ["HERALD_NODE": "/bin/sh"]) == NodeExecutable(path: "/bin/sh"))
        #expect(NodeExecutable.locate(environment: ["HERALD_NODE": "/nonexistent/node"]) == nil)
    }

    @Test("without HERALD_NODE, the first node on PATH; none on an empty PATH")
    func onPath() {
        #expect(NodeExecutable.locate(environment: ["PATH": "/nonexistent:/usr/bin"])?.path == "/usr/bin/node")
        #expect(NodeExecutable.locate(environment: ["PATH": ""]) == nil)
    }
}
