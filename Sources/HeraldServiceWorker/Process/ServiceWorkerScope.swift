/// The scope's JavaScript, built into the binary (`Scope/scope.js`, SwiftPM's `embedInCode`): no file to install.
public enum ServiceWorkerScope {
    /// The bytes of `scope.js`.
    public static var source: [UInt8] { PackageResources.scope_js }
}
