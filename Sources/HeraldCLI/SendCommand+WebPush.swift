import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebPush
import NIOCore

/// A web push, resolved from the options: where it goes, its headers and its encrypted body.
struct WebPushPlan {
    var endpoint: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The payload before encryption, for tests and messages.
    var plaintext: [UInt8]
}

/// The push service's answer to a web push.
struct WebPushAnswer: Equatable {
    var status: Int
    /// `Location`: the message's URL, on `201`.
    var location: String?
    /// The JSON body's `reason`, on a refusal.
    var reason: String?
    /// Herald's one-line explanation of a refusal (`herald-explanation`).
    var explanation: String?
    var latency: Duration

    /// Herald's header that explains a refusal, which Apple's service does not send.
    static let explanationHeader = "herald-explanation"

    /// `201  location https://…  2.1 ms`, `403 BadJwtToken  VAPID sub "mailto:dev@localhost": … refused  1.0 ms`.
    var line: String {
        var parts = [reason.map { "\(status) \($0)" } ?? "\(status)"]
        if let location { parts.append("location \(location)") }
        if let explanation { parts.append(explanation) }
        parts.append(SendOutput.milliseconds(latency) + " ms")
        return parts.joined(separator: "  ")
    }

    /// `{"explanation":…,"latencyMs":…,"location":…,"reason":…,"status":…}` (absent keys omitted).
    var jsonLine: String {
        var object: [String: JSONValue] = ["status": .int(status), "latencyMs": .double(SendOutput.roundedMilliseconds(latency))]
        if let location { object["location"] = .string(location) }
        if let reason { object["reason"] = .string(reason) }
        if let explanation { object["explanation"] = .string(explanation) }
        return OutputFormat.jsonLine(object)
    }
}

extension SendCommand {
    /// `herald send --web-push`: encrypts, signs, posts, prints the answer; exit status 1 for anything but `201`.
    func runWebPush() async throws {
        try await reportingErrors {
            let answer = try await sendWebPush(resolveWebPush(now: Date()))
            print(json ? answer.jsonLine : answer.line)
            if answer.status != 201 { throw ExitCode.failure }
        }
    }

    /// Turns the options into a web push: reads the subscription and the key, makes the payload, encrypts it for the
    /// subscription's keys and signs VAPID for the endpoint's origin.
    ///
    /// - Throws: ``CLIFailure`` with one line for any option, file or key that cannot be used; nothing is sent.
    func resolveWebPush(now: Date) throws -> WebPushPlan {
        let apnsOnly: [(String, Bool)] = [
            ("a .apns file", apnsFile != nil), ("--token", token != nil), ("--push-type", pushType != nil), ("--priority", priority != nil),
            ("--expiration", expiration != nil), ("--collapse-id", collapseID != nil), ("--apns-id", apnsID != nil),
            ("--broadcast", broadcast != nil), ("--event", liveActivity.event != nil), ("--repeat", repeatCount != 1), ("--rate", rate != nil),
            ("--server", connection.server != ProviderConnectionOptions.defaultURL || connection.deprecatedURL != nil),
            ("--key-file, --key-id or --team-id", connection.keyFile != nil || connection.keyID != nil || connection.teamID != nil),
            ("--cert or --cert-key", connection.cert != nil || connection.certKey != nil),
        ]
        if let name = apnsOnly.first(where: \.1)?.0 { throw CLIFailure("\(name) is for APNs, not --web-push") }
        guard let path = webPush.subscription else { throw CLIFailure("give --web-push SUBSCRIPTION.json") }
        guard let subject = webPush.subject else {
            throw CLIFailure("give --subject: Apple refuses a push without a VAPID sub (a mailto: address or an https: URL)")
        }
        guard let keyPath = webPush.vapidKey else {
            throw CLIFailure("give --vapid-key FILE (a P-256 key: openssl ecparam -name prime256v1 -genkey -noout -out vapid.pem)")
        }
        let ttl = webPush.ttl ?? WebPushSendOptions.defaultTTL
        guard ttl >= 0 else { throw CLIFailure("--ttl must be 0 or more seconds, not \(ttl)") }
        var headers: [(name: String, value: String)] = [("TTL", String(ttl))]
        if let urgency = webPush.urgency {
            guard let value = WebPushUrgency(rawValue: urgency) else {
                throw CLIFailure("--urgency must be very-low, low, normal or high, not '\(urgency)'")
            }
            headers.append(("Urgency", value.rawValue))
        }
        if let topic {
            guard WebPushTopic(topic) != nil else {
                throw CLIFailure("--topic must be at most \(WebPushTopic.maximumLength) URL-safe base64 characters (A-Z a-z 0-9 - _), not '\(topic)'")
            }
            headers.append(("Topic", topic))
        }

        let subscriptionSource = path == "-" ? "standard input" : path
        let subscription = try WebPushSubscriptionJSON(
            bytes: WebPushSendOptions.read(path, what: "a subscription"),
            source: subscriptionSource
        )
        guard VAPIDSigner.origin(ofEndpoint: subscription.endpoint) != nil else {
            throw CLIFailure("\(subscriptionSource): endpoint '\(subscription.endpoint)' is not an https:// or http:// URL")
        }
        let keyText = String(decoding: try WebPushSendOptions.read(keyPath, what: "a key"), as: UTF8.self)
        let signer: VAPIDSigner
        do {
            signer = try VAPIDSigner(pemRepresentation: keyText, subject: subject)
        } catch {
            throw CLIFailure("\(keyPath): \(error.description)")
        }
        if let refusal = VAPIDSubject.check(subject) {
            FileHandle.standardError.write(Data("herald: warning: Apple answers 403 BadJwtToken: \(refusal.explanation)\n".utf8))
        }
        let plaintext = try webPushPayload()
        let body: [UInt8]
        do {
            body = try WebPushEncryption.encrypt(plaintext, p256dh: subscription.p256dh, auth: subscription.auth)
        } catch {
            throw CLIFailure("\(subscriptionSource): \(error.description)")
        }
        let authorization: String
        do {
            authorization = try signer.authorization(endpoint: subscription.endpoint, nowSeconds: Int64(now.timeIntervalSince1970))
        } catch {
            throw CLIFailure("\(subscriptionSource): \(error.description)")
        }
        headers += [
            ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"), ("Authorization", authorization),
        ]
        return WebPushPlan(endpoint: subscription.endpoint, headers: headers, body: body, plaintext: plaintext)
    }

