import Foundation

#if HERALD_FUZZ
import CLibFuzzer
#endif

/// The `main` of every fuzz target: libFuzzer's driver in a fuzz build, a replay of input files otherwise.
///
/// Why a `main` of our own: SwiftPM gives an executable target's entry point a module-specific name and links `main`
/// to it, so libFuzzer's own `main` cannot be used; `LLVMFuzzerRunDriver` is libFuzzer's entry for that case. In a
/// normal build (no `-DHERALD_FUZZ`, no libFuzzer) the same target replays files, so `swift build` links and a
/// crashing input can be replayed without sanitizers: `swift run FuzzJSONPayload crash-…` (docs/fuzzing.md).
public enum FuzzDriver {
    /// The function libFuzzer calls with each input; returns 0.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs `testOneInput` under libFuzzer (with the process's arguments), or over the files and directories named on
    /// the command line. Does not return.
    public static func main(_ testOneInput: TestOneInput) -> Never {
        #if HERALD_FUZZ
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
        replay(testOneInput)
        #endif
    }

    private static func replay(_ testOneInput: TestOneInput) -> Never {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: \(CommandLine.arguments[0]) FILE-OR-DIRECTORY... (replays inputs; see docs/fuzzing.md)")
            exit(2)
        }
        var count = 0
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("cannot read \(file)")
                    exit(2)
                }
                _ = [UInt8](data).withUnsafeBufferPointer { testOneInput($0.baseAddress, $0.count) }
                count += 1
            }
        }
        print("replayed \(count) input(s)")
        exit(0)
    }

    private static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
