import HeraldTestTiers
import HeraldWebPush
import Testing

@testable import HeraldCLI

/// `herald serve`'s web push settings (docs/web-push.md, "Herald's choices where Apple is silent").
@Suite("herald serve: web push options", .tier(.unit))
struct WebPushServeOptionsTests {
    @Test("the defaults are WebPushPolicy's: missing TTL kept 30 days, draft forms refused, removed permission answered as sent")
    func defaults() throws {
        let configuration = try ServeCommand.parse([]).makeConfiguration()
        #expect(configuration.gateway.webPush == WebPushPolicy())
        #expect(configuration.web?.webPush.origin == nil)
    }

    @Test("each option sets its field of the policy")
    func eachOption() throws {
        let parsed = try ServeCommand.parse([
            "--web-push-missing-ttl", "refuse", "--web-push-max-ttl", "3600", "--web-push-legacy-authorization", "accept",
            "--web-push-aesgcm", "accept", "--web-push-removed-permission", "unregistered", "--web-push-clock-leeway", "5",
            "--web-push-origin", "HTTPS://Push.Example:443",
        ])
        let configuration = try parsed.makeConfiguration()
        let policy = configuration.gateway.webPush
        #expect(policy.missingTTL == nil)
        #expect(policy.maximumTTL == WebPushTTL(seconds: 3600))
        #expect(policy.legacyAuthorization == .accept)
        #expect(policy.legacyContentEncoding == .accept)
        #expect(policy.removedPermission == .unregistered)
        #expect(policy.clockLeewaySeconds == 5)
        #expect(configuration.web?.webPush.origin == "https://push.example")
        // A missing TTL given in seconds is kept that long, never longer than the maximum.
        let seconds = try ServeCommand.parse(["--web-push-missing-ttl", "90000", "--web-push-max-ttl", "60"]).makeConfiguration()
        #expect(seconds.gateway.webPush.missingTTL == WebPushTTL(seconds: 60))
    }

    @Test(
        "a wrong value is one line naming the option",
        arguments: [
            (["--web-push-missing-ttl", "soon"], "--web-push-missing-ttl must be maximum, refuse or a number of seconds, not soon"),
            (["--web-push-max-ttl=-1"], "--web-push-max-ttl must not be negative"),
            (["--web-push-legacy-authorization", "maybe"], "--web-push-legacy-authorization must be refuse or accept, not maybe"),
            (["--web-push-aesgcm", "yes"], "--web-push-aesgcm must be refuse or accept, not yes"),
            (["--web-push-removed-permission", "410"], "--web-push-removed-permission must be answer-as-sent or unregistered, not 410"),
            (["--web-push-clock-leeway", "7200"], "--web-push-clock-leeway must be between 0 and 3600"),
            (
                ["--web-push-origin", "ftp://push.example"],
                "--web-push-origin must be https://host[:port] or http://host[:port], not ftp://push.example"
            ),
        ] as [([String], String)]
    )
    func refused(arguments: [String], message: String) throws {
        let parsed = try ServeCommand.parse(arguments)
        #expect(throws: CLIFailure(message)) { try parsed.makeConfiguration() }
    }
}