    /// The message: `--payload` or `--payload-file` as given, or `{"title":…,"body":…,"navigate":…}` from
    /// `--alert`/`--alert-title`, `--alert-body` and `--navigate`; with `--declarative`, in Safari's declarative form
    /// (a payload that already has `web_push` is sent as it is).
    func webPushPayload() throws -> [UInt8] {
        let title = liveActivity.alertTitle ?? alert
        if liveActivity.alertTitle != nil, alert != nil {
            throw CLIFailure("give --alert or --alert-title, not both (with --web-push, --alert is the title)")
        }
        let fields = [("title", title), ("body", liveActivity.alertBody), ("navigate", webPush.navigate)]
        let fromOptions = fields.contains { $0.1 != nil }
        let sources = [payload != nil, payloadFile != nil, fromOptions].filter { $0 }.count
        guard sources == 1 else {
            throw CLIFailure(
                sources == 0
                    ? "give a payload: --payload TEXT, --payload-file FILE, or --alert-title/--alert-body/--navigate"
                    : "give one payload: --payload, --payload-file, or --alert-title/--alert-body/--navigate"
            )
        }
        if fromOptions {
            if webPush.declarative, title == nil {
                throw CLIFailure("--declarative needs --alert-title: Safari shows no notification without a title")
            }
            let members = fields.compactMap { name, text in text.map { #""\#(name)":\#(JSONString.quoted($0))"# } }
            let notification = "{" + members.joined(separator: ",") + "}"
            return Array((webPush.declarative ? #"{"web_push":8030,"notification":\#(notification)}"# : notification).utf8)
        }
        let bytes = try payloadFile.map { try WebPushSendOptions.read($0, what: "a payload") } ?? Array((payload ?? "").utf8)
        guard webPush.declarative else { return bytes }
        let source = payloadFile ?? "--payload"
        guard let object = (try? JSONParser.parse(bytes))?.objectValue else {
            throw CLIFailure("\(source): --declarative needs a JSON object (the notification, or the whole {\"web_push\":8030,…})")
        }
        if object["web_push"] != nil { return bytes }
        return Array(#"{"web_push":8030,"notification":"#.utf8) + bytes + Array("}".utf8)
    }

    /// Posts the plan to its endpoint, over HTTP/2 or HTTP/1.1 as the server offers, trusting `--ca-file` only, or
    /// the system's CAs and the data directory's development CA.
    func sendWebPush(_ plan: WebPushPlan) async throws -> WebPushAnswer {
        var request = HTTPClientRequest(url: plan.endpoint)
        request.method = .POST
        for header in plan.headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: plan.body))
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .milliseconds(Int64(min(connection.timeout, 10) * 1000))
        configuration.tlsConfiguration = .makeClientConfiguration()
        if let caFile = connection.caFile {
            configuration.tlsConfiguration?.trustRoots = .file(caFile)
        } else {
            let developmentCA = data.tlsDirectory.appendingPathComponent("ca.pem").path
            if FileManager.default.fileExists(atPath: developmentCA) { configuration.tlsConfiguration?.additionalTrustRoots = [.file(developmentCA)] }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let start = ContinuousClock.now
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(connection.timeout * 1000)))
            let body = try await response.body.collect(upTo: 64 * 1024)
            let latency = ContinuousClock.now - start
            try? await client.shutdown()
            let reason = (try? JSONParser.parse(Array(body.readableBytesView)))?.objectValue?["reason"]?.stringValue
            return WebPushAnswer(
                status: Int(response.status.code),
                location: response.headers.first(name: "location"),
                reason: reason,
                explanation: response.headers.first(name: WebPushAnswer.explanationHeader),
                latency: latency
            )
        } catch {
            try? await client.shutdown()
            let origin = VAPIDSigner.origin(ofEndpoint: plan.endpoint) ?? plan.endpoint
            throw CLIFailure("no answer from the push service at \(origin) (\(ConnectionFailure.text(error)))")
        }
    }
}
