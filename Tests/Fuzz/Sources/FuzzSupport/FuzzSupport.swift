import CFuzzer
import Foundation

/// Runs libFuzzer with `test` as its `LLVMFuzzerTestOneInput` and the process's arguments.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// The input libFuzzer hands `LLVMFuzzerTestOneInput`, copied into an array.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A property every input must keep: a violation traps, which libFuzzer reports as a crash
/// and saves as a reproducer. The message is printed first so the log says which property.
public func require(_ condition: Bool, _ message: @autoclosure () -> String, input: [UInt8]) {
    guard !condition else { return }
    let text = "fuzz property violated: \(message())\ninput (\(input.count) bytes): \(escaped(input))\n"
    FileHandle.standardError.write(Data(text.utf8))
    fatalError("fuzz property violated")
}

/// Bytes as a Swift string literal body: printable ASCII as is, the rest as \u{..} escapes.
public func escaped(_ bytes: [UInt8]) -> String {
    var out = ""
    for b in bytes {
        switch b {
        case UInt8(ascii: "\\"): out += "\\\\"
        case UInt8(ascii: "\""): out += "\\\""
        case 0x0D: out += "\\r"
        case 0x0A: out += "\\n"
        case 0x09: out += "\\t"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(b))
        default: out += "\\u{" + String(b, radix: 16) + "}"
        }
    }
    return out
}

/// FNV-1a over the input: a seed for the choices a target makes (chunk sizes), so a
/// reproducer file replays exactly and corpus files stay the plain inputs they look like.
public func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}


/// Seed corpora come from the code itself: with `TANDEM_FUZZ_SEEDS=DIR` in the environment a
/// target writes the seeds it generates there and exits, before fuzzing starts.
public func writeSeedsIfAsked(_ seeds: () -> [(String, [UInt8])]) {
    guard let dir = ProcessInfo.processInfo.environment["TANDEM_FUZZ_SEEDS"] else { return }
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let all = seeds()
    for (name, bytes) in all {
        _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
    }
    print("wrote \(all.count) seeds to \(dir)")
    exit(0)
}
