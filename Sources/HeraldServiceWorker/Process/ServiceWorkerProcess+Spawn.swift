import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServiceWorkerProcess {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does not declare.
    nonisolated(unsafe) private static let closeFrom = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")

    /// Starts the child with `input` as its standard input, `output` as its standard output, standard error to a file,
    /// no other descriptor, the default signal dispositions and an empty environment but `LANG`.
    static func spawn(
        path: String,
        arguments: [String],
        input: Int32,
        output: Int32,
        standardErrorPath: String
    ) -> Result<pid_t, ServiceWorkerError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let closeFrom {
            _ = unsafeBitCast(closeFrom, to: AddCloseFrom.self)(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ["LANG=C.UTF-8"]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { return .failure(ServiceWorkerError(.exited, "cannot start \(path): \(String(cString: strerror(result)))")) }
        return .success(pid)
    }
}
