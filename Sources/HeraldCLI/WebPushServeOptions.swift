import ArgumentParser
import HeraldDeviceLink
import HeraldWebPush

/// `herald serve`'s settings for the push service: each of Herald's choices where Apple is silent
/// (docs/web-push.md, "Herald's choices where Apple is silent"), one option each.
struct WebPushServeOptions: ParsableArguments {
    @Option(
        name: .customLong("web-push-missing-ttl"),
        help: "A web push without a TTL header: maximum (kept as long as --web-push-max-ttl), refuse (400 BadExpirationDate) or SECONDS."
    )
    var missingTTL = "maximum"

    @Option(name: .customLong("web-push-max-ttl"), help: "The longest a web push message is kept, in seconds; a larger TTL is cut to it.")
    var maximumTTL = WebPushTTL.thirtyDays.seconds

    @Option(
        name: .customLong("web-push-legacy-authorization"),
        help: "The draft VAPID form (Authorization: WebPush <JWT> with Crypto-Key: p256ecdsa=<key>): refuse or accept."
    )
    var legacyAuthorization = "refuse"

    @Option(name: .customLong("web-push-aesgcm"), help: "The draft content coding aesgcm: refuse (415) or accept.")
    var legacyContentEncoding = "refuse"

    @Option(
        name: .customLong("web-push-removed-permission"),
        help: "A web push to a subscription whose permission was removed: answer-as-sent (201, not delivered) or unregistered (410)."
    )
    var removedPermission = "answer-as-sent"

    @Option(name: .customLong("web-push-clock-leeway"), help: "Seconds of clock skew allowed for a VAPID JWT's exp, either way.")
    var clockLeeway: Int64 = 60

    @Option(
        name: .customLong("web-push-origin"),
        help: """
            The push service's origin in the endpoints given to web apps (https://host[:port]), e.g. behind a proxy; \
            default: the provider port, on the host the device reached.
            """
    )
    var origin: String?

    /// `--web-push-origin` checked and normalised, or `nil` when not given.
    func endpointOrigin() throws -> String? {
        guard let origin else { return nil }
        guard let normalised = DeviceLinkClientMessage.webPushOrigin(origin) else {
            throw CLIFailure("--web-push-origin must be https://host[:port] or http://host[:port], not \(origin)")
        }
        return normalised
    }

    /// The policy these options give, or a one-line error naming the option.
    func policy() throws -> WebPushPolicy {
        var policy = WebPushPolicy()
        guard maximumTTL >= 0 else { throw CLIFailure("--web-push-max-ttl must not be negative") }
        policy.maximumTTL = WebPushTTL(seconds: maximumTTL)
        switch missingTTL {
        case "maximum": policy.missingTTL = policy.maximumTTL
        case "refuse": policy.missingTTL = nil
        default:
            guard let seconds = Int64(missingTTL), seconds >= 0 else {
                throw CLIFailure("--web-push-missing-ttl must be maximum, refuse or a number of seconds, not \(missingTTL)")
            }
            policy.missingTTL = min(WebPushTTL(seconds: seconds), policy.maximumTTL)
        }
        guard let authorization = WebPushPolicy.Acceptance(rawValue: legacyAuthorization) else {
            throw CLIFailure("--web-push-legacy-authorization must be refuse or accept, not \(legacyAuthorization)")
        }
        policy.legacyAuthorization = authorization
        guard let encoding = WebPushPolicy.Acceptance(rawValue: legacyContentEncoding) else {
            throw CLIFailure("--web-push-aesgcm must be refuse or accept, not \(legacyContentEncoding)")
        }
        policy.legacyContentEncoding = encoding
        guard let removed = WebPushPolicy.RemovedPermissionAnswer(rawValue: removedPermission) else {
            throw CLIFailure("--web-push-removed-permission must be answer-as-sent or unregistered, not \(removedPermission)")
        }
        policy.removedPermission = removed
        guard (0...3600).contains(clockLeeway) else { throw CLIFailure("--web-push-clock-leeway must be between 0 and 3600") }
        policy.clockLeewaySeconds = clockLeeway
        return policy
    }
}
