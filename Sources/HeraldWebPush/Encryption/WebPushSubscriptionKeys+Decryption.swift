import Crypto

extension WebPushSubscriptionKeys {
    /// The plaintext of a web push message's body, decrypted as the user agent does (RFC 8291 §3.4, §4).
    ///
    /// The layout is checked against `rules` before any cryptography; the `keyid` is the application server's key,
    /// with which ECDH gives the input keying material.
    ///
    /// - Throws: an ``AES128GCMError`` that says what was wrong, in one line for the trace: a malformed header or
    ///   layout, a body over the limits, a `keyid` that is no P-256 point, a record that does not authenticate
    ///   (another subscription's keys, or altered octets), or bad padding.
    public func decrypt(_ body: some Collection<UInt8>, rules: AES128GCMRules = .webPush) throws(AES128GCMError) -> [UInt8] {
        let layout = try AES128GCMLayout(parsing: body, rules: rules)
        let body = Array(body)
        let senderPublicKey = layout.header.keyID
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: senderPublicKey),
            senderPublicKey.first == 0x04,
            let ecdhSecret = try? privateKey.sharedSecretFromKeyAgreement(with: senderKey).withUnsafeBytes({ Array($0) })
        else {
            throw AES128GCMError.invalidSenderKey.saying(
                "the keyid (\(senderPublicKey.count) octets) is not the uncompressed point of a P-256 key (RFC 8291 §4)"
            )
        }
        let key = AES128GCMKey(
            inputKeyingMaterial: WebPushEncryption.inputKeyingMaterial(
                ecdhSecret: ecdhSecret,
                authSecret: authSecret,
                userAgentPublicKey: publicKey,
                applicationServerPublicKey: senderPublicKey
            ),
            salt: layout.header.salt
        )
        return try AES128GCM.decrypt(body, layout: layout, key: key)
    }
}
